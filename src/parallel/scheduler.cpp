#include "parallel/scheduler.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "parallel/poll_pause.hpp"
#include "parallel/progress.hpp"
#include "parallel/stop.hpp"

namespace wordsens::parallel {
namespace {

// Message tags. Rank 0 → worker: a task id, the final outcome (stop / abort).
// Worker → rank 0: an encoded task output, a failure message, a forwarded signal.
constexpr int kTagTask = 1;
constexpr int kTagStop = 2;
constexpr int kTagAbort = 3;
constexpr int kTagResult = 11;
constexpr int kTagFailure = 12;
constexpr int kTagSignal = 13;

template <typename T>
void send_value(const Transport& ranks, int dest, int tag, T value) {
  std::vector<std::uint8_t> bytes(sizeof(T));
  std::memcpy(bytes.data(), &value, sizeof(T));
  ranks.send(dest, tag, bytes);
}

template <typename T>
T read_value(const std::vector<std::uint8_t>& bytes) {
  T value{};
  if (bytes.size() == sizeof(T)) std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

std::vector<std::uint8_t> text_bytes(const std::string& s) { return {s.begin(), s.end()}; }

ScheduleResult run_worker(const Transport& ranks, const ComputeFn& compute) {
  ComputeThread thread(compute);
  int reported = 0;
  for (;;) {
    bool active = false;
    const int request = static_cast<int>(stop_requested());
    if (request > reported) {
      send_value<int>(ranks, 0, kTagSignal, request);  // rank 0 decides for everyone
      reported = request;
    }
    if (auto done = thread.poll()) {
      if (done->ok) {
        ranks.send(0, kTagResult, done->bytes);
      } else {
        ranks.send(0, kTagFailure, text_bytes(done->error));
      }
      active = true;
    }
    if (auto m = ranks.try_receive(0)) {
      active = true;
      if (m->tag == kTagTask) {
        thread.submit(read_value<std::uint32_t>(m->bytes));
      } else if (m->tag == kTagStop || m->tag == kTagAbort) {
        ScheduleResult result;
        result.outcome = static_cast<Outcome>(read_value<int>(m->bytes));
        result.abandoned_compute = thread.busy();
        return result;
      }
    }
    // While its task runs, a worker only waits for a stop, and the task's end wakes it; idle, it
    // waits for the task that rank 0 is about to send.
    if (!active) {
      thread.wait_for_result(thread.busy() ? PollPause::kLongest : PollPause::kShortest);
    }
  }
}

ScheduleResult run_root(const Transport& ranks, const ComputeFn& compute, const SinkFn& sink,
                        const ScheduleOptions& options) {
  const auto& queue = options.queue;
  std::unordered_map<std::uint32_t, std::size_t> position_of;  // task id → index in the queue
  std::vector<PlannedTask> planned(queue.size());
  for (std::size_t i = 0; i < queue.size(); ++i) {
    position_of[queue[i]] = i;
    planned[i].seconds = i < options.costs.size() ? options.costs[i] : 1.0;
    planned[i].group = i < options.groups.size() ? options.groups[i] : queue[i];
  }
  Progress progress(std::move(planned), ranks.size(), options.progress_interval);
  const auto start = std::chrono::steady_clock::now();

  enum class Mode { running, draining, aborting } mode = Mode::running;
  ScheduleResult result;
  bool failed = false;
  auto fail = [&](const std::string& message) {
    if (!failed) result.failure = message;
    failed = true;
    if (mode == Mode::running) mode = Mode::draining;
    progress.stop_handing_out();
  };
  auto escalate = [&](int request) {
    if (request == static_cast<int>(StopRequest::interrupt)) {
      mode = Mode::aborting;
    } else if (request == static_cast<int>(StopRequest::checkpoint) && mode == Mode::running) {
      mode = Mode::draining;
      progress.stop_handing_out();
    }
  };
  result.per_rank.assign(static_cast<std::size_t>(ranks.size()), 0);
  auto deliver = [&](int rank, std::uint32_t task_id, const std::vector<std::uint8_t>& bytes) {
    try {
      sink(task_id, bytes);
      ++result.completed;
      ++result.per_rank[static_cast<std::size_t>(rank)];
      progress.task_done(position_of[task_id]);
    } catch (const std::exception& e) {
      fail(std::string("storing the result of task ") + std::to_string(task_id) + ": " + e.what());
      progress.task_failed(position_of[task_id]);
    }
  };

  ComputeThread local(compute);
  std::vector<std::optional<std::uint32_t>> assigned(static_cast<std::size_t>(ranks.size()));
  // When each rank got its task in hand: the tasks' times set the pause between polls.
  std::vector<std::chrono::steady_clock::time_point> handed_out(assigned.size());
  PollPause poll;
  auto took = [&](int rank) {
    poll.task_took(std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                 handed_out[static_cast<std::size_t>(rank)])
                       .count());
  };
  std::size_t next = 0;
  for (;;) {
    bool active = false;
    if (options.walltime_seconds > 0) {
      const double elapsed =
          options.elapsed_before +
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (elapsed >= options.walltime_seconds) escalate(static_cast<int>(StopRequest::checkpoint));
    }
    while (auto m = ranks.try_receive(kAnySource)) {
      active = true;
      auto& slot = assigned[static_cast<std::size_t>(m->source)];
      if (m->tag == kTagResult) {
        if (slot) {
          took(m->source);
          deliver(m->source, *slot, m->bytes);
        }
        slot.reset();
      } else if (m->tag == kTagFailure) {
        fail(std::string(m->bytes.begin(), m->bytes.end()));
        if (slot) progress.task_failed(position_of[*slot]);
        slot.reset();
      } else if (m->tag == kTagSignal) {
        escalate(read_value<int>(m->bytes));
      }
    }
    if (auto done = local.poll()) {
      active = true;
      if (done->ok) {
        took(0);
        deliver(0, done->task_id, done->bytes);
      } else {
        fail(done->error);
        progress.task_failed(position_of[done->task_id]);
      }
    }
    // Read after collecting results and right before the hand-out: a stop requested by a task
    // that has just finished (or a signal meanwhile) must stop the hand-out that follows it.
    escalate(static_cast<int>(stop_requested()));
    if (mode == Mode::aborting) break;
    if (mode == Mode::running) {
      if (!local.busy() && next < queue.size()) {
        progress.task_started(next);
        local.submit(queue[next++]);
        handed_out[0] = std::chrono::steady_clock::now();
      }
      for (std::size_t w = 1; w < assigned.size() && next < queue.size(); ++w) {
        if (!assigned[w]) {
          assigned[w] = queue[next];
          handed_out[w] = std::chrono::steady_clock::now();
          progress.task_started(next);
          send_value<std::uint32_t>(ranks, static_cast<int>(w), kTagTask, queue[next++]);
          active = true;
        }
      }
    }
    bool in_flight = local.busy();
    for (const auto& slot : assigned) in_flight = in_flight || slot.has_value();
    if (!in_flight && (mode != Mode::running || next == queue.size())) break;
    if (options.progress) progress.tick();
    if (!active) local.wait_for_result(poll.pause());
  }

  if (mode == Mode::aborting) {
    result.outcome = Outcome::interrupted;
  } else if (failed) {
    result.outcome = Outcome::failed;
  } else if (result.completed < queue.size()) {
    result.outcome = Outcome::checkpointed;
  } else {
    result.outcome = Outcome::finished;
  }
  result.abandoned_compute = local.busy();
  const int tag = mode == Mode::aborting ? kTagAbort : kTagStop;
  for (int w = 1; w < ranks.size(); ++w) {
    send_value<int>(ranks, w, tag, static_cast<int>(result.outcome));
  }
  if (options.progress) {
    static const char* const names[] = {"finished", "checkpointed", "interrupted", "failed"};
    progress.finish(names[static_cast<int>(result.outcome)]);
  }
  return result;
}

}  // namespace

std::vector<std::size_t> longest_first(std::span<const double> costs) {
  std::vector<std::size_t> order(costs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  return order;
}

std::vector<std::size_t> one_per_group_then_longest_first(std::span<const double> costs,
                                                          std::span<const std::uint32_t> groups) {
  if (groups.size() != costs.size()) {
    throw std::invalid_argument("hand-out order: one group per task expected");
  }
  // Each group's cheapest task, ties to the earliest: a point's tasks cost the same but for the
  // budget check's, which runs more searches and is priced apart, so its rate would speak badly
  // for the others.
  std::unordered_map<std::uint32_t, std::size_t> typical;
  for (std::size_t i = 0; i < costs.size(); ++i) {
    const auto [it, added] = typical.try_emplace(groups[i], i);
    if (!added && costs[i] < costs[it->second]) it->second = i;
  }
  std::vector<std::size_t> first, rest;
  for (const std::size_t i : longest_first(costs)) {
    (typical.at(groups[i]) == i ? first : rest).push_back(i);
  }
  first.insert(first.end(), rest.begin(), rest.end());
  return first;
}

ScheduleResult run_schedule(const Transport& ranks, const ComputeFn& compute, const SinkFn& sink,
                            const ScheduleOptions& options) {
  install_stop_handlers();
  return ranks.is_root() ? run_root(ranks, compute, sink, options) : run_worker(ranks, compute);
}

}  // namespace wordsens::parallel
