#include "parallel/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <queue>

namespace wordsens::parallel {
namespace {

// When `ranks` ranks, busy for `busy` more seconds (the others free now), take the `waiting`
// tasks in order, each the next as soon as it is free: the time until the last one ends.
double list_schedule_end(const std::vector<double>& busy, const std::vector<double>& waiting,
                         std::size_t ranks) {
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at(busy.begin(),
                                                                           busy.end());
  double end = 0;
  for (const double b : busy) end = std::max(end, b);
  while (free_at.size() < std::max<std::size_t>(ranks, 1)) free_at.push(0.0);
  for (const double seconds : waiting) {
    const double finish = free_at.top() + seconds;
    free_at.pop();
    free_at.push(finish);
    end = std::max(end, finish);
  }
  return end;
}

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

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

Progress::Progress(std::vector<PlannedTask> queue, int ranks, double interval_seconds,
                   std::FILE* out, ProgressClock clock)
    : queue_(std::move(queue)),
      started_(queue_.size(), 0),
      ranks_(std::max(ranks, 1)),
      interval_(interval_seconds),
      out_(out),
      tty_(isatty(fileno(out)) != 0),
      clock_(clock ? std::move(clock) : ProgressClock(steady_seconds)),
      start_(clock_()),
      last_line_(start_),
      last_bar_(start_) {
  for (const PlannedTask& task : queue_) total_seconds_ += std::max(task.seconds, 0.0);
}

double Progress::now() const { return clock_(); }

void Progress::task_started(std::size_t index) {
  if (index >= queue_.size() || started_[index]) return;
  started_[index] = 1;
  in_flight_[index] = now();
  while (first_waiting_ < queue_.size() && started_[first_waiting_]) ++first_waiting_;
}

void Progress::task_done(std::size_t index) {
  ++done_;
  if (index < queue_.size()) done_seconds_ += std::max(queue_[index].seconds, 0.0);
  const auto it = in_flight_.find(index);
  if (it == in_flight_.end()) return;
  const double measured = now() - it->second;
  in_flight_.erase(it);
  const PlannedTask& task = queue_[index];
  // A task priced at nothing, or timed at nothing, says nothing about the rate.
  if (task.seconds > 0 && measured > 0) {
    GroupTimes& g = groups_[task.group];
    g.predicted += task.seconds;
    g.measured += measured;
    ++g.count;
  }
}

void Progress::task_failed(std::size_t index) { in_flight_.erase(index); }

double Progress::study_log_rate() const {
  double sum_log = 0;
  for (const auto& [group, times] : groups_) sum_log += std::log(times.measured / times.predicted);
  return sum_log / (static_cast<double>(groups_.size()) + kCalibrationPoints);
}

double Progress::rate_of(std::uint32_t group, double study_log_rate) const {
  double log_rate = study_log_rate;
  if (const auto it = groups_.find(group); it != groups_.end()) {
    const GroupTimes& own = it->second;
    const double weight = own.count / (own.count + kPointPriorTasks);
    log_rate += weight * (std::log(own.measured / own.predicted) - study_log_rate);
  }
  return std::exp(log_rate);
}

double Progress::eta_seconds() const {
  const double study = study_log_rate();
  std::uint32_t cached_group = 0;
  double cached_rate = -1;
  const auto rate = [&](std::uint32_t group) {
    if (cached_rate >= 0 && group == cached_group) return cached_rate;
    cached_group = group;
    cached_rate = rate_of(group, study);
    return cached_rate;
  };

  const double t = now();
  std::vector<double> busy;
  busy.reserve(in_flight_.size());
  for (const auto& [index, since] : in_flight_) {
    const PlannedTask& task = queue_[index];
    busy.push_back(std::max(0.0, rate(task.group) * task.seconds - (t - since)));
  }
  std::vector<double> waiting;
  if (handing_out_) {
    waiting.reserve(queue_.size() - first_waiting_);
    for (std::size_t i = first_waiting_; i < queue_.size(); ++i) {
      if (!started_[i]) waiting.push_back(rate(queue_[i].group) * queue_[i].seconds);
    }
  }
  return list_schedule_end(busy, waiting, std::max(static_cast<std::size_t>(ranks_), busy.size()));
}

bool Progress::eta_is_lower_bound() const {
  const double study = study_log_rate();
  const double t = now();
  for (const auto& [index, since] : in_flight_) {
    const PlannedTask& task = queue_[index];
    if (t - since > rate_of(task.group, study) * task.seconds) return true;
  }
  return false;
}

double Progress::work_done() const {
  if (total_seconds_ <= 0) return queue_.empty() ? 1.0 : static_cast<double>(done_) / queue_.size();
  const double study = study_log_rate();
  const double t = now();
  double covered = done_seconds_;
  for (const auto& [index, since] : in_flight_) {
    const PlannedTask& task = queue_[index];
    const double priced = rate_of(task.group, study) * task.seconds;
    if (priced > 0) covered += task.seconds * std::min(1.0, (t - since) / priced);
  }
  return std::clamp(covered / total_seconds_, 0.0, 1.0);
}

std::string Progress::status_line() const {
  const double seconds = elapsed();
  const std::size_t total = queue_.size();
  const bool all_done = done_ >= total;
  const std::string eta =
      all_done ? std::string("0s")
               : (eta_is_lower_bound() ? "at least " : "") + format_duration(eta_seconds());
  char buffer[200];
  std::snprintf(buffer, sizeof buffer,
                "progress: %zu/%zu tasks, %.1f%% of the predicted work, elapsed %s, ETA %s", done_,
                total, 100.0 * (all_done ? 1.0 : work_done()), format_duration(seconds).c_str(),
                eta.c_str());
  return buffer;
}

void Progress::tick() {
  const double t = now();
  if (tty_) {
    if (t - last_bar_ >= 0.2) {
      last_bar_ = t;
      const int width = 30;
      const int filled = static_cast<int>(width * work_done());
      std::fprintf(out_, "\r[%-*s] %s\x1b[K", width, std::string(filled, '#').c_str(),
                   status_line().c_str());
      std::fflush(out_);
    }
    return;
  }
  if (t - last_line_ >= interval_) {
    last_line_ = t;
    std::fprintf(out_, "%s\n", status_line().c_str());
    std::fflush(out_);
  }
}

void Progress::finish(const std::string& outcome) {
  std::fprintf(out_, "%s%s; %s\n", tty_ ? "\r\x1b[K" : "", status_line().c_str(), outcome.c_str());
  std::fflush(out_);
}

}  // namespace wordsens::parallel
