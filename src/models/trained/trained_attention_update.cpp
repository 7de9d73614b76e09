#include "models/trained/trained_attention_update.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "models/trained/trained_row_block.hpp"

namespace wordsens {
namespace {

using RowArray = Eigen::Array<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using StridedMap = Eigen::Map<Matrix, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;

// The points of a call are evaluated together (docs/PERFORMANCE.md, "The transformer family"): what
// depends on a point is stored for all B points of the call side by side, so that Bj_ (n × H·d, the
// largest array, megabytes at n = 256) is read once per call instead of once per point, and the
// per-point vector products become products of B-row matrices. Layouts, point b and head h:
//   alpha_, kappa_, g_kappa_, d_scores_: n × B·H, column b·H + h;
//   att_, G_: n × B·d, point b in columns [b·d, (b+1)·d), so that row j of every point is one
//   contiguous B × d block (row-major);
//   up_, d_up_: B·H × d, row b·H + h (u'_h and its cotangent of point b);
//   E_, Qp_, Kp_, Vp_, Yi_, dQ_, dK_, dV_, dE_: B × d, row b.
// The rows and columns of a block of attention_objective's row products: the block's residuals
// (kBlockRows × B × kChunk), its rows of B_j and the chunks of u' and of u''s cotangent stay in the
// second-level cache while its products go round them. At d = 384 a block is whole rows, which the
// hardware's prefetch follows best: 6 rows of 384 columns took 0.93–0.95 of the time of 12 rows of
// 128 at n = 256 (alternating runs of the two in one process; 8 × 384: 0.94–0.95; 4 × 384, 12 ×
// 384, 24 × 128 and 6 × 192: 0.96–1.03).
constexpr Index kBlockRows = 6;
constexpr Index kChunk = 384;

class TrainedPosition final : public PositionEvaluator {
 public:
  TrainedPosition(const EncoderLayer& layer, const TrainedPackedWeights& packed, TrainedPart part,
                  const Matrix& U, Index position)
      : w_(layer),
        packed_(packed),
        part_(part),
        i_(position),
        n_(U.rows()),
        d_(U.cols()),
        H_(layer.heads),
        dh_(layer.d() / layer.heads),
        c_(1.0 / std::sqrt(static_cast<double>(layer.d() / layer.heads))) {
    trained_forward(w_, part_, U, base_);
    for (Index h = 0; h < H_; ++h) {
      const auto Q = base_.Q.middleCols(h * dh_, dh_), K = base_.K.middleCols(h * dh_, dh_),
                 V = base_.V.middleCols(h * dh_, dh_);
      by_head_.push_back({FixedRightFactor(Q), FixedRightFactor(K), FixedRightFactor(V),
                          FixedRightFactor(Q.transpose()), FixedRightFactor(K.transpose()),
                          FixedRightFactor(V.transpose())});
    }
    base_features_ = vec(base_.out);
    leave_one_out();
    offsets_ = (-Eigen::Map<const Matrix>(base_features_.data(), n_, d_)).rowwise() + w_.bO;
    if (part_ == TrainedPart::layer) point_.X = base_.X;  // only row i changes from here on
  }

  [[nodiscard]] Index position() const override { return i_; }
  [[nodiscard]] const Vector& base_features() const override { return base_features_; }

  void features_at(const Vector& delta, Vector& out) override {
    forward(delta);
    if (part_ == TrainedPart::attention) {
      out = Eigen::Map<const Vector>(att_.data(), n_ * d_);  // point 0's columns come first
    } else {
      out = vec(layer_output(0));
    }
  }

  void pullback(const Vector& cotangent, Vector& grad) override {
    const Eigen::Map<const Matrix> C(cotangent.data(), n_, d_);
    if (part_ == TrainedPart::attention) {
      G_.leftCols(d_) = C;
    } else {
      c_scratch_ = C;  // the layer's backward takes a Matrix
      set_layer_cotangent(0, c_scratch_);
    }
    backward(grads_);
    grad = grads_.col(0);
  }

