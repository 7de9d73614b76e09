#pragma once
// One rank of a simulated run: the in-memory transport of the tests (ranks as threads), with the
// clock readings the figures need, and a wait where the scheduler would poll. A worker waits in
// try_receive until a message arrives or its task's simulated computation ends: a thousand ranks
// polling every 200 µs (scheduler.cpp's pause, right for one rank per core) would take the two
// cores from rank 0 and measure the simulation instead of rank 0. Rank 0 polls as it does in
// production. The production MPI path is untouched.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

#include "parallel/transport.hpp"
#include "unit/in_memory_transport.hpp"

namespace wordsens::scale {

using Clock = std::chrono::steady_clock;

/// What one rank saw. The compute thread writes compute_*, task_ids and compute_until; the
/// rank's main thread writes arrivals and received; they are read after the run.
struct RankLog {
  std::vector<Clock::time_point> compute_start, compute_end;
  std::vector<std::uint32_t> task_ids;  // the tasks this rank computed, in order
  Clock::time_point ready{};            // a worker: when the start broadcast let it ask for tasks
  std::vector<Clock::time_point> arrivals;  // a worker: each message from rank 0 (tasks, stop)
  /// Rank 0: each message from a worker (its records), with the worker's rank.
  std::vector<std::pair<Clock::time_point, int>> received;
  /// When the task being computed ends (Clock ticks since its epoch), 0 until its computation
  /// starts.
  std::atomic<std::int64_t> compute_until{0};
};

class SimulatedRank final : public parallel::Transport {
 public:
  SimulatedRank(testing::InMemoryNetwork& network, int rank, RankLog& log)
      : inner_(network, rank), network_(&network), log_(&log) {}
  [[nodiscard]] int rank() const override { return inner_.rank(); }
  [[nodiscard]] int size() const override { return inner_.size(); }
  [[nodiscard]] std::optional<parallel::Message> try_receive(int source) const override;
  void send(int dest, int tag, const std::vector<std::uint8_t>& bytes) const override;
  [[nodiscard]] int broadcast(int value) const override;

 private:
  void wait() const;
  testing::InMemoryTransport inner_;
  testing::InMemoryNetwork* network_;
  RankLog* log_;
  mutable bool computing_ = false;  // a worker: a task arrived and its record is not sent yet
};

}  // namespace wordsens::scale
