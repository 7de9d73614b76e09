#pragma once
// The models wordsens knows, as kinds with their traits. The traits of each kind sit in its row
// of the model catalogue (models/registry.cpp), with its class, size check and costs; a name is
// read only where text comes in (the configuration, a results file's task table) and written
// only where it goes out, and every layer between asks the traits. Adding a model is a kind here
// and a row there (docs/EXTENDING.md).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wordsens {

enum class ModelKind : std::uint8_t {
  rf,
  drf,
  raf,
  raf_relu,
  raf_v,
  mhraf,
  block,
  trained_attn,
  twin_attn,
  trained_layer,
  twin_layer
};

/// What a model's width k is, and which grid of the study gives it (a task's k; 0 without one).
enum class ModelWidth : std::uint8_t {
  none,      // attention without an MLP (raf, raf_relu, raf_v, mhraf): no width
  features,  // rf, drf: k random features (per layer), from the `k` grid
  mlp,       // block: the width of its MLP, from the `mlp-width` grid
};

/// The default MLP width of block (`mlp-width = 4d`, the common transformer choice), as a
/// multiple of d; every block of a results file before format 1.9 ran this width.
inline constexpr int kBlockWidthFactor = 4;

/// A catalogue row's traits, written with designated initializers (models/registry.cpp): what a
/// row leaves out is false, 0 or none.
struct ModelTraits {
  ModelKind kind;
  std::string_view name;
  /// raf, raf_relu: φ(X) has n·d coordinates (random features have k); their positions share
  /// the sample's products, so their searches start from more sphere points in all.
  bool attention = false;
  /// drf: a depth L (the `layers` grid).
  bool deep = false;
  /// rf: its weights may be drawn by the marginal sampler (rf-sampling = marginal).
  bool marginal_sampler = false;
  /// The sphere ascents a ws search runs at least, in all, spread over the examined positions
  /// (min-total-sphere-starts = auto). Attention's f_i has many local maxima: with few positions
  /// (positions = first) two ascents often stop at a poor one (raf, n = 250, d = 768: below a
  /// single plain random-start ascent in 3 of 10 instances), hence 32. rf's guided start (top
  /// singular vector of V_i) already finds the top basin (32 starts change S by < 1e-4 relative
  /// at n = 40, d = 64), and each of its evaluations reads all of V_i (k·d): none; drf alike.
  int min_total_sphere_starts = 0;
  /// mhraf, block: several attention heads (the `heads` key).
  bool multi_head = false;
  /// rf, drf: k features; block: its MLP's width.
  ModelWidth width = ModelWidth::none;
  /// trained_attn, trained_layer and their twins: a layer of a pretrained encoder (the
  /// `encoder` and `encoder-layer` keys), whose width d and heads the encoder fixes.
  bool encoder = false;
};

/// Every model's traits, in the canonical order of studies and files (rf, drf, raf, raf_relu,
/// then the models beyond the paper), which is the order of ModelKind: the catalogue's rows
/// (models/registry.cpp).
[[nodiscard]] std::span<const ModelTraits> all_models();

/// The kind called `name`, or nothing for an unknown name.
[[nodiscard]] std::optional<ModelKind> find_model(std::string_view name);

/// The kind called `name`; InputError naming the known models for an unknown name.
[[nodiscard]] ModelKind model_kind(std::string_view name);

[[nodiscard]] const ModelTraits& traits(ModelKind kind);

/// The kind's name, as the configuration, the results file and messages spell it.
[[nodiscard]] std::string to_string(ModelKind kind);

/// Every model's name, in the canonical order (for parsing a list of names).
[[nodiscard]] const std::vector<std::string>& model_names();

/// The kinds called `names` (each a known name, else InputError), in the same order.
[[nodiscard]] std::vector<ModelKind> model_kinds(const std::vector<std::string>& names);

/// The names of `kinds`, in the same order.
[[nodiscard]] std::vector<std::string> model_names(const std::vector<ModelKind>& kinds);

/// "rf, drf, raf, raf_relu" (for messages).
[[nodiscard]] std::string known_model_list(std::string_view separator = ", ");

}  // namespace wordsens
