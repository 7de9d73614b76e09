#include "parallel/stop.hpp"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <initializer_list>

namespace wordsens::parallel {
namespace {

// Written by signal handlers (on whichever thread the signal reaches) and by request_stop, read
// by the scheduler's thread: an atomic, lock-free so that the handlers may touch it.
std::atomic<int> g_request{0};
static_assert(std::atomic<int>::is_always_lock_free);
// Start-up: the exit code and message of TERM/INT (set before the handlers are installed).
int g_startup_code = 4;
const char* g_startup_message = nullptr;

extern "C" void on_stop_signal(int signal) {
  const int level = signal == SIGUSR1 ? 1 : 2;
  int current = g_request.load();
  while (level > current && !g_request.compare_exchange_weak(current, level)) {
  }
}

extern "C" void on_startup_signal(int signal) {
  if (signal == SIGUSR1) {
    on_stop_signal(signal);
    return;
  }
  if (g_startup_message != nullptr) {
    [[maybe_unused]] const ssize_t written =
        ::write(STDERR_FILENO, g_startup_message, std::strlen(g_startup_message));
  }
  ::_exit(g_startup_code);
}

void install(void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // blocking calls resume; the scheduler polls the flag
  for (const int signal : {SIGUSR1, SIGTERM, SIGINT}) sigaction(signal, &action, nullptr);
}

}  // namespace

void install_startup_handlers(int exit_code, const char* message) {
  g_startup_code = exit_code;
  g_startup_message = message;
  std::signal(SIGPIPE, SIG_IGN);
  install(on_startup_signal);
  // A launcher may start the process with these blocked (jobs/mpi_step.sh starts each rank
  // under `env --block-signal=USR1`), so that one sent while the process is still being loaded
  // waits instead of killing it: unblocking delivers it now, to the handlers just installed.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  for (const int signal : {SIGUSR1, SIGTERM, SIGINT}) sigaddset(&stop_signals, signal);
  pthread_sigmask(SIG_UNBLOCK, &stop_signals, nullptr);
}

void end_quietly_on_interrupt(int exit_code) {
  g_startup_message = nullptr;
  g_startup_code = exit_code;
  install(on_startup_signal);
}

void install_stop_handlers() { install(on_stop_signal); }

StopRequest stop_requested() { return static_cast<StopRequest>(g_request.load()); }

void request_stop(StopRequest request) {
  const int level = static_cast<int>(request);
  int current = g_request.load();
  while (level > current && !g_request.compare_exchange_weak(current, level)) {
  }
}

void clear_stop_request() { g_request.store(0); }

}  // namespace wordsens::parallel
