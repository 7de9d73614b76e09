#include "parallel/stop.hpp"

#include <csignal>
#include <initializer_list>

namespace wordsens::parallel {
namespace {

volatile std::sig_atomic_t g_request = 0;

extern "C" void on_stop_signal(int signal) {
  const int level = signal == SIGUSR1 ? 1 : 2;
  if (level > g_request) g_request = level;
}

}  // namespace

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // blocking calls resume; the scheduler polls the flag
  for (const int signal : {SIGUSR1, SIGTERM, SIGINT}) sigaction(signal, &action, nullptr);
}

StopRequest stop_requested() { return static_cast<StopRequest>(g_request); }

void request_stop(StopRequest request) {
  if (static_cast<int>(request) > g_request) g_request = static_cast<int>(request);
}

}  // namespace wordsens::parallel
