#include "scale/simulated_rank.hpp"

namespace wordsens::scale {
namespace {

// An idle worker wakes at the next message; this bound only keeps a lost wake-up from hanging.
constexpr auto kIdleWait = std::chrono::milliseconds(100);
// A task handed over whose computation has not started yet (the compute thread is waking).
constexpr auto kStartingWait = std::chrono::microseconds(100);

}  // namespace

std::optional<parallel::Message> SimulatedRank::try_receive(int source) const {
  auto message = inner_.try_receive(source);
  if (!message && rank() != 0) {
    wait();
    message = inner_.try_receive(source);
  }
  if (!message) return message;
  if (rank() == 0) {
    log_->received.emplace_back(Clock::now(), message->source);
  } else {
    log_->arrivals.push_back(Clock::now());
    computing_ = true;
    log_->compute_until.store(0);
  }
  return message;
}

int SimulatedRank::broadcast(int value) const {
  const int result = inner_.broadcast(value);
  // The first broadcast tells the workers that rank 0 has opened the file: from then on they
  // wait for tasks.
  if (log_->ready == Clock::time_point{}) log_->ready = Clock::now();
  return result;
}

void SimulatedRank::send(int dest, int tag, const std::vector<std::uint8_t>& bytes) const {
  inner_.send(dest, tag, bytes);
  if (rank() != 0) computing_ = false;  // a worker sends its record (or failure) when done
}

// Until a message arrives or, while computing, until the computation ends: then the scheduler
// polls its compute thread as usual.
void SimulatedRank::wait() const {
  const auto now = Clock::now();
  Clock::time_point deadline = now + kIdleWait;
  if (computing_) {
    const std::int64_t until = log_->compute_until.load();
    if (until == 0) {
      deadline = now + kStartingWait;
    } else {
      deadline = Clock::time_point(Clock::duration(until));
      if (deadline <= now) return;
    }
  }
  network_->wait_for_message(rank(), deadline);
}

}  // namespace wordsens::scale
