#pragma once
// How ranks exchange the scheduler's messages, without saying how they travel: over MPI in a
// run (MpiSession), in memory between threads in the tests of the scheduler and the driver. The
// scheduler needs only this: who am I, how many are we, a non-blocking receive, a send, and one
// collective.
#include <cstdint>
#include <optional>
#include <vector>

namespace wordsens::parallel {

struct Message {
  int source = 0;
  int tag = 0;
  std::vector<std::uint8_t> bytes;
};

/// try_receive's source for "any rank".
inline constexpr int kAnySource = -1;

class Transport {
 public:
  virtual ~Transport() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  [[nodiscard]] bool is_root() const { return rank() == 0; }

  /// The oldest message from `source` (kAnySource: from any rank) that has arrived, if any;
  /// never waits. Messages from one rank arrive in the order they were sent.
  [[nodiscard]] virtual std::optional<Message> try_receive(int source) const = 0;
  /// Sends `bytes` to rank `dest` with `tag` (the receiver's try_receive sees it).
  virtual void send(int dest, int tag, const std::vector<std::uint8_t>& bytes) const = 0;

  /// Rank 0's value on every rank; every rank must call it.
  [[nodiscard]] virtual int broadcast(int value) const = 0;
};

}  // namespace wordsens::parallel
