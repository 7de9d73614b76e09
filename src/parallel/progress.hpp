#pragma once
// Progress of a run on rank 0, to stderr: plain lines every `interval` seconds (fit for a
// cluster log) and, when stderr is a terminal, a live bar redrawn in place with '\r'.
// The ETA weighs tasks by their estimated cost: tasks differ in cost by orders of magnitude.
#include <chrono>
#include <cstdio>
#include <string>

namespace wordsens::parallel {

class Progress {
 public:
  /// `total` tasks to run in this invocation, of total estimated cost `total_cost`.
  Progress(std::size_t total, double total_cost, double interval_seconds, std::FILE* out = stderr);

  /// One more task finished, of estimated cost `cost`.
  void task_done(double cost);
  /// Prints if a line (or a bar redraw) is due.
  void tick();
  /// Final line (always printed).
  void finish(const std::string& outcome);

  [[nodiscard]] std::size_t done() const { return done_; }

 private:
  [[nodiscard]] std::string status_line() const;
  std::size_t total_;
  double total_cost_;
  double interval_;
  std::FILE* out_;
  bool tty_;
  std::size_t done_ = 0;
  double done_cost_ = 0;
  std::chrono::steady_clock::time_point start_, last_line_, last_bar_;
};

/// "1h02m", "3m05s", "12s".
[[nodiscard]] std::string format_duration(double seconds);

}  // namespace wordsens::parallel
