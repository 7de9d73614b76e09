// The scheduler's decisions (who runs what, when the run stops, what every rank returns) with
// ranks as threads of this process: the same code the MPI runs use, on an in-memory transport.
#include "parallel/scheduler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "parallel/stop.hpp"
#include "unit/in_memory_transport.hpp"

namespace wordsens::parallel {
namespace {

using Bytes = std::vector<std::uint8_t>;

// What a task "computes": its id and its square, so a record can be told from another's.
Bytes output_of(std::uint32_t id) {
  const std::uint64_t value = (std::uint64_t{id} << 32) | (std::uint64_t{id} * id);
  Bytes bytes(sizeof value);
  std::memcpy(bytes.data(), &value, sizeof value);
  return bytes;
}

std::vector<std::uint32_t> ids(std::uint32_t count) {
  std::vector<std::uint32_t> queue(count);
  std::iota(queue.begin(), queue.end(), 0U);
  return queue;
}

struct ScheduleRun {
  std::vector<ScheduleResult> results;                  // per rank
  std::vector<std::pair<std::uint32_t, Bytes>> stored;  // what reached rank 0's sink, in order
};

// Runs one schedule on `ranks` threads; `sink_check` (if set) runs first in the sink and may
// throw.
ScheduleRun run_on_threads(int ranks, const ComputeFn& compute, ScheduleOptions options,
                           const std::function<void(std::uint32_t)>& sink_check = {}) {
  clear_stop_request();
  options.progress = false;
  testing::InMemoryNetwork network(ranks);
  ScheduleRun run;
  run.results.resize(static_cast<std::size_t>(ranks));
  const SinkFn sink = [&](std::uint32_t id, const Bytes& bytes) {
    if (sink_check) sink_check(id);
    run.stored.emplace_back(id, bytes);
  };
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      const testing::InMemoryTransport transport(network, r);
      run.results[static_cast<std::size_t>(r)] = run_schedule(transport, compute, sink, options);
    });
  }
  for (auto& t : threads) t.join();
  clear_stop_request();
  return run;
}

ScheduleOptions queue_of(const std::vector<std::uint32_t>& queue) {
  ScheduleOptions options;
  options.queue = queue;
  options.costs.assign(queue.size(), 1.0);
  return options;
}

TEST(Scheduler, EveryTaskRunsOnceAndItsOutputReachesTheSinkForAnyRankCount) {
  for (const int ranks : {1, 2, 3, 5}) {
    SCOPED_TRACE("ranks = " + std::to_string(ranks));
    const ScheduleRun run = run_on_threads(ranks, output_of, queue_of(ids(40)));
    std::vector<std::uint32_t> seen;
    for (const auto& [id, bytes] : run.stored) {
      EXPECT_EQ(bytes, output_of(id));
      seen.push_back(id);
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, ids(40));
    for (const ScheduleResult& r : run.results) EXPECT_EQ(r.outcome, Outcome::finished);
    const ScheduleResult& root = run.results[0];
    EXPECT_EQ(root.completed, 40U);
    ASSERT_EQ(root.per_rank.size(), static_cast<std::size_t>(ranks));
    EXPECT_EQ(std::accumulate(root.per_rank.begin(), root.per_rank.end(), std::size_t{0}), 40U);
  }
}

TEST(Scheduler, OneRankRunsTheQueueInItsOrder) {
  const std::vector<std::uint32_t> queue{7, 2, 9, 0, 4};
  const ScheduleRun run = run_on_threads(1, output_of, queue_of(queue));
  std::vector<std::uint32_t> order;
  for (const auto& stored : run.stored) order.push_back(stored.first);
  EXPECT_EQ(order, queue);
}

TEST(Scheduler, EveryRankGetsWorkWhenThereAreEnoughTasks) {
  // The first hand-out gives each rank (rank 0's own compute thread included) one task before
  // any can finish, so no rank idles as a pure coordinator.
  const auto slow = [](std::uint32_t id) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return output_of(id);
  };
  const ScheduleRun run = run_on_threads(3, slow, queue_of(ids(12)));
  for (const std::size_t done : run.results[0].per_rank) EXPECT_GE(done, 1U);
}

TEST(Scheduler, AnEmptyQueueFinishesAtOnce) {
  const ScheduleRun run = run_on_threads(3, output_of, queue_of({}));
  for (const ScheduleResult& r : run.results) EXPECT_EQ(r.outcome, Outcome::finished);
  EXPECT_TRUE(run.stored.empty());
}

