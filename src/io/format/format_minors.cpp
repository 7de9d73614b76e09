#include "io/format/format_minors.hpp"

namespace wordsens::io::detail {

std::int64_t heads_before_1_8(ModelKind model, std::int64_t config_heads) {
  return traits(model).multi_head ? config_heads : 1;
}

std::int64_t k_before_1_9(ModelKind model, std::int64_t stored_k, std::int64_t d) {
  return traits(model).width == ModelWidth::mlp && stored_k == 0 ? kBlockWidthFactor * d : stored_k;
}

std::int64_t stored_k_before_1_9(ModelKind model, std::int64_t k) {
  return traits(model).width == ModelWidth::mlp ? 0 : k;
}

}  // namespace wordsens::io::detail