  void sensitivity_objective(const Matrix& deltas, Vector& values, Matrix* grads) override {
    if (part_ == TrainedPart::attention) {
      attention_objective(deltas, values, grads);
      return;
    }
    values.resize(deltas.cols());
    forward(deltas);
    const Eigen::Map<const Matrix> base(base_features_.data(), n_, d_);
    for (Index b = 0; b < deltas.cols(); ++b) {
      // f from the cotangent 2(φ' − φ) with or without ∇f, so that both calls give the same
      // number (as PositionEvaluator's default).
      residual_ = 2.0 * (layer_output(b) - base);
      values(b) = 0.25 * residual_.squaredNorm();
      if (grads != nullptr) set_layer_cotangent(b, residual_);
    }
    if (grads != nullptr) backward(*grads);
  }

 private:
  [[nodiscard]] auto head(const Matrix& M, Index h) const { return M.middleCols(h * dh_, dh_); }
  [[nodiscard]] auto out_rows(Index h) const { return w_.WO.middleRows(h * dh_, dh_); }
  // Column b·H + h of an n × B·H array, for b = 0 … B−1: head h of every point, n × B.
  [[nodiscard]] StridedMap head_of_points(Matrix& M, Index h) const {
    return {M.data() + h, n_, B_,
            Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(M.outerStride(), H_)};
  }
  // Row j of an n × B·d array as the B × d matrix of every point's row j.
  [[nodiscard]] static Eigen::Map<Matrix> rows_of_points(Matrix& M, Index j, Index B, Index d) {
    return {M.row(j).data(), B, d};
  }

  // B_j of row j as an H × d matrix.
  [[nodiscard]] FixedRightFactor::ConstRows b_of_row(Index j) const {
    return left_rows(Bj_.row(j).data(), H_, d_, d_);
  }

  // λ_jh and B_jh = ȳ_jh W_O,h for every row j ≠ i (header).
  void leave_one_out() {
    lambda_.setZero(n_, H_);
    Bj_.setZero(n_, H_ * d_);
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
      Bj_.middleCols(h * d_, d_).noalias() = ybar * out_rows(h);
    }
  }

  void resize_for(Index B) {
    if (B == B_) return;
    B_ = B;
    alpha_.resize(n_, B * H_);
    kappa_.resize(n_, B * H_);
    g_kappa_.resize(n_, B * H_);
    d_scores_.resize(n_, B * H_);
    att_.resize(n_, B * d_);
    G_.resize(n_, B * d_);
    up_.resize(B * H_, d_);
    d_up_.resize(B * H_, d_);
    row_weights_.assign(static_cast<std::size_t>(H_), Matrix(B, n_));
    diffs_.resize(n_, B * H_);
    lambdas_ = lambda_.replicate(1, B);
    bias_.resize(B * d_);
    for (Index b = 0; b < B; ++b) bias_.segment(b * d_, d_) = w_.bO;
  }

