#pragma once
// What a resume refused for its trials says next. A user who asks an existing study for more
// trials (`--trials 40` on a file of 20) wants those trials added, not the file replaced: the
// way that keeps the verdict rules' level is the study's next planned look, written to a file of
// its own and reported together with the first (docs/VERDICT_RULES.md, "Trials until decided").
#include <string>

namespace wordsens::io {

/// The advice for a resume of `path` whose configuration (`wanted`) differs from the stored one
/// only in trials (and max-trials) and asks for more: the next look's options and file name when
/// the stored study plans looks (max-trials above its trials), or why it cannot take more when
/// it planned one. Empty when the refusal is about anything else.
[[nodiscard]] std::string more_trials_advice(const std::string& path, const std::string& stored,
                                             const std::string& wanted);

}  // namespace wordsens::io
