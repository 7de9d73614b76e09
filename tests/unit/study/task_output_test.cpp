#include "study/task_output.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>

namespace wordsens {
namespace {

TEST(TaskOutput, EncodingRoundTripsBitwise) {
  TaskOutput out;
  out.task_id = 42;
  out.experiment = Experiment::gen;
  out.ws.S = 0.1234567890123;
  for (int i = 0; i < 4; ++i) {
    GenRecord g;
    g.task_id = 42;
    g.training = static_cast<std::uint8_t>(i / 2);
    g.objective = static_cast<std::uint8_t>(i % 2);
    g.t0 = 1.0 / 3.0 + i;
    g.D1 = -0.0;
    g.E = std::nan("");
    g.cond_K = 1e300;
    g.position = i;
    g.evaluations = 1000 + i;
    g.witness = {1.5, -2.25, 3e-300};
    out.gen.push_back(g);
  }
  Matrix X(2, 3);
  X << 1, 2, 3, 4, 5, 6;
  out.arrays.push_back({"X", -1, X});
  const auto bytes = encode(out);
  const TaskOutput back = decode_task_output(bytes);
  EXPECT_EQ(back.task_id, 42u);
  EXPECT_EQ(back.experiment, Experiment::gen);
  ASSERT_EQ(back.gen.size(), 4u);
  EXPECT_EQ(back.gen[3].t0, out.gen[3].t0);
  EXPECT_TRUE(std::signbit(back.gen[0].D1));
  EXPECT_TRUE(std::isnan(back.gen[0].E));
  EXPECT_EQ(back.gen[2].witness, out.gen[2].witness);
  EXPECT_EQ(back.gen[1].objective, 1);
  ASSERT_EQ(back.arrays.size(), 1u);
  EXPECT_EQ(back.arrays[0].values, X);
  EXPECT_EQ(encode(back), bytes);
  // Truncated or extended messages are refused.
  for (const std::size_t cut :
       {std::size_t{0}, std::size_t{3}, bytes.size() / 2, bytes.size() - 1}) {
    EXPECT_THROW((void)decode_task_output(std::span(bytes.data(), cut)), std::runtime_error);
  }
  auto longer = bytes;
  longer.push_back(0);
  EXPECT_THROW((void)decode_task_output(longer), std::runtime_error);
}

}  // namespace
}  // namespace wordsens
