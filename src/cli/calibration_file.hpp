#pragma once
// The host calibration's file (study/host_calibration.hpp) as the command line finds, reads and
// writes it: `wordsens calibrate` writes it, the run key `calibration` chooses what --dry-run
// reads (auto: the default path when the file exists; none; or a path, which must exist).
#include <optional>
#include <string>

#include "study/host_calibration.hpp"

namespace wordsens::cli {

/// The calibration `setting` (auto, none or a path) names, read and checked; nullopt for none,
/// or for auto without a file. Throws InputError (a missing or malformed file given by path, a
/// malformed default file).
[[nodiscard]] std::optional<HostCalibration> load_calibration(const std::string& setting);

/// Writes `calibration` to `path` whole or not at all (a temporary file renamed into place),
/// creating its folder. Throws InputError when it cannot.
void write_calibration(const HostCalibration& calibration, const std::string& path);

}  // namespace wordsens::cli
