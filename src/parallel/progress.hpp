#pragma once
// Progress of a run on rank 0, to stderr: plain lines every `interval` seconds (fit for a
// cluster log) and, when stderr is a terminal, a live bar redrawn in place with '\r'.
//
// The ETA prices what is left with the cost model and corrects the price by the times measured
// so far. Left: the tasks not yet handed out and, for each task in flight, its estimate less the
// time it has run. Each is priced at the cost model's seconds times a rate (seconds measured per
// second predicted) of its group, its grid point: the cost model errs alike on the trials of one
// point and differently from point to point (measured: drf ws tasks take a quarter of their
// estimate, attention at n >> d 2-3x theirs). A point with finished tasks has its own measured
// rate, weighed against the study's by its number of finished tasks; a point not yet run gets the
// study's rate, the mean over the finished points (log scale) shrunk toward the cost model's
// calibration (rate 1) as if that were kCalibrationPoints more points. The ETA is then the time
// at which the last of these tasks ends when the ranks take them in queue order (the driver's: one
// task of every point, then longest first) as they become free: it counts the ranks working at once
// and the straggling last tasks. Rates from finished tasks are not biased by the work in flight, as
// done-cost / elapsed is when the expensive tasks run first.
//
// The share done is of the predicted work, not of the tasks: the finished tasks' prices and, for
// each task in flight, the part of its price its running time has covered (at its point's rate).
// The driver hands out the longest tasks first, so a share of tasks lags the time (28 % of the
// tasks done at 87 % of a run's time). A task in flight that has run past its price makes the ETA
// a lower bound (its time left is unknown but not negative): the line says "at least".
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace wordsens::parallel {

/// Seconds on a monotonic clock (the default: std::chrono::steady_clock; tests replay a run on a
/// simulated one).
using ProgressClock = std::function<double()>;

/// A task of the queue as the ETA sees it.
struct PlannedTask {
  double seconds = 0;       // the cost model's estimate on one rank
  std::uint32_t group = 0;  // tasks of one group (a grid point) share the estimate's error
};

class Progress {
 public:
  /// The cost model's calibration counts as the measured rates of this many grid points.
  static constexpr double kCalibrationPoints = 3.0;
  /// A point's own rate after n finished tasks weighs n / (n + this) against the study's rate.
  static constexpr double kPointPriorTasks = 1.0;

  /// `queue`: the tasks of this invocation in the order they are handed out; `ranks` compute at
  /// once (one task each).
  Progress(std::vector<PlannedTask> queue, int ranks, double interval_seconds,
           std::FILE* out = stderr, ProgressClock clock = {});

  /// Task `index` of the queue was handed out to a rank (now).
  void task_started(std::size_t index);
  /// Task `index` finished (now); its record has been stored.
  void task_done(std::size_t index);
  /// Task `index` failed: no longer in flight, not done.
  void task_failed(std::size_t index);
  /// No more tasks are handed out (checkpoint, failure): the ETA counts the tasks in flight only.
  void stop_handing_out() { handing_out_ = false; }

  /// Prints if a line (or a bar redraw) is due.
  void tick();
  /// Final line (always printed).
  void finish(const std::string& outcome);

  [[nodiscard]] std::size_t done() const { return done_; }
  /// Seconds from now until the last task left ends (0 when none is left).
  [[nodiscard]] double eta_seconds() const;
  /// Whether a task in flight has run past its price at its point's rate: then eta_seconds()
  /// counts nothing left of it, and is a lower bound.
  [[nodiscard]] bool eta_is_lower_bound() const;
  /// The share of the predicted work done, in [0, 1] (see above).
  [[nodiscard]] double work_done() const;
  /// "progress: 12/220 tasks, 38.2% of the predicted work, elapsed 30s, ETA 1m42s" (or "ETA at
  /// least 1m42s" while a task runs past its price).
  [[nodiscard]] std::string status_line() const;

 private:
  struct GroupTimes {
    double predicted = 0;  // seconds, over the finished tasks of the group
    double measured = 0;
    int count = 0;
  };
  [[nodiscard]] double now() const;
  [[nodiscard]] double elapsed() const { return now() - start_; }
  /// The log of the study's rate (measured per predicted seconds): the mean over the points with
  /// finished tasks, with the calibration's rate 1 counted as kCalibrationPoints more points.
  [[nodiscard]] double study_log_rate() const;
  /// The rate of a group: its own, weighed against the study's by its finished tasks.
  [[nodiscard]] double rate_of(std::uint32_t group, double study_log_rate) const;

  std::vector<PlannedTask> queue_;
  std::vector<unsigned char> started_;
  std::unordered_map<std::size_t, double> in_flight_;  // queue index → time handed out
  std::unordered_map<std::uint32_t, GroupTimes> groups_;
  std::size_t first_waiting_ = 0;  // no task before this index is still waiting
  int ranks_;
  bool handing_out_ = true;
  double interval_;
  std::FILE* out_;
  bool tty_;
  ProgressClock clock_;
  std::size_t done_ = 0;
  double total_seconds_ = 0;  // the queue's predicted seconds
  double done_seconds_ = 0;   // those of the finished tasks
  double start_, last_line_, last_bar_;
};

/// "1h02m", "3m05s", "12s".
[[nodiscard]] std::string format_duration(double seconds);

}  // namespace wordsens::parallel
