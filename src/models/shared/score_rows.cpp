#include "models/shared/score_rows.hpp"

namespace wordsens {

Matrix normalise_scores(const Matrix& S, AttentionKind kind) {
  Matrix A(S.rows(), S.cols());
  for (Index j = 0; j < S.rows(); ++j) {
    if (kind == AttentionKind::softmax) {
      const double m = S.row(j).maxCoeff();  // shift: every exponent ≤ 0, the largest is 1
      A.row(j) = (S.row(j).array() - m).exp().matrix();
      A.row(j) /= A.row(j).sum();
    } else {
      A.row(j) = S.row(j).cwiseMax(0.0);
      const double R = A.row(j).sum();
      if (R > 0.0) {
        A.row(j) /= R;
      } else {
        A.row(j).setZero();
      }
    }
  }
  return A;
}

void normalise_scores_backward(const Matrix& S, const Matrix& A, const Matrix& dA,
                               AttentionKind kind, Matrix& dS) {
  const Index n = S.rows();
  dS.resize(n, S.cols());
  for (Index r = 0; r < n; ++r) {
    if (kind == AttentionKind::softmax) {
      const double mean = A.row(r).dot(dA.row(r));
      dS.row(r) = A.row(r).cwiseProduct((dA.row(r).array() - mean).matrix());
    } else {
      // A zero row (every score ≤ 0) has no gradient.
      const double sum = S.row(r).cwiseMax(0.0).sum();
      if (!(sum > 0.0)) {
        dS.row(r).setZero();
        continue;
      }
      const double mean = A.row(r).dot(dA.row(r));
      dS.row(r) = (S.row(r).array() > 0.0).select((dA.row(r).array() - mean) / sum, 0.0).matrix();
    }
  }
}

}  // namespace wordsens
