#pragma once
// Ranks as threads of one process, for the tests of the scheduler and the driver and the scale
// simulation (tests/bench/scale): the same Transport the MPI session gives, with each rank's
// messages in a queue in memory. A group of R ranks is one InMemoryNetwork; each thread talks
// through its own InMemoryTransport.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "parallel/transport.hpp"

namespace wordsens::testing {

class InMemoryNetwork {
 public:
  explicit InMemoryNetwork(int ranks)
      : inboxes_(static_cast<std::size_t>(ranks)),
        arrived_(std::make_unique<std::condition_variable[]>(static_cast<std::size_t>(ranks))) {}
  [[nodiscard]] int size() const { return static_cast<int>(inboxes_.size()); }

  void post(int source, int dest, int tag, const std::vector<std::uint8_t>& bytes) {
    const std::lock_guard lock(mutex_);
    inboxes_.at(static_cast<std::size_t>(dest)).push_back({source, tag, bytes});
    arrived_[static_cast<std::size_t>(dest)].notify_one();
  }

  // Waits until `rank`'s inbox holds a message or `deadline` passes. The scheduler polls (as it
  // must over MPI); a simulation of a thousand ranks as threads on a few cores lets its idle
  // ranks sleep here instead, or their polling would starve rank 0.
  void wait_for_message(int rank, std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    const auto r = static_cast<std::size_t>(rank);
    arrived_[r].wait_until(lock, deadline, [&] { return !inboxes_.at(r).empty(); });
  }

  // The oldest message in `rank`'s inbox from `source` (kAnySource: any).
  std::optional<parallel::Message> take(int rank, int source) {
    const std::lock_guard lock(mutex_);
    auto& inbox = inboxes_.at(static_cast<std::size_t>(rank));
    for (auto it = inbox.begin(); it != inbox.end(); ++it) {
      if (source == parallel::kAnySource || it->source == source) {
        parallel::Message m = std::move(*it);
        inbox.erase(it);
        return m;
      }
    }
    return std::nullopt;
  }

  // The `call`-th broadcast: rank 0 publishes, the others wait for it.
  int broadcast(int rank, std::size_t call, int value) {
    std::unique_lock lock(mutex_);
    if (rank == 0) {
      if (broadcasts_.size() <= call) broadcasts_.resize(call + 1);
      broadcasts_[call] = value;
      published_.notify_all();
      return value;
    }
    published_.wait(lock, [&] { return broadcasts_.size() > call && broadcasts_[call]; });
    return *broadcasts_[call];
  }

 private:
  std::mutex mutex_;
  std::condition_variable published_;
  std::vector<std::deque<parallel::Message>> inboxes_;
  std::unique_ptr<std::condition_variable[]> arrived_;  // one per inbox: a post wakes its rank
  std::vector<std::optional<int>> broadcasts_;
};

class InMemoryTransport final : public parallel::Transport {
 public:
  InMemoryTransport(InMemoryNetwork& network, int rank) : network_(&network), rank_(rank) {}
  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return network_->size(); }
  [[nodiscard]] std::optional<parallel::Message> try_receive(int source) const override {
    return network_->take(rank_, source);
  }
  void send(int dest, int tag, const std::vector<std::uint8_t>& bytes) const override {
    network_->post(rank_, dest, tag, bytes);
  }
  [[nodiscard]] int broadcast(int value) const override {
    return network_->broadcast(rank_, broadcasts_++, value);
  }

 private:
  InMemoryNetwork* network_;
  int rank_;
  mutable std::size_t broadcasts_ = 0;
};

}  // namespace wordsens::testing