TEST(Scheduler, AFailingTaskStopsTheHandOutAndFailsEveryRankWithItsMessage) {
  const auto failing = [](std::uint32_t id) {
    if (id == 3) throw std::runtime_error("task 3 met bad data");
    return output_of(id);
  };
  // One rank: tasks run one at a time in queue order, so exactly the three before it are stored.
  const ScheduleRun one = run_on_threads(1, failing, queue_of(ids(10)));
  EXPECT_EQ(one.results[0].outcome, Outcome::failed);
  EXPECT_EQ(one.results[0].failure, "task 3 met bad data");
  EXPECT_EQ(one.results[0].completed, 3U);
  EXPECT_EQ(one.stored.size(), 3U);

  const ScheduleRun three = run_on_threads(3, failing, queue_of(ids(10)));
  for (const ScheduleResult& r : three.results) EXPECT_EQ(r.outcome, Outcome::failed);
  EXPECT_EQ(three.results[0].failure, "task 3 met bad data");
  EXPECT_EQ(three.results[0].completed, three.stored.size());
  for (const auto& stored : three.stored) EXPECT_NE(stored.first, 3U);
}

TEST(Scheduler, ASinkThatThrowsFailsTheRunNamingTheTask) {
  const ScheduleRun run = run_on_threads(2, output_of, queue_of(ids(6)), [](std::uint32_t id) {
    if (id == 2) throw std::runtime_error("disk full");
  });
  for (const ScheduleResult& r : run.results) EXPECT_EQ(r.outcome, Outcome::failed);
  EXPECT_EQ(run.results[0].failure, "storing the result of task 2: disk full");
}

TEST(Scheduler, AWalltimeAlreadySpentHandsOutNothing) {
  ScheduleOptions options = queue_of(ids(5));
  options.walltime_seconds = 5;
  options.elapsed_before = 6;  // start-up took longer than the wall time
  const ScheduleRun run = run_on_threads(2, output_of, options);
  for (const ScheduleResult& r : run.results) EXPECT_EQ(r.outcome, Outcome::checkpointed);
  EXPECT_EQ(run.results[0].completed, 0U);
  EXPECT_TRUE(run.stored.empty());
}

TEST(Scheduler, ACheckpointRequestLetsTheTaskInFlightFinishAndStartsNoOther) {
  // As a USR1 arriving while task 2 runs.
  const auto checkpoint_during_2 = [](std::uint32_t id) {
    if (id == 2) request_stop(StopRequest::checkpoint);
    return output_of(id);
  };
  const ScheduleRun run = run_on_threads(1, checkpoint_during_2, queue_of(ids(8)));
  EXPECT_EQ(run.results[0].outcome, Outcome::checkpointed);
  ASSERT_EQ(run.stored.size(), 3U);
  EXPECT_EQ(run.stored.back().first, 2U);
  EXPECT_FALSE(run.results[0].abandoned_compute);
}

TEST(Scheduler, AnInterruptAbandonsTheTaskInFlightOnEveryRank) {
  // As a TERM arriving while task 0 runs: the run stops without waiting for it. The task waits
  // until the test lets it go (a flag it shares, so it may outlive the test's frame).
  const auto release = std::make_shared<std::atomic<bool>>(false);
  const auto interrupted_during_0 = [release](std::uint32_t id) {
    if (id == 0) {
      request_stop(StopRequest::interrupt);
      while (!release->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return output_of(id);
  };
  const ScheduleRun run = run_on_threads(2, interrupted_during_0, queue_of(ids(4)));
  release->store(true);
  for (const ScheduleResult& r : run.results) EXPECT_EQ(r.outcome, Outcome::interrupted);
  EXPECT_TRUE(run.results[0].abandoned_compute);
  for (const auto& stored : run.stored) EXPECT_NE(stored.first, 0U);
}

}  // namespace
}  // namespace wordsens::parallel

namespace wordsens::parallel {
namespace {

// The driver's hand-out order: one task of every grid point before any point's second, each
// round longest first, so the ETA has measured every point early; the task measured first is the
// point's typical one (its cheapest: a point's budget-check task is its dearest and is priced
// apart).
TEST(HandOutOrder, TheCheapestTaskOfEveryGroupFirstThenLongestFirst) {
  //                                 0  1  2  3  4  5  6
  const std::vector<double> costs{5, 9, 1, 9, 2, 4, 4};
  const std::vector<std::uint32_t> groups{0, 0, 1, 0, 1, 2, 2};
  // Group 0's cheapest is 0, group 1's is 2, group 2's is 5 (a tie: the earliest), in that order
  // (longest first); then the rest longest first (ties in the given order): 1 3 6 4.
  EXPECT_EQ(one_per_group_then_longest_first(costs, groups),
            (std::vector<std::size_t>{0, 5, 2, 1, 3, 6, 4}));
  // Each task a group of its own: longest first itself.
  const std::vector<std::uint32_t> own{0, 1, 2, 3, 4, 5, 6};
  EXPECT_EQ(one_per_group_then_longest_first(costs, own), longest_first(costs));
  EXPECT_TRUE(one_per_group_then_longest_first({}, {}).empty());
  EXPECT_THROW((void)one_per_group_then_longest_first(costs, std::vector<std::uint32_t>{0, 1}),
               std::invalid_argument);
}

}  // namespace
}  // namespace wordsens::parallel