  // What every row of the attention's output at U^i(δ_b) needs, for every column δ_b of `deltas`:
  // e_b, q'_i, k'_i, v'_i, u'_h, α and κ of every row j ≠ i, and row i's output without b_O
  // (row_i_), keeping what backward needs.
  void prepare_points(const Eigen::Ref<const Matrix>& deltas) {
    resize_for(deltas.cols());
    E_ = deltas.transpose() * w_.input.gamma.asDiagonal();
    const auto E = left_rows(E_.data(), B_, d_, d_);
    Qp_ = base_.Q.row(i_).replicate(B_, 1);
    Kp_ = base_.K.row(i_).replicate(B_, 1);
    Vp_ = base_.V.row(i_).replicate(B_, 1);
    packed_.query.multiply_add(E, 0, 1.0, result_rows(Qp_.data(), B_, d_, d_), pack_scratch_);
    packed_.key.multiply_add(E, 0, 1.0, result_rows(Kp_.data(), B_, d_, d_), pack_scratch_);
    packed_.value.multiply_add(E, 0, 1.0, result_rows(Vp_.data(), B_, d_, d_), pack_scratch_);
    scores_.resize(B_, n_);
    for (Index h = 0; h < H_; ++h) {
      // s'_jh = c q_jh·k'_ih of every row j and point (B × n).
      by_head(h).Qt.multiply(left_rows(Kp_.data() + h * dh_, B_, dh_, d_), 0, c_,
                             result_rows(scores_.data(), B_, n_, n_), pack_scratch_);
      head_of_points(diffs_, h) = scores_.transpose();
    }
    // Rows j ≠ i: the new weight of word i against the rest of the row, as two logistic
    // fractions of the larger exponent (no exponent positive): with t = e^{−|s' − λ|},
    // α = 1/(1 + t) and κ = t/(1 + t) where s' ≤ λ, the other way round where s' > λ.
    diffs_ -= lambdas_;
    t_ = (-diffs_.array().abs()).exp();
    one_ = 1.0 / (1.0 + t_);
    t_ /= 1.0 + t_;
    alpha_ = (diffs_.array() <= 0.0).select(one_, t_).matrix();
    kappa_ = (diffs_.array() <= 0.0).select(t_, one_).matrix();
    alpha_.row(i_).setZero();
    kappa_.row(i_).setZero();
    // Row i in full: its scores against every word, word i's own key moved. Beside it, u'_h =
    // v'_ih W_O,h of every point: the two products with W_O,h as one (stacked_: v'_ih over y_ih),
    // so that W_O is read once per call.
    Yi_.resize(B_, d_);
    stacked_.resize(2 * B_, dh_);
    stacked_out_.setZero(2 * B_, d_);  // u'_h of the head at hand over row i's output without b_O
    for (Index h = 0; h < H_; ++h) {
      Matrix& weights = row_weights_[static_cast<std::size_t>(h)];  // B × n
      by_head(h).Kt.multiply(left_rows(Qp_.data() + h * dh_, B_, dh_, d_), 0, c_,
                             result_rows(weights.data(), B_, n_, n_), pack_scratch_);
      weights.col(i_) = c_ * head(Qp_, h).cwiseProduct(head(Kp_, h)).rowwise().sum();
      for (Index b = 0; b < B_; ++b) {
        auto row = weights.row(b);
        row = (row.array() - row.maxCoeff()).exp().matrix();
        row /= row.sum();
      }
      auto y = Yi_.middleCols(h * dh_, dh_);
      by_head(h).V.multiply(left_rows(weights.data(), B_, n_, n_), 0, 1.0,
                            result_rows(Yi_.data() + h * dh_, B_, dh_, d_), pack_scratch_);
      for (Index b = 0; b < B_; ++b) {
        y.row(b) += weights(b, i_) *
                    (Vp_.row(b).segment(h * dh_, dh_) - base_.V.row(i_).segment(h * dh_, dh_));
      }
      stacked_.topRows(B_) = head(Vp_, h);
      stacked_.bottomRows(B_) = y;
      stacked_out_.topRows(B_).setZero();
      packed_.output.multiply_add(left_rows(stacked_.data(), 2 * B_, dh_, dh_), h * dh_, 1.0,
                                  result_rows(stacked_out_.data(), 2 * B_, d_, d_), pack_scratch_);
      // u'_h of every point, into rows b·H + h of up_.
      result_rows(up_.data() + h * d_, B_, d_, H_ * d_) = stacked_out_.topRows(B_);
    }
    row_i_ = stacked_out_.bottomRows(B_);
  }

  // The attention's output M' at U^i(δ_b) for every column δ_b of `deltas` (att_), keeping what
  // backward needs.
  void forward(const Eigen::Ref<const Matrix>& deltas) {
    prepare_points(deltas);
    for (Index b = 0; b < B_; ++b) {
      att_.middleCols(b * d_, d_).noalias() =
          kappa_.middleCols(b * H_, H_) * up_.middleRows(b * H_, H_);
    }
    // Σ_h α_jh B_jh: B_j (H × d) read once for all the points.
    for (Index j = 0; j < n_; ++j) {
      if (j == i_) continue;
      rows_of_points(att_, j, B_, d_).noalias() +=
          Eigen::Map<const Matrix>(alpha_.row(j).data(), B_, H_) * b_of_row(j);
    }
    rows_of_points(att_, i_, B_, d_) = row_i_;
    att_.rowwise() += bias_;
    laid_out_ = -1;
  }

