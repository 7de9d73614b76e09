#include "models/rf/rf_evaluator.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>

#include "models/shared/activation.hpp"

namespace wordsens {
namespace {

class RfEvaluator final : public PositionEvaluator {
 public:
  RfEvaluator(Activation act, Index position, Vector a, Matrix B)
      : act_(act), position_(position), a_(std::move(a)), B_(std::move(B)) {
    activate(act_, a_, base_);
    z_ = a_;
  }
  [[nodiscard]] Index position() const override { return position_; }
  [[nodiscard]] const Vector& base_features() const override { return base_; }

  // O(k·d): one k × d matrix–vector product.
  void features_at(const Vector& delta, Vector& out) override {
    z_.noalias() = B_ * delta;
    z_ += a_;
    activate(act_, z_, out);
  }
  // O(k·d): Bᵀ(c ⊙ ϕ'(a + BΔ)).
  void pullback(const Vector& cotangent, Vector& grad) override {
    g_ = cotangent;
    multiply_by_derivative(act_, z_, g_);
    grad.noalias() = B_.transpose() * g_;
  }

  // O(k·d) per column, V_i read from memory once per call (V_i is 708 MB at n = 150, d = 768,
  // k = D: reading it is the cost). f and ∇f are sums over the rows of V_i of terms that need only
  // that row's preactivations, so each block of kFusedRows rows (small enough to stay in L2) is
  // used twice while cached: Z_b = a_b + V_b·Δ, the residual and cotangent of its rows, and
  // ∇f += V_bᵀ·R_b. Two separate passes over 512-row blocks (forward for all rows, then
  // backward) read it twice from memory: 171 ms against 108 ms per call of 4 points at
  // n = 150, d = 768 (bench_wordsens --benchmark_filter=RfBatched).
  void sensitivity_objective(const Matrix& deltas, Vector& values, Matrix* grads) override {
    fused_pass(deltas, values, grads, [&](Index r, Index h, bool want_cotangent) {
      R_ = P_.colwise() - base_.segment(r, h);  // φ' − φ on these rows
      values += R_.colwise().squaredNorm().transpose();
      if (!want_cotangent) return;
      // The cotangent 2(φ' − φ) times ϕ'(z): ReLU' = [z > 0], tanh' = 1 − tanh².
      if (act_ == Activation::relu) {
        R_ = (Z_.array() > 0.0).select(2.0 * R_.array(), 0.0).matrix();
      } else {
        R_.array() *= 2.0 * (1.0 - P_.array().square());
      }
    });
  }

  // The trained head's read-outs ⟨ϕ(a + BΔ_b), v_b⟩ and their gradients Bᵀ(v_b ⊙ ϕ'(a + BΔ_b)),
  // fused by blocks of rows as above: V_i is read from memory once per call instead of twice per
  // point. One point at a time (features_at, then pullback), the searches of an rf gen task at
  // n = 120, d = 768 spent 54 % of its time in those memory-bound matrix–vector products.
  void linear_readouts(const Matrix& deltas, std::span<const Vector* const> readouts,
                       Vector& values, Matrix* grads) override {
    const Index k = B_.rows(), columns = deltas.cols();
    if (static_cast<Index>(readouts.size()) != columns) {
      throw std::invalid_argument("linear_readouts: one read-out vector per column expected");
    }
    for (const Vector* v : readouts) {
      if (v->size() != k) throw std::invalid_argument("linear_readouts: read-out of wrong size");
    }
    fused_pass(deltas, values, grads, [&](Index r, Index h, bool want_cotangent) {
      W_.resize(h, columns);
      for (Index b = 0; b < columns; ++b) {
        W_.col(b) = readouts[static_cast<std::size_t>(b)]->segment(r, h);
      }
      values += P_.cwiseProduct(W_).colwise().sum().transpose();
      if (!want_cotangent) return;
      // The cotangent v ⊙ ϕ'(z): ReLU' = [z > 0], tanh' = 1 − tanh².
      if (act_ == Activation::relu) {
        R_ = (Z_.array() > 0.0).select(W_.array(), 0.0).matrix();
      } else {
        R_ = (W_.array() * (1.0 - P_.array().square())).matrix();
      }
    });
  }

 private:
  /// The fused pass over V_i both batched objectives make: values ← 0, and per block of h rows
  /// from row r, Z_ ← a_b + V_b·D_ and P_ ← ϕ(Z_), then `block(r, h, want_cotangent)` adds the
  /// block's terms to values and, when gradients are wanted, leaves the block's cotangent in R_,
  /// which is pulled back into G_ while V_b is still cached.
  template <typename RowBlock>
  void fused_pass(const Matrix& deltas, Vector& values, Matrix* grads, RowBlock&& block) {
    const Index k = B_.rows(), columns = deltas.cols();
    D_ = deltas;
    values.setZero(columns);
    if (grads != nullptr) G_.setZero(B_.cols(), columns);
    for (Index r = 0; r < k; r += kFusedRows) {
      const Index h = std::min(kFusedRows, k - r);
      const auto V_b = B_.middleRows(r, h);
      if (columns <= kFewColumns) {
        Z_.noalias() = V_b.lazyProduct(D_);
      } else {
        Z_.noalias() = V_b * D_;
      }
      Z_.colwise() += a_.segment(r, h);
      if (act_ == Activation::relu) {
        P_ = Z_.cwiseMax(0.0);
      } else {
        P_ = Z_.array().tanh().matrix();
      }
      block(r, h, grads != nullptr);
      if (grads != nullptr) accumulate_pullback(V_b, columns, h);
    }
    if (grads != nullptr) *grads = G_;
  }
  /// G_ += V_bᵀ R_ for one block of rows (h rows, `columns` points).
  template <typename Block>
  void accumulate_pullback(const Block& V_b, Index columns, Index h) {
    if (columns <= kFewColumns) {
      for (Index i = 0; i < h; ++i) {
        const auto v = V_b.row(i).transpose();
        for (Index b = 0; b < columns; ++b) G_.col(b) += R_(i, b) * v;
      }
    } else {
      G_.noalias() += V_b.transpose() * R_;
    }
  }

  Activation act_;
  Index position_;
  Vector a_;  // V vec(X)
  Matrix B_;  // V_i
  Vector base_, z_, g_;
  // Batches (column-major: a column is one point): the points, the gradients, and for one block
  // of rows the preactivations, ϕ of them and φ' − φ (kFusedRows × B each).
  Eigen::MatrixXd D_, G_, Z_, P_, R_, W_;  // W_: the read-outs' rows of a block
  // Rows of V_i per block: 64 × 768 doubles = 384 KB, which stays in L2 between its two uses.
  static constexpr Index kFusedRows = 64;
  // Up to this many points, dot products and axpys straight from the cached rows beat Eigen's
  // GEMM, which packs the block for each product (B = 4 at n = 150, d = 768: 108 ms a call
  // against 122 ms; B = 35 at n = 40, d = 192: the GEMM is 1.45× faster).
  static constexpr Index kFewColumns = 8;
};

}  // namespace

std::unique_ptr<PositionEvaluator> make_rf_evaluator(Activation activation, Index position,
                                                     Vector a, Matrix B) {
  return std::make_unique<RfEvaluator>(activation, position, std::move(a), std::move(B));
}

}  // namespace wordsens
