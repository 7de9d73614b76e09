#include "cli/standard_streams.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ext/stdio_sync_filebuf.h>
#include <iostream>
#include <string>

#include "cli/exit_codes.hpp"
#include "core/printable.hpp"

namespace wordsens::cli {
namespace {

bool g_stdout_was_closed = false;
// errno of the first write to descriptor 1 that failed; 0 while none has. stdio keeps only a
// flag (and drops the bytes), so the reason is recorded where the write happens.
int g_first_write_error = 0;

bool is_open(int descriptor) { return ::fcntl(descriptor, F_GETFD) != -1 || errno != EBADF; }

// Opens `device` on exactly `descriptor` (the lowest free one, since every lower one is open).
bool reopen_on(int descriptor, const char* device, int flags) {
  const int opened = ::open(device, flags | O_CLOEXEC);
  if (opened < 0) return false;
  if (opened == descriptor) {
    // open() never clears O_CLOEXEC: a standard descriptor must survive exec (mpirun's children).
    return ::fcntl(descriptor, F_SETFD, 0) == 0;
  }
  const bool moved = ::dup2(opened, descriptor) == descriptor;
  ::close(opened);
  return moved;
}

// The write function of the stream that replaces stdout: write(2) on descriptor 1, remembering
// the first error. Returns the bytes written (0 on an error, as fopencookie asks).
ssize_t write_standard_output(void* /*cookie*/, const char* data, std::size_t size) {
  std::size_t written = 0;
  while (written < size) {
    const ssize_t n = ::write(STDOUT_FILENO, data + written, size - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (g_first_write_error == 0) g_first_write_error = n < 0 ? errno : EIO;
      return static_cast<ssize_t>(written);
    }
    written += static_cast<std::size_t>(n);
  }
  return static_cast<ssize_t>(written);
}

// stdout (printf) and std::cout become one stream over write_standard_output, buffered as
// stdio buffers descriptor 1 (by line on a terminal, in blocks otherwise). glibc lets a program
// assign stdout; std::cout writes through a stdio_sync_filebuf on it, as it does by default.
void record_write_errors() {
  FILE* stream = ::fopencookie(nullptr, "w", {nullptr, write_standard_output, nullptr, nullptr});
  if (stream == nullptr) return;  // stdio's own stream then: errors are still detected
  std::setvbuf(stream, nullptr, ::isatty(STDOUT_FILENO) != 0 ? _IOLBF : _IOFBF, BUFSIZ);
  stdout = stream;
  static __gnu_cxx::stdio_sync_filebuf<char> buffer(stream);
  std::cout.rdbuf(&buffer);
}

}  // namespace

void keep_standard_descriptors_open() {
  if (!is_open(STDIN_FILENO)) reopen_on(STDIN_FILENO, "/dev/null", O_RDONLY);
  if (!is_open(STDOUT_FILENO)) {
    g_stdout_was_closed = true;
    // /dev/null where /dev/full is missing: no file can take descriptor 1 either way.
    if (!reopen_on(STDOUT_FILENO, "/dev/full", O_WRONLY)) {
      reopen_on(STDOUT_FILENO, "/dev/null", O_WRONLY);
    }
  }
  if (!is_open(STDERR_FILENO)) reopen_on(STDERR_FILENO, "/dev/null", O_WRONLY);
  record_write_errors();
}

int finish_standard_output(std::string_view command, int exit_code) {
  std::cout.flush();
  const bool flush_failed = std::fflush(stdout) != 0;
  if (!flush_failed && !std::ferror(stdout) && std::cout.good() && g_first_write_error == 0) {
    return exit_code;
  }
  std::string why = "a write failed";
  if (g_stdout_was_closed) {
    why = "it is closed";
  } else if (g_first_write_error != 0) {
    why = std::strerror(g_first_write_error);
  }
  std::cerr << "wordsens " << printable(command) << ": error: cannot write standard output: " << why
            << "\n";
  return exit_code == kExitOk ? kExitFailure : exit_code;
}

}  // namespace wordsens::cli
