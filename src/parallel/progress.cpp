#include "parallel/progress.hpp"

#include <unistd.h>

#include <cmath>

namespace wordsens::parallel {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const long s = std::lround(seconds);
  char buffer[32];
  if (s >= 3600) {
    std::snprintf(buffer, sizeof buffer, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  } else if (s >= 60) {
    std::snprintf(buffer, sizeof buffer, "%ldm%02lds", s / 60, s % 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%lds", s);
  }
  return buffer;
}

Progress::Progress(std::size_t total, double total_cost, double interval_seconds, std::FILE* out)
    : total_(total),
      total_cost_(total_cost),
      interval_(interval_seconds),
      out_(out),
      tty_(isatty(fileno(out)) != 0),
      start_(std::chrono::steady_clock::now()),
      last_line_(start_),
      last_bar_(start_) {}

void Progress::task_done(double cost) {
  ++done_;
  done_cost_ += cost;
}

std::string Progress::status_line() const {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double fraction = total_ == 0 ? 1.0 : static_cast<double>(done_) / total_;
  const double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0.0;
  // Remaining time from the cost already done per second: robust to mixed task sizes.
  const double eta =
      done_cost_ > 0 ? elapsed * (total_cost_ - done_cost_) / done_cost_ : std::nan("");
  char buffer[160];
  std::snprintf(buffer, sizeof buffer,
                "progress: %zu/%zu tasks (%.1f%%), %.2f tasks/s, elapsed %s, ETA %s", done_, total_,
                100.0 * fraction, rate, format_duration(elapsed).c_str(),
                done_ == total_ ? "0s" : format_duration(eta).c_str());
  return buffer;
}

void Progress::tick() {
  const auto now = std::chrono::steady_clock::now();
  if (tty_) {
    if (std::chrono::duration<double>(now - last_bar_).count() >= 0.2) {
      last_bar_ = now;
      const int width = 30;
      const int filled =
          total_ == 0 ? width : static_cast<int>(width * static_cast<double>(done_) / total_);
      std::fprintf(out_, "\r[%-*s] %s\x1b[K", width, std::string(filled, '#').c_str(),
                   status_line().c_str());
      std::fflush(out_);
    }
    return;
  }
  if (std::chrono::duration<double>(now - last_line_).count() >= interval_) {
    last_line_ = now;
    std::fprintf(out_, "%s\n", status_line().c_str());
    std::fflush(out_);
  }
}

void Progress::finish(const std::string& outcome) {
  std::fprintf(out_, "%s%s; %s\n", tty_ ? "\r\x1b[K" : "", status_line().c_str(), outcome.c_str());
  std::fflush(out_);
}

}  // namespace wordsens::parallel
