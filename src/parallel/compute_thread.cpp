#include "parallel/compute_thread.hpp"

#include <exception>

namespace wordsens::parallel {

ComputeThread::ComputeThread(ComputeFn compute)
    : state_(std::make_shared<State>()), thread_(loop, state_, std::move(compute)) {}

ComputeThread::~ComputeThread() {
  {
    const std::lock_guard lock(state_->mutex);
    state_->quit = true;
  }
  state_->wake.notify_one();
  // A busy thread is abandoned: it keeps the shared state alive and ends with the process.
  if (busy_ && !state_->result) {
    thread_.detach();
  } else {
    thread_.join();
  }
}

void ComputeThread::submit(std::uint32_t task_id) {
  {
    const std::lock_guard lock(state_->mutex);
    state_->job = task_id;
  }
  busy_ = true;
  state_->wake.notify_one();
}

std::optional<ComputeResult> ComputeThread::poll() {
  if (!busy_) return std::nullopt;
  const std::lock_guard lock(state_->mutex);
  if (!state_->result) return std::nullopt;
  std::optional<ComputeResult> result = std::move(state_->result);
  state_->result.reset();
  busy_ = false;
  return result;
}

void ComputeThread::wait_for_result(std::chrono::microseconds timeout) const {
  if (!busy_) {
    std::this_thread::sleep_for(timeout);
    return;
  }
  std::unique_lock lock(state_->mutex);
  state_->finished.wait_for(lock, timeout, [&] { return state_->result.has_value(); });
}

void ComputeThread::loop(std::shared_ptr<State> state, ComputeFn compute) {
  for (;;) {
    std::uint32_t task_id = 0;
    {
      std::unique_lock lock(state->mutex);
      state->wake.wait(lock, [&] { return state->quit || state->job.has_value(); });
      if (state->quit) return;
      task_id = *state->job;
      state->job.reset();
    }
    ComputeResult result;
    result.task_id = task_id;
    try {
      result.bytes = compute(task_id);
    } catch (const std::exception& e) {
      result.ok = false;
      result.error = e.what();
    } catch (...) {
      result.ok = false;
      result.error = "unknown exception";
    }
    {
      const std::lock_guard lock(state->mutex);
      state->result = std::move(result);
    }
    state->finished.notify_all();
  }
}

}  // namespace wordsens::parallel
