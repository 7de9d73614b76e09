#pragma once
// How long a rank's MPI thread sleeps between two polls in which nothing happened. Open MPI
// busy-waits in a blocking receive, so the thread polls; each poll costs a wake-up and an
// MPI_Iprobe. A fixed 200 µs pause kept the hand-out of millisecond tasks quick, but on tasks of
// a second it took 15 % of the CPU time of a 2-rank run on 2 cores (5000 polls a second per rank,
// competing with the compute threads for the same cores).
#include <chrono>
#include <cstddef>

namespace wordsens::parallel {

class PollPause {
 public:
  /// Never shorter: short tasks are handed out within this.
  static constexpr std::chrono::microseconds kShortest{200};
  /// Never longer: a stop, a signal or a wall time is acted on within this.
  static constexpr std::chrono::microseconds kLongest{5000};
  /// The pause as a fraction of the mean task time: a finished task waits half a pause on
  /// average before rank 0 sees it, so workers idle about half of this fraction (0.5 %).
  static constexpr double kFractionOfTask = 0.01;

  /// A task took this long, from its hand-out to its result.
  void task_took(double seconds);
  /// kFractionOfTask of the mean task time so far, within [kShortest, kLongest]; kShortest
  /// before any task has finished.
  [[nodiscard]] std::chrono::microseconds pause() const;

 private:
  double total_seconds_ = 0;
  std::size_t tasks_ = 0;
};

}  // namespace wordsens::parallel
