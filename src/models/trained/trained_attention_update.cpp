#include "models/trained/trained_attention_update.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace wordsens {
namespace {

class TrainedPosition final : public PositionEvaluator {
 public:
  TrainedPosition(const EncoderLayer& layer, TrainedPart part, const Matrix& U, Index position)
      : w_(layer),
        part_(part),
        i_(position),
        n_(U.rows()),
        d_(U.cols()),
        H_(layer.heads),
        dh_(layer.d() / layer.heads),
        c_(1.0 / std::sqrt(static_cast<double>(layer.d() / layer.heads))) {
    trained_forward(w_, part_, U, base_);
    base_features_ = vec(base_.out);
    leave_one_out();
    if (part_ == TrainedPart::layer) point_.X = base_.X;  // only row i changes from here on
    alpha_.resize(n_, H_);
    kappa_.resize(n_, H_);
    scores_.resize(n_, H_);
    up_.resize(H_, d_);
    row_weights_.resize(H_, n_);
  }

  [[nodiscard]] Index position() const override { return i_; }
  [[nodiscard]] const Vector& base_features() const override { return base_features_; }

  void features_at(const Vector& delta, Vector& out) override {
    forward(delta);
    out = vec(output());
  }

  void pullback(const Vector& cotangent, Vector& grad) override {
    backward(Eigen::Map<const Matrix>(cotangent.data(), n_, d_), grad);
  }

  void sensitivity_objective(const Matrix& deltas, Vector& values, Matrix* grads) override {
    values.resize(deltas.cols());
    if (grads != nullptr) grads->resize(d_, deltas.cols());
    const Eigen::Map<const Matrix> base(base_features_.data(), n_, d_);
    for (Index b = 0; b < deltas.cols(); ++b) {
      delta_ = deltas.col(b);
      forward(delta_);
      // f from the cotangent 2(φ' − φ) with or without ∇f, so that both calls give the same
      // number (as PositionEvaluator's default).
      residual_ = 2.0 * (output() - base);
      values(b) = 0.25 * residual_.squaredNorm();
      if (grads == nullptr) continue;
      backward(residual_, grad_);
      grads->col(b) = grad_;
    }
  }

 private:
  [[nodiscard]] auto head(const Matrix& M, Index h) const { return M.middleCols(h * dh_, dh_); }
  [[nodiscard]] auto out_rows(Index h) const { return w_.WO.middleRows(h * dh_, dh_); }
  [[nodiscard]] const Matrix& output() const {
    return part_ == TrainedPart::layer ? point_.out : attention_;
  }

  // λ_jh and B_jh = ȳ_jh W_O,h for every row j ≠ i (header).
  void leave_one_out() {
    lambda_.setZero(n_, H_);
    B_.setZero(n_, H_ * d_);
    Matrix S(n_, n_), ybar(n_, dh_);
    for (Index h = 0; h < H_; ++h) {
      S.noalias() = c_ * (head(base_.Q, h) * head(base_.K, h).transpose());
      S.col(i_).setConstant(-std::numeric_limits<double>::infinity());
      for (Index j = 0; j < n_; ++j) {
        if (j == i_) {
          S.row(j).setZero();
          continue;
        }
        const double top = S.row(j).maxCoeff();  // finite: word j's own score is there
        S.row(j) = (S.row(j).array() - top).exp().matrix();
        const double sum = S.row(j).sum();
        lambda_(j, h) = top + std::log(sum);
        S.row(j) /= sum;
      }
      ybar.noalias() = S * head(base_.V, h);
      B_.middleCols(h * d_, d_).noalias() = ybar * out_rows(h);
    }
  }

  // The attention's output M' at U^i(δ) (and the whole layer's), keeping what backward needs.
  void forward(const Vector& delta) {
    e_ = delta.transpose().cwiseProduct(w_.input.gamma);
    q_ = base_.Q.row(i_);
    q_.noalias() += e_ * w_.WQ;
    k_ = base_.K.row(i_);
    k_.noalias() += e_ * w_.WK;
    v_ = base_.V.row(i_);
    v_.noalias() += e_ * w_.WV;
    for (Index h = 0; h < H_; ++h) {
      up_.row(h).noalias() = v_.segment(h * dh_, dh_) * out_rows(h);
      scores_.col(h).noalias() = c_ * (head(base_.Q, h) * k_.segment(h * dh_, dh_).transpose());
    }
    // Rows j ≠ i: the new weight of word i against the rest of the row, as two logistic
    // fractions of the larger exponent (no exponent positive).
    for (Index j = 0; j < n_; ++j) {
      for (Index h = 0; h < H_; ++h) {
        if (j == i_) {
          alpha_(j, h) = kappa_(j, h) = 0.0;
          continue;
        }
        const double top = std::max(lambda_(j, h), scores_(j, h));
        const double rest = std::exp(lambda_(j, h) - top), word = std::exp(scores_(j, h) - top);
        alpha_(j, h) = rest / (rest + word);
        kappa_(j, h) = word / (rest + word);
      }
    }
    attention_.resize(n_, d_);
    attention_.noalias() = kappa_ * up_;
    for (Index j = 0; j < n_; ++j) {
      if (j == i_) continue;
      attention_.row(j).noalias() +=
          alpha_.row(j) * Eigen::Map<const Matrix>(B_.row(j).data(), H_, d_);
    }
    // Row i in full: its scores against every word, word i's own key moved.
    y_i_.resize(d_);
    for (Index h = 0; h < H_; ++h) {
      auto weights = row_weights_.row(h);
      weights.noalias() = c_ * (q_.segment(h * dh_, dh_) * head(base_.K, h).transpose());
      weights(i_) = c_ * q_.segment(h * dh_, dh_).dot(k_.segment(h * dh_, dh_));
      weights = (weights.array() - weights.maxCoeff()).exp().matrix();
      weights /= weights.sum();
      auto y = y_i_.segment(h * dh_, dh_);
      y.noalias() = weights * head(base_.V, h);
      y += weights(i_) * (v_.segment(h * dh_, dh_) - base_.V.row(i_).segment(h * dh_, dh_));
    }
    attention_.row(i_).noalias() = y_i_ * w_.WO;
    attention_.rowwise() += w_.bO;
    if (part_ == TrainedPart::layer) {
      point_.X.row(i_) = base_.X.row(i_) + e_;
      point_.M = attention_;
      trained_after_attention(w_, point_);
    }
  }