  // The attention's f(δ_b) = ‖φ(U^i(δ_b)) − φ(U)‖² and, with `grads`, ∇f for every column of
  // `deltas`, without its n × B·d output: the rows j ≠ i of every point are made, turned into their
  // residuals r = 2(M'_j − M_j) (the cotangents of M'_j) and pulled back at once, a block of rows
  // and a chunk of columns at a time, by the register-tiled products of trained_row_block.hpp.
  void attention_objective(const Matrix& deltas, Vector& values, Matrix* grads) {
    prepare_points(deltas);
    values.setZero(deltas.cols());
    if (grads != nullptr) {
      d_up_.setZero();
      g_kappa_.setZero(n_, B_ * H_);
      g_alpha_all_.setZero(n_, B_ * H_);
    }
    residuals_.resize(kBlockRows * B_ * std::min(kChunk, d_));
    // The rows before i and after it, each in blocks of kBlockRows consecutive rows, so that a
    // block's rows are evenly spaced in every array.
    for (const auto& [from, to] : {std::pair<Index, Index>{0, i_}, {i_ + 1, n_}}) {
      for (Index j = from; j < to; j += kBlockRows) {
        const Index rows = std::min(kBlockRows, to - j);
        for (Index c = 0; c < d_; c += kChunk) {
          const TrainedRowBlock block{.J = rows,
                                      .B = B_,
                                      .H = H_,
                                      .C = std::min(kChunk, d_ - c),
                                      .kappa = kappa_.row(j).data(),
                                      .alpha = alpha_.row(j).data(),
                                      .coef_stride = B_ * H_,
                                      .up = up_.data() + c,
                                      .ld = d_,
                                      .bj = Bj_.row(j).data() + c,
                                      .bj_stride = H_ * d_,
                                      .offset = offsets_.row(j).data() + c,
                                      .offset_stride = d_,
                                      .r = residuals_.data()};
          trained_block_residual(block, values.data());
          if (grads != nullptr) {
            trained_block_pullback(block, g_kappa_.row(j).data(), g_alpha_all_.row(j).data(),
                                   d_up_.data() + c);
          }
        }
      }
    }
    if (grads != nullptr) {
      d_scores_ = (alpha_.array() * kappa_.array() * (g_kappa_ - g_alpha_all_).array()).matrix();
    }
    // Row i's residual, from its b_O − M_i as every other row's.
    Gi_ = 2.0 * (row_i_.rowwise() + offsets_.row(i_));
    for (Index b = 0; b < B_; ++b) values(b) += 0.25 * Gi_.row(b).squaredNorm();
    if (grads == nullptr) return;
    d_scores_.row(i_).setZero();
    finish_backward(*grads, Gi_);
  }

  // Point b's output through the whole layer, run from its attention into point_ (a reference
  // into point_, valid until the next point is laid out).
  [[nodiscard]] const Matrix& layer_output(Index b) {
    if (laid_out_ != b) {
      point_.X.row(i_) = base_.X.row(i_) + E_.row(b);
      point_.M = att_.middleCols(b * d_, d_);
      trained_after_attention(w_, point_);
      laid_out_ = b;
    }
    return point_.out;
  }

  // Point b's cotangent of M' (G_) from the cotangent C of the layer's output.
  void set_layer_cotangent(Index b, const Matrix& C) {
    (void)layer_output(b);  // the layer at point b (already there after layer_output(b))
    trained_after_attention_backward(w_, point_, C, scratch_);
    G_.middleCols(b * d_, d_) = scratch_.dM;
  }

  // grads.col(b) ← ∇_δ ⟨C_b, output⟩ at point b of the latest forward, every point's cotangent of
  // M' in G_.
  void backward(Matrix& grads) {
    // Rows j ≠ i: through α, κ (hence s'_jh, hence k'_i) and u'_h (hence v'_i).
    for (Index b = 0; b < B_; ++b) {
      const auto G = G_.middleCols(b * d_, d_);
      d_up_.middleRows(b * H_, H_).noalias() = kappa_.middleCols(b * H_, H_).transpose() * G;
      g_kappa_.middleCols(b * H_, H_).noalias() = G * up_.middleRows(b * H_, H_).transpose();
    }
    for (Index j = 0; j < n_; ++j) {
      if (j == i_) {
        d_scores_.row(j).setZero();
        continue;
      }
      g_alpha_.noalias() = b_of_row(j) * rows_of_points(G_, j, B_, d_).transpose();  // H × B
      for (Index b = 0; b < B_; ++b) {
        for (Index h = 0; h < H_; ++h) {
          const Index col = b * H_ + h;
          d_scores_(j, col) = alpha_(j, col) * kappa_(j, col) * (g_kappa_(j, col) - g_alpha_(h, b));
        }
      }
    }
    finish_backward(grads, rows_of_points(G_, i_, B_, d_));
  }

