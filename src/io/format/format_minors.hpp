#pragma once
// The C++ readers' decoders of the task table's older format minors, one per minor that changed
// what /tasks holds (analysis/FORMAT.md, "Changes"; the analysis reader's counterpart is
// wordsens_analysis/reading/format_minors.py). read_tasks reads the columns a file has and gives
// each task what a writer of the file's minor meant; the task table's checksum covers the table
// as that writer stored it (stored_k). The round trips: tests/python/test_format_minors.py makes
// files of each older minor from a current one, and `wordsens info --check` finds each decoded
// table the plan of its configuration.
#include <cstdint>

#include "models/shared/model_kind.hpp"

namespace wordsens::io::detail {

/// 1.4 added /tasks/words: before, every task changed one word.
inline constexpr std::int64_t kWordsBefore_1_4 = 1;

/// 1.8 added /tasks/heads: before, a multi-head model ran the configuration's one `heads`
/// (`config_heads`), every other model one head.
[[nodiscard]] std::int64_t heads_before_1_8(ModelKind model, std::int64_t config_heads);

/// 1.9 stores block's MLP width as its k: before, an MLP model's k was 0 and its MLP
/// kBlockWidthFactor·d wide. Any other k is as stored.
[[nodiscard]] std::int64_t k_before_1_9(ModelKind model, std::int64_t stored_k, std::int64_t d);

/// The k a writer before 1.9 stored for a task (what its checksum covers): 0 for an MLP model.
[[nodiscard]] std::int64_t stored_k_before_1_9(ModelKind model, std::int64_t k);

}  // namespace wordsens::io::detail
