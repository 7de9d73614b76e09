#include "parallel/poll_pause.hpp"

#include <algorithm>

namespace wordsens::parallel {

void PollPause::task_took(double seconds) {
  if (!(seconds >= 0)) return;  // a clock that went backwards, or NaN: no information
  total_seconds_ += seconds;
  ++tasks_;
}

std::chrono::microseconds PollPause::pause() const {
  if (tasks_ == 0) return kShortest;
  const double mean = total_seconds_ / static_cast<double>(tasks_);
  const double micros = kFractionOfTask * mean * 1e6;
  const double bounded = std::clamp(micros, static_cast<double>(kShortest.count()),
                                    static_cast<double>(kLongest.count()));
  return std::chrono::microseconds(static_cast<long long>(bounded));
}

}  // namespace wordsens::parallel
