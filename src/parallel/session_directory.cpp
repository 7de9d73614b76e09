#include "parallel/session_directory.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace wordsens::parallel {
namespace {

namespace fs = std::filesystem;
constexpr std::string_view kPrefix = "wordsens-mpi.";

std::string temporary_directory() {
  for (const char* name : {"TMPDIR", "TEMP", "TMP"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return value;
  }
  return "/tmp";
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

bool process_is_gone(const std::string& digits) {
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != digits.npos)
    return false;
  const auto pid = static_cast<pid_t>(std::stol(digits));
  return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;
}

// The pid is only meaningful on the host that made the directory (TMPDIR may be shared), and
// only our own directories are ours to remove.
void remove_abandoned(const std::string& tmp, const std::string& host) {
  const std::string mine = std::string(kPrefix) + host + ".";
  // Every step with an error code: a sweep that cannot read the directory must not stop a run.
  std::error_code ec;
  for (fs::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    const std::string name = entry.path().filename().string();
    if (name.rfind(mine, 0) != 0) continue;
    const std::string rest = name.substr(mine.size());  // <pid>.XXXXXX
    const auto dot = rest.find('.');
    if (dot == rest.npos || !process_is_gone(rest.substr(0, dot))) continue;
    struct stat info {};
    if (lstat(entry.path().c_str(), &info) != 0 || !S_ISDIR(info.st_mode) ||
        info.st_uid != getuid())
      continue;
    std::error_code ignored;
    fs::remove_all(entry.path(), ignored);
  }
}

}  // namespace

SessionDirectory SessionDirectory::create() {
  if (std::getenv("OMPI_MCA_orte_tmpdir_base") != nullptr) return {};
  const std::string tmp = temporary_directory();
  const std::string host = host_name();
  remove_abandoned(tmp, host);
  std::string path =
      tmp + "/" + std::string(kPrefix) + host + "." + std::to_string(getpid()) + ".XXXXXX";
  if (mkdtemp(path.data()) == nullptr) return {};
  setenv("OMPI_MCA_orte_tmpdir_base", path.c_str(), /*overwrite=*/1);
  return SessionDirectory(std::move(path));
}

void SessionDirectory::remove() {
  if (path_.empty()) return;
  std::error_code ignored;  // a leftover in the temporary directory is no failure of the run
  fs::remove_all(path_, ignored);
  path_.clear();
}

}  // namespace wordsens::parallel
