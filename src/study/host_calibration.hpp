#pragma once
// The cost model calibrated on the user's own host. The model's seconds are priced on the
// development machine; another host runs each model's work faster or slower, by a factor that
// differs from model to model (vector width, memory bandwidth, the BLAS). `wordsens calibrate`
// times a few small tasks of every model here and stores, per experiment and model, the
// measured seconds per predicted second; --dry-run multiplies its prices by them.
//
// The file is text, one rate per line, so that a user can read and compare it:
//   # wordsens cost calibration <software version>, <date>, host <name>, cpu <model>
//   experiment<TAB>model<TAB>tasks<TAB>predicted_seconds<TAB>measured_seconds<TAB>rate
//   ws<TAB>rf<TAB>4<TAB>0.52<TAB>1.31<TAB>2.52
#include <map>
#include <string>
#include <vector>

#include "study/task.hpp"

namespace wordsens {

/// One timed task of a calibration run: the cost model's price and the measured time.
struct TimedTask {
  Experiment experiment = Experiment::ws;
  std::string model;
  double predicted_seconds = 0;
  double measured_seconds = 0;
};

struct HostRate {
  int tasks = 0;
  double predicted = 0;  // seconds, summed over the tasks
  double measured = 0;
  [[nodiscard]] double rate() const { return measured / predicted; }
};

class HostCalibration {
 public:
  HostCalibration() = default;
  /// From timed tasks: per experiment and model, the measured seconds over the predicted ones
  /// (tasks priced or timed at nothing are left out).
  explicit HostCalibration(const std::vector<TimedTask>& timed, std::string header = "");

  /// Parses a calibration file's text (`source` names it in errors and in what --dry-run
  /// prints). Throws InputError naming the source and the line.
  [[nodiscard]] static HostCalibration parse(const std::string& text, const std::string& source);

  /// The file's text (see above); `header` is its first comment line's content.
  [[nodiscard]] std::string text() const;

  /// The seconds of `task` on this host: the price times its experiment and model's rate, or,
  /// for a model the calibration did not time, the geometric mean of the rates timed.
  [[nodiscard]] double seconds(const TaskSpec& task, double predicted_seconds) const;

  [[nodiscard]] bool empty() const { return rates_.empty(); }
  /// The geometric mean of the rates (1 when empty).
  [[nodiscard]] double overall_rate() const;
  [[nodiscard]] const std::map<std::string, HostRate>& rates() const { return rates_; }
  /// Where the calibration comes from, as --dry-run names it ("" when built from timings).
  [[nodiscard]] const std::string& source() const { return source_; }
  [[nodiscard]] const std::string& header() const { return header_; }

 private:
  std::map<std::string, HostRate> rates_;  // "ws rf" → its rate
  std::string header_;
  std::string source_;
};

/// The calibration file --dry-run reads when the run key `calibration` is `auto`:
/// $WORDSENS_CALIBRATION, else $XDG_CONFIG_HOME/wordsens/calibration.tsv, else
/// $HOME/.config/wordsens/calibration.tsv ("" when none of these can be formed).
[[nodiscard]] std::string default_calibration_path();

}  // namespace wordsens
