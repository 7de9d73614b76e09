#include <gtest/gtest.h>

#include <stdexcept>

#include "core/errors.hpp"
#include "study/grid_spec.hpp"

namespace wordsens {
namespace {

using V = std::vector<Index>;

TEST(IntGrid, ListsAreSortedAndDeduplicated) {
  EXPECT_EQ(parse_int_grid("n", "10,20,50", 1, 1000), (V{10, 20, 50}));
  EXPECT_EQ(parse_int_grid("n", " 50 , 10,20,10", 1, 1000), (V{10, 20, 50}));
  EXPECT_EQ(parse_int_grid("n", "7", 1, 1000), (V{7}));
}

TEST(IntGrid, LogRangeHasEndpointsAndRoundedLogSpacing) {
  const V v = parse_int_grid("n", "10:250:log7", 1, 1000);
  ASSERT_EQ(v.size(), 7u);
  EXPECT_EQ(v.front(), 10);
  EXPECT_EQ(v.back(), 250);
  // ratio (250/10)^(1/6) = 1.71: 10, 17.1, 29.2, 50, 85.499, 146.2, 250
  EXPECT_EQ(v, (V{10, 17, 29, 50, 85, 146, 250}));
}

TEST(IntGrid, LogRangeDeduplicatesRoundedValues) {
  const V v = parse_int_grid("n", "1:3:log10", 1, 1000);
  EXPECT_EQ(v, (V{1, 2, 3}));
}

TEST(IntGrid, LinAndStepRanges) {
  EXPECT_EQ(parse_int_grid("n", "10:50:lin5", 1, 1000), (V{10, 20, 30, 40, 50}));
  EXPECT_EQ(parse_int_grid("n", "10:50:step10", 1, 1000), (V{10, 20, 30, 40, 50}));
  EXPECT_EQ(parse_int_grid("n", "10:55:step20", 1, 1000), (V{10, 30, 50}));
  EXPECT_EQ(parse_int_grid("n", "5:5:lin1", 1, 1000), (V{5}));
  EXPECT_EQ(parse_int_grid("n", "10:50:lin3,5", 1, 1000), (V{5, 10, 30, 50}));
}

TEST(IntGrid, MalformedAndEmptyGridsAreRejected) {
  for (const char* bad : {"",           " ",           "10,,20",      "10,",        ",10",
                          "abc",        "10x",         "1.5",         "10:20",      "10:20:log",
                          "10:20:log0", "10:20:lin-1", "10:20:cube3", "20:10:lin3", "0:10:log3",
                          "10:20:lin1", "10:20:step0", "a:b:lin2",    "1:2:3:4",    "--5"}) {
    EXPECT_THROW((void)parse_int_grid("n", bad, 1, 1000), InputError) << bad;
  }
}

TEST(IntGrid, AStepRangeOfTooManyPointsIsRefusedBeforeItIsExpanded) {
  // 10¹¹ points would take the machine's memory; near the ends of a long long, v + step would
  // overflow. Both are one-line errors, at once.
  for (const char* huge :
       {"1:100000000000:step1", "-9223372036854775807:9223372036854775807:step1000",
        "-9223372036854775808:9223372036854775807:step1"}) {  // 2⁶⁴ points: the count wraps
    try {
      (void)parse_int_grid("n", huge, 1, 1000);
      FAIL() << huge;
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("too many points"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos);
    }
  }
  // 808 points up to the largest long long: the loop stops there (v + 1 would overflow).
  EXPECT_THROW((void)parse_int_grid("n", "9223372036854775000:9223372036854775807:step1", 1, 1000),
               InputError);  // out of range, not a hang
  // A lin range across the whole long long (hi − lo overflows): its points, then out of range.
  EXPECT_THROW((void)parse_int_grid("n", "-9000000000000000000:9000000000000000000:lin3", 1, 1000),
               InputError);
  // 100000 points is the most one range gives.
  EXPECT_EQ(parse_int_grid("n", "1:100000:step1", 1, 100000).size(), 100000U);
  EXPECT_THROW((void)parse_int_grid("n", "1:100001:step1", 1, 200000), InputError);
  EXPECT_THROW((void)parse_int_grid("n",
                                    "-9223372036854775807:9223372036854775807:"
                                    "step184467440737095516",
                                    1, 1000),
               InputError);  // 101 points, all but a few below min
}

TEST(IntGrid, OutOfRangeValuesAreRejectedWithTheKeyInTheMessage) {
  EXPECT_THROW((void)parse_int_grid("n", "0", 1, 1000), InputError);
  EXPECT_THROW((void)parse_int_grid("n", "-3", 1, 1000), InputError);
  EXPECT_THROW((void)parse_int_grid("n", "10:2000:log3", 1, 1000), InputError);
  try {
    (void)parse_int_grid("d", "5000", 1, 1000);
    FAIL();
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("d = '5000'"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
}

TEST(KGrid, RelativeAndAbsoluteItems) {
  const auto k = parse_k_grid("1.0D", 1 << 30);
  ASSERT_EQ(k.size(), 1u);
  EXPECT_TRUE(k[0].relative);
  EXPECT_EQ(k[0].resolve(10, 8), 80);
  EXPECT_EQ(k[0].to_string(), "1D");

  const auto mixed = parse_k_grid("100, 2D, 0.5D, 1:3:lin3", 1 << 30);
  ASSERT_EQ(mixed.size(), 6u);
  EXPECT_EQ(join_grid(mixed), "0.5D,2D,1,2,3,100");
  EXPECT_EQ(mixed[0].resolve(10, 7), 35);
  EXPECT_EQ(mixed[5].resolve(10, 7), 100);
  // The same grid spelt differently has the same canonical text.
  EXPECT_EQ(join_grid(parse_k_grid("1D", 100)), join_grid(parse_k_grid("1.00D", 100)));
}

TEST(KGrid, MalformedItemsAreRejected) {
  for (const char* bad : {"", "D", "0D", "-1D", "xD", "1.0DD", "1e7D", "0", "abc", "1.5"}) {
    EXPECT_THROW((void)parse_k_grid(bad, 1 << 30), InputError) << bad;
  }
  EXPECT_THROW((void)parse_k_grid("2000", 1000), InputError);
}

// A lower-case d in k has always meant D = n·d: it still does (the MLP width's grid is the one
// that counts in d).
TEST(KGrid, ALowerCaseDStillMeansD) { EXPECT_EQ(join_grid(parse_k_grid("0.5d", 1 << 30)), "0.5D"); }

TEST(MlpWidthGrid, MultiplesOfDAndIntegers) {
  const auto w = parse_mlp_width_grid("4d", 1 << 30);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(w[0].relative);
  EXPECT_EQ(w[0].resolve(64), 256);
  EXPECT_EQ(w[0].to_string(), "4d");

  const auto mixed = parse_mlp_width_grid("100, 2d, 0.5d, 1:3:lin3, 4.0d", 1 << 30);
  EXPECT_EQ(join_grid(mixed), "0.5d,2d,4d,1,2,3,100");
  EXPECT_EQ(mixed[0].resolve(7), 4);  // round(3.5) = 4
  EXPECT_EQ(mixed[0].resolve(1), 1);  // round(0.5) = 1
  EXPECT_EQ(mixed[0].resolve(0), 0);  // below 1: plan_tasks refuses it (plan_tasks_test.cpp)
  EXPECT_EQ(mixed[6].resolve(7), 100);
  // The canonical text parses back to the same grid.
  EXPECT_EQ(parse_mlp_width_grid(join_grid(mixed), 1 << 30), mixed);
}

TEST(MlpWidthGrid, MalformedItemsAreRejectedWithTheKeysName) {
  for (const char* bad : {"", "d", "0d", "-1d", "xd", "1e7d", "0", "abc", "1.5", "4d,", "2D"}) {
    try {
      (void)parse_mlp_width_grid(bad, 1 << 30);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("mlp-width = '", 0), 0u) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
  try {
    (void)parse_mlp_width_grid("1D", 1 << 30);
    FAIL() << "1D accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not of D = n*d"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)parse_mlp_width_grid("2000", 1000), InputError);
}

TEST(NameList, CanonicalOrderAndUnknownNames) {
  const std::vector<std::string> allowed{"rf", "drf", "raf", "raf_relu"};
  EXPECT_EQ(parse_name_list("models", "raf,rf,raf", allowed),
            (std::vector<std::string>{"rf", "raf"}));
  EXPECT_THROW((void)parse_name_list("models", "rf,transformer", allowed), InputError);
  EXPECT_THROW((void)parse_name_list("models", "", allowed), InputError);
  EXPECT_THROW((void)parse_name_list("models", "rf,", allowed), InputError);
}

TEST(FormatDouble, RoundTrips) {
  for (const double v : {1e-7, 0.1, 1.0, 2.5, 1.0 / 3.0, 123456789.0}) {
    EXPECT_EQ(std::stod(format_double(v)), v);
  }
  EXPECT_EQ(format_double(1e-7), "1e-07");
  EXPECT_EQ(format_double(0.5), "0.5");
}

}  // namespace
}  // namespace wordsens
