// The pause between a rank's polls (a fraction of the mean task time, within bounds) and the
// compute thread's wake-up of its owner when a task ends.
#include "parallel/poll_pause.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "parallel/compute_thread.hpp"

namespace wordsens::parallel {
namespace {

using std::chrono::microseconds;

TEST(PollPause, TheShortestPauseBeforeAnyTaskHasFinished) {
  const PollPause poll;
  EXPECT_EQ(poll.pause(), PollPause::kShortest);
}

TEST(PollPause, AFixedFractionOfTheMeanTaskTimeBetweenItsBounds) {
  PollPause poll;
  poll.task_took(0.05);
  poll.task_took(0.15);  // mean 0.1 s
  EXPECT_EQ(poll.pause(), microseconds(1000));
  PollPause short_tasks;
  short_tasks.task_took(0.002);  // 20 µs: below the shortest pause
  EXPECT_EQ(short_tasks.pause(), PollPause::kShortest);
  PollPause long_tasks;
  long_tasks.task_took(30.0);  // 300 ms: above the longest pause
  EXPECT_EQ(long_tasks.pause(), PollPause::kLongest);
}

TEST(PollPause, ATimeThatIsNoTimeIsIgnored) {
  PollPause poll;
  poll.task_took(0.1);
  poll.task_took(-5.0);
  poll.task_took(std::nan(""));
  EXPECT_EQ(poll.pause(), microseconds(1000));
}

TEST(ComputeThreadWait, TheEndOfTheTaskWakesTheOwnerBeforeTheTimeout) {
  ComputeThread thread([](std::uint32_t id) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return std::vector<std::uint8_t>{static_cast<std::uint8_t>(id)};
  });
  thread.submit(7);
  const auto start = std::chrono::steady_clock::now();
  thread.wait_for_result(std::chrono::seconds(60));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  const auto done = thread.poll();
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->task_id, 7U);
}

TEST(ComputeThreadWait, AResultAlreadyWaitingReturnsAtOnce) {
  ComputeThread thread([](std::uint32_t) { return std::vector<std::uint8_t>{}; });
  thread.submit(1);
  thread.wait_for_result(std::chrono::seconds(60));  // the result may or may not be in yet
  const auto start = std::chrono::steady_clock::now();
  thread.wait_for_result(std::chrono::seconds(60));  // now it is
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_TRUE(thread.poll().has_value());
}

TEST(ComputeThreadWait, AnIdleThreadSleepsTheTimeout) {
  ComputeThread thread([](std::uint32_t) { return std::vector<std::uint8_t>{}; });
  const auto start = std::chrono::steady_clock::now();
  thread.wait_for_result(microseconds(3000));
  EXPECT_GE(std::chrono::steady_clock::now() - start, microseconds(3000));
}

}  // namespace
}  // namespace wordsens::parallel
