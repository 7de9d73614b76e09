#include "data/synthetic.hpp"

#include <gtest/gtest.h>

namespace wordsens {
namespace {

TEST(Synthetic, RowsHaveNormSqrtDAndTextsAreNestedAcrossN) {
  const Matrix X = synthetic_sample(9, 10, 16, 2, 0);
  for (Index i = 0; i < X.rows(); ++i) EXPECT_NEAR(X.row(i).norm(), 4.0, 1e-12);
  const Matrix Y = synthetic_sample(9, 20, 16, 2, 0);
  EXPECT_EQ(X, Y.topRows(10));
  EXPECT_NE(X, synthetic_sample(9, 10, 16, 3, 0));
  EXPECT_NE(X, synthetic_sample(9, 10, 16, 2, 1));
  const Vector w = synthetic_label_direction(9, 10, 16, 2);
  EXPECT_NEAR(w.norm(), 1.0, 1e-12);
  EXPECT_TRUE(synthetic_label(X, w) == 1.0 || synthetic_label(X, w) == -1.0);
}

}  // namespace
}  // namespace wordsens
