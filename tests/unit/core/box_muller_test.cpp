#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "core/box_muller.hpp"
#include "core/philox.hpp"

namespace wordsens {
namespace {

TEST(BoxMuller, LogMatchesLibmAcrossTheUnitInterval) {
  const Philox rng(3, Stream::weights);
  double worst = 0;
  for (std::uint32_t i = 0; i < 20000; ++i) {
    for (std::uint32_t w : rng.block({i, 0, 0, 0})) {
      const double u = open_unit_interval(w);
      worst = std::max(worst, std::abs(box_muller::log_positive(u) - std::log(u)) /
                                  std::max(1e-300, std::abs(std::log(u))));
    }
  }
  // Extremes of the 32-bit grid and values straddling the √2 split.
  for (double u : {open_unit_interval(0), open_unit_interval(0xffffffffU), 0.70710678118654746,
                   0.70710678118654757, 0.5, 0.25, 1e-9}) {
    worst = std::max(worst,
                     std::abs(box_muller::log_positive(u) - std::log(u)) / std::abs(std::log(u)));
  }
  EXPECT_LT(worst, 4e-15);
}

TEST(BoxMuller, SinCosMatchLibmIncludingQuadrantBoundaries) {
  double worst = 0;
  auto check = [&](double v) {
    double s, c;
    box_muller::sincos_two_pi(v, s, c);
    const double angle = 2.0 * std::numbers::pi * v;
    worst = std::max({worst, std::abs(s - std::sin(angle)), std::abs(c - std::cos(angle))});
  };
  for (int i = 0; i <= 100000; ++i) check(i / 100000.0);
  for (double v : {0.125, 0.375, 0.625, 0.875, 0.25, 0.5, 0.75, open_unit_interval(0),
                   open_unit_interval(0xffffffffU)}) {
    check(v);
  }
  EXPECT_LT(worst, 2e-15);
}

TEST(BoxMuller, ExactDoubleIsExactForAll32BitEdgeValues) {
  for (std::uint32_t w : {0U, 1U, 12345U, 0x7fffffffU, 0x80000000U, 0xffffffffU}) {
    EXPECT_EQ(box_muller::exact_double(w), static_cast<double>(w));
  }
}

}  // namespace
}  // namespace wordsens
