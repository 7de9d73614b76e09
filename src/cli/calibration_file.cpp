#include "cli/calibration_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.hpp"

namespace wordsens::cli {

std::optional<HostCalibration> load_calibration(const std::string& setting) {
  if (setting == "none") return std::nullopt;
  const bool automatic = setting == "auto";
  const std::string path = automatic ? default_calibration_path() : setting;
  if (path.empty()) return std::nullopt;
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    if (automatic) return std::nullopt;
    throw InputError("calibration = '" + path + "': no such file (write it with `wordsens " +
                     "calibrate --output=" + path + "`)");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) throw InputError(path + ": cannot be read");
  return HostCalibration::parse(text.str(), path);
}

void write_calibration(const HostCalibration& calibration, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), error);
  const fs::path temporary = target.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << calibration.text();
    out.flush();
    if (!out) {
      fs::remove(temporary, error);
      throw InputError(path + ": cannot be written");
    }
  }
  fs::rename(temporary, target, error);
  if (error) {
    const std::string why = error.message();
    fs::remove(temporary, error);
    throw InputError(path + ": cannot be written (" + why + ")");
  }
}

}  // namespace wordsens::cli