  // grad ← ∇_δ ⟨C, output⟩ at the latest forward.
  void backward(const Eigen::Ref<const Matrix>& C, Vector& grad) {
    const Matrix* G = nullptr;  // the cotangent of the attention's output M'
    if (part_ == TrainedPart::layer) {
      trained_after_attention_backward(w_, point_, C, scratch_);
      G = &scratch_.dM;
    } else {
      cotangent_ = C;
      G = &cotangent_;
    }
    // Rows j ≠ i: through α, κ (hence s'_jh, hence k'_i) and u'_h (hence v'_i).
    d_up_.noalias() = kappa_.transpose() * (*G);
    g_kappa_.noalias() = (*G) * up_.transpose();
    d_scores_.resize(n_, H_);
    for (Index j = 0; j < n_; ++j) {
      if (j == i_) {
        d_scores_.row(j).setZero();
        continue;
      }
      g_alpha_.noalias() =
          Eigen::Map<const Matrix>(B_.row(j).data(), H_, d_) * G->row(j).transpose();
      for (Index h = 0; h < H_; ++h) {
        d_scores_(j, h) = alpha_(j, h) * kappa_(j, h) * (g_kappa_(j, h) - g_alpha_(h));
      }
    }
    dq_.setZero(d_);
    dk_.setZero(d_);
    dv_.setZero(d_);
    for (Index h = 0; h < H_; ++h) {
      dk_.segment(h * dh_, dh_).noalias() = c_ * (d_scores_.col(h).transpose() * head(base_.Q, h));
      dv_.segment(h * dh_, dh_).noalias() = d_up_.row(h) * out_rows(h).transpose();
    }
    // Row i: through its softmax over every word.
    dy_i_.noalias() = G->row(i_) * w_.WO.transpose();
    for (Index h = 0; h < H_; ++h) {
      const auto weights = row_weights_.row(h);
      const auto dy = dy_i_.segment(h * dh_, dh_);
      d_row_.noalias() = dy * head(base_.V, h).transpose();
      d_row_(i_) = dy.dot(v_.segment(h * dh_, dh_));
      const double mean = weights.dot(d_row_);
      d_row_ = weights.cwiseProduct((d_row_.array() - mean).matrix());
      const double own = d_row_(i_);
      auto dq = dq_.segment(h * dh_, dh_);
      dq.noalias() = c_ * (d_row_ * head(base_.K, h));
      dq += c_ * own * (k_.segment(h * dh_, dh_) - base_.K.row(i_).segment(h * dh_, dh_));
      dk_.segment(h * dh_, dh_) += c_ * own * q_.segment(h * dh_, dh_);
      dv_.segment(h * dh_, dh_) += weights(i_) * dy;
    }
    de_.noalias() = dq_ * w_.WQ.transpose();
    de_.noalias() += dk_ * w_.WK.transpose();
    de_.noalias() += dv_ * w_.WV.transpose();
    if (part_ == TrainedPart::layer) de_ += G->row(i_);  // the residual X + M
    grad = de_.cwiseProduct(w_.input.gamma).transpose();
  }

  const EncoderLayer& w_;  // the model's, which outlives its evaluators
  TrainedPart part_;
  Index i_, n_, d_, H_, dh_;
  double c_;
  TrainedPass base_;  // the plain pass at Δ = 0
  Vector base_features_;
  Matrix lambda_;  // n × H: λ_jh (row i unused)
  Matrix B_;       // n × H·d: row j holds B_j0, …, B_j(H−1)
  // The latest point.
  RowVector e_, q_, k_, v_, y_i_;
  Matrix alpha_, kappa_, scores_, up_, row_weights_;
  Matrix attention_;   // M'
  TrainedPass point_;  // the whole layer at the point (X with row i moved, M')
  // Scratch.
  Vector delta_, grad_;
  Matrix residual_, cotangent_, d_up_, g_kappa_, d_scores_;
  Vector g_alpha_;
  RowVector dq_, dk_, dv_, dy_i_, d_row_, de_;
  TrainedBackwardScratch scratch_;
};

}  // namespace

std::unique_ptr<PositionEvaluator> make_trained_position_evaluator(const EncoderLayer& layer,
                                                                   TrainedPart part,
                                                                   const Matrix& U,
                                                                   Index position) {
  return std::make_unique<TrainedPosition>(layer, part, U, position);
}

}  // namespace wordsens
