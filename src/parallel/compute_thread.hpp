#pragma once
// The thread that computes tasks on every rank, while the main thread talks MPI. One task at a
// time through a mailbox. The state is shared with the thread, so the owner may abandon a busy
// thread (TERM: in-flight tasks are dropped) without waiting for it.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace wordsens::parallel {

/// Runs a task by id and returns its encoded output; throws on failure.
using ComputeFn = std::function<std::vector<std::uint8_t>(std::uint32_t task_id)>;

struct ComputeResult {
  std::uint32_t task_id = 0;
  std::vector<std::uint8_t> bytes;  // the encoded output, when ok
  bool ok = true;
  std::string error;  // what() of the exception, when not ok
};

class ComputeThread {
 public:
  explicit ComputeThread(ComputeFn compute);
  ~ComputeThread();  // joins when idle; detaches (abandons) a busy thread
  ComputeThread(const ComputeThread&) = delete;
  ComputeThread& operator=(const ComputeThread&) = delete;

  void submit(std::uint32_t task_id);
  /// The finished task, if any (then the thread is idle again).
  [[nodiscard]] std::optional<ComputeResult> poll();
  /// A task was submitted and its result not yet collected.
  [[nodiscard]] bool busy() const { return busy_; }
  /// Returns when the task in hand has finished or `timeout` has passed (an idle thread: after
  /// `timeout`), so that the owner, polling other things in between, sees its own result at once.
  void wait_for_result(std::chrono::microseconds timeout) const;

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable wake;      // a job or quit for the thread
    std::condition_variable finished;  // a result for the owner
    std::optional<std::uint32_t> job;
    std::optional<ComputeResult> result;
    bool quit = false;
  };
  static void loop(std::shared_ptr<State> state, ComputeFn compute);
  std::shared_ptr<State> state_;
  std::thread thread_;
  bool busy_ = false;
};

}  // namespace wordsens::parallel