  // grads from the cotangents of s'_jh (d_scores_) and u'_h (d_up_) of every point and from Gi,
  // the cotangent of row i of every point's M' (B × d).
  void finish_backward(Matrix& grads, const Eigen::Ref<const Matrix>& Gi) {
    dK_.resize(B_, d_);
    dV_.resize(B_, d_);
    dYi_.resize(B_, d_);
    // dV_h = d_up_h W_O,hᵀ and row i's dY_h = G_i W_O,hᵀ as one product (grads_stacked_: d_up_h
    // over G_i), so that W_O is read once.
    grads_stacked_.resize(2 * B_, d_);
    grads_stacked_.bottomRows(B_) = Gi;
    grads_stacked_out_.resize(2 * B_, dh_);
    for (Index h = 0; h < H_; ++h) {
      d_scores_h_ = head_of_points(d_scores_, h).transpose();  // B × n
      by_head(h).Q.multiply(left_rows(d_scores_h_.data(), B_, n_, n_), 0, c_,
                            result_rows(dK_.data() + h * dh_, B_, dh_, d_), pack_scratch_);
      grads_stacked_.topRows(B_) = left_rows(d_up_.data() + h * d_, B_, d_, H_ * d_);
      packed_.output_t_by_head[static_cast<std::size_t>(h)].multiply(
          left_rows(grads_stacked_.data(), 2 * B_, d_, d_), 0, 1.0,
          result_rows(grads_stacked_out_.data(), 2 * B_, dh_, dh_), pack_scratch_);
      dV_.middleCols(h * dh_, dh_) = grads_stacked_out_.topRows(B_);
      dYi_.middleCols(h * dh_, dh_) = grads_stacked_out_.bottomRows(B_);
    }
    // Row i: through its softmax over every word.
    dQ_.resize(B_, d_);
    d_row_.resize(B_, n_);
    for (Index h = 0; h < H_; ++h) {
      const Matrix& weights = row_weights_[static_cast<std::size_t>(h)];
      const auto dy = dYi_.middleCols(h * dh_, dh_);
      by_head(h).Vt.multiply(left_rows(dYi_.data() + h * dh_, B_, dh_, d_), 0, 1.0,
                             result_rows(d_row_.data(), B_, n_, n_), pack_scratch_);
      d_row_.col(i_) = dy.cwiseProduct(head(Vp_, h)).rowwise().sum();
      for (Index b = 0; b < B_; ++b) {
        const double mean = weights.row(b).dot(d_row_.row(b));
        d_row_.row(b) = weights.row(b).cwiseProduct((d_row_.row(b).array() - mean).matrix());
      }
      auto dq = dQ_.middleCols(h * dh_, dh_);
      by_head(h).K.multiply(left_rows(d_row_.data(), B_, n_, n_), 0, c_,
                            result_rows(dQ_.data() + h * dh_, B_, dh_, d_), pack_scratch_);
      for (Index b = 0; b < B_; ++b) {
        const double own = d_row_(b, i_);
        dq.row(b) +=
            c_ * own * (Kp_.row(b).segment(h * dh_, dh_) - base_.K.row(i_).segment(h * dh_, dh_));
        dK_.row(b).segment(h * dh_, dh_) += c_ * own * Qp_.row(b).segment(h * dh_, dh_);
        dV_.row(b).segment(h * dh_, dh_) += weights(b, i_) * dy.row(b);
      }
    }
    dE_.setZero(B_, d_);
    const auto dE = result_rows(dE_.data(), B_, d_, d_);
    packed_.query_t.multiply_add(left_rows(dQ_.data(), B_, d_, d_), 0, 1.0, dE, pack_scratch_);
    packed_.key_t.multiply_add(left_rows(dK_.data(), B_, d_, d_), 0, 1.0, dE, pack_scratch_);
    packed_.value_t.multiply_add(left_rows(dV_.data(), B_, d_, d_), 0, 1.0, dE, pack_scratch_);
    if (part_ == TrainedPart::layer) dE_ += Gi;  // the residual X + M
    grads = (dE_ * w_.input.gamma.asDiagonal()).transpose();
  }

