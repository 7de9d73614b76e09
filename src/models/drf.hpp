#pragma once
// drf (SPEC §2): h_1 = ϕ(V_1 vec(X)), h_l = ϕ(V_l h_{l−1}), φ = h_L; V_1 ∈ R^{k×D} iid N(0, 2/D),
// V_l ∈ R^{k×k} iid N(0, 2/k); V_l is weight matrix l − 1 of the task.
//
// The layers are kept in memory: 8·(k·D + (L−1)·k²) bytes, refused above kMaxWeightBytes.
#include <mutex>
#include <vector>

#include "models/feature_map.hpp"

namespace wordsens {

class DeepRandomFeatures final : public FeatureMap {
 public:
  /// 8 GiB: above this, the constructor throws std::invalid_argument.
  static constexpr double kMaxWeightBytes = 8.0 * 1024 * 1024 * 1024;

  /// Bytes the layers take: 8·(k·D + (L−1)·k²).
  [[nodiscard]] static double weight_bytes(const ModelSpec& spec);

  DeepRandomFeatures(ModelSpec spec, WeightKey key);

  [[nodiscard]] const ModelSpec& spec() const override { return spec_; }
  [[nodiscard]] Index feature_dim() const override { return spec_.k; }
  [[nodiscard]] Vector features(const Matrix& X) const override;
  /// Precomputes a_1 = V_1 vec(X); each evaluation then costs O(k·d + (L−1)·k²).
  [[nodiscard]] std::unique_ptr<PositionEvaluator> at_position(const Matrix& X,
                                                               Index position) const override;
  /// The top right-singular vector of V_1's column block of word i.
  [[nodiscard]] std::optional<Vector> guided_direction(const Matrix& X,
                                                       Index position) const override;

  [[nodiscard]] const std::vector<Matrix>& layers() const { return layers_; }

 private:
  void check_sample(const Matrix& X) const;

  ModelSpec spec_;
  WeightKey key_;
  std::vector<Matrix> layers_;  // V_1 … V_L
  // a_1 = V_1 vec(X) of the latest sample (compared bitwise): at_position for every word of one
  // text then reads V_1 once, not n times.
  mutable std::mutex cache_mutex_;
  mutable Matrix cached_X_;
  mutable Vector cached_a1_;
  [[nodiscard]] Vector first_preactivation(const Matrix& X) const;
};

}  // namespace wordsens