  // Q, K and V of the position by head (n × d_h) and their transposes, as the fixed right factors
  // of the products with the points of a call.
  struct HeadFactors {
    FixedRightFactor Q, K, V, Qt, Kt, Vt;
  };
  [[nodiscard]] const HeadFactors& by_head(Index h) const {
    return by_head_[static_cast<std::size_t>(h)];
  }

  const EncoderLayer& w_;               // the model's, which outlives its evaluators
  const TrainedPackedWeights& packed_;  // the same weights, packed (the model's too)
  TrainedPart part_;
  Index i_, n_, d_, H_, dh_;
  double c_;
  TrainedPass base_;  // the plain pass at Δ = 0
  std::vector<HeadFactors> by_head_;
  Vector base_features_;
  Matrix lambda_;   // n × H: λ_jh (row i unused)
  Matrix lambdas_;  // n × B·H: λ_jh at column b·H + h
  Matrix Bj_;       // n × H·d: row j holds B_j0, …, B_j(H−1)
  // The latest call's points (layouts above).
  Index B_ = 0;
  Matrix E_, Qp_, Kp_, Vp_, Yi_, row_i_;  // row_i_: row i of M' without b_O, B × d
  Matrix alpha_, kappa_, up_, att_;
  std::vector<Matrix> row_weights_;  // per head: row i's attention weights, B × n
  RowVector bias_;                   // b_O for every point, 1 × B·d
  TrainedPass point_;                // the whole layer at one point (X with row i moved, M')
  Index laid_out_ = -1;              // the point point_ holds (−1: none since the latest forward)
  // Scratch.
  RowArray t_, one_;  // e^{−|s' − λ|} and 1/(1 + e^{−|s' − λ|}), n × B·H
  Matrix scores_, diffs_, residual_, c_scratch_, G_, g_kappa_, d_scores_, d_up_, g_alpha_, Gi_;
  Matrix offsets_;      // n × d: b_O − M_j of every row (r_j/2 without the terms of α and κ)
  Vector residuals_;    // a block's residuals (trained_row_block.hpp)
  Matrix g_alpha_all_;  // n × B·H: the cotangent of α_jh, column b·H + h
  Matrix dQ_, dK_, dV_, dE_, dYi_, d_row_, grads_;
  // Two products with W_O as one: their left factors stacked, and the result (prepare_points's
  // and finish_backward's, apart so that neither reallocates on every call).
  Matrix stacked_, stacked_out_, grads_stacked_, grads_stacked_out_;
  Matrix d_scores_h_;                       // B × n: the cotangents of s'_jh of one head
  FixedRightFactor::Scratch pack_scratch_;  // a call's left factors, packed
  TrainedBackwardScratch scratch_;
};

}  // namespace

TrainedPackedWeights::TrainedPackedWeights(const EncoderLayer& layer)
    : query(layer.WQ),
      key(layer.WK),
      value(layer.WV),
      output(layer.WO),
      query_t(layer.WQ.transpose()),
      key_t(layer.WK.transpose()),
      value_t(layer.WV.transpose()) {
  const Index dh = layer.d() / layer.heads;
  for (Index h = 0; h < layer.heads; ++h) {
    output_t_by_head.emplace_back(layer.WO.middleRows(h * dh, dh).transpose());
  }
}

std::unique_ptr<PositionEvaluator> make_trained_position_evaluator(
    const EncoderLayer& layer, const TrainedPackedWeights& packed, TrainedPart part,
    const Matrix& U, Index position) {
  return std::make_unique<TrainedPosition>(layer, packed, part, U, position);
}

}  // namespace wordsens
