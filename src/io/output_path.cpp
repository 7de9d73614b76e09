#include "io/output_path.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/errors.hpp"
#include "io/files/file_lock.hpp"
#include "io/format/layout.hpp"

namespace wordsens::io::detail {

namespace fs = std::filesystem;

namespace {

constexpr const char* kTemporaryInfix = ".tmp-";
// Room the longest suffix needs: ".tmp-" and a pid of up to 10 digits (".lock" is shorter).
constexpr std::size_t kSuffixRoom = 15;

std::string directory_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

}  // namespace

void check_output_path(const std::string& path) {
  if (path.empty()) throw InputError("the output path is empty");
  const std::string name = fs::path(path).filename().string();
  if (name.empty()) throw InputError("the output " + path + " names a directory, not a file");
  const std::string directory = directory_of(path);
  long name_max = ::pathconf(directory.c_str(), _PC_NAME_MAX);
  if (name_max <= 0) name_max = NAME_MAX;
  const auto room = static_cast<std::size_t>(name_max);
  if (name.size() + kSuffixRoom > room) {
    throw InputError("the output file name '" + name.substr(0, 40) +
                     "…' is too long: " + std::to_string(name.size()) + " bytes, at most " +
                     std::to_string(room - kSuffixRoom) + " here (" + std::to_string(room) +
                     " less room for '.tmp-<pid>')");
  }
  if (path.size() + kSuffixRoom >= PATH_MAX) {
    throw InputError("the output path is too long: " + std::to_string(path.size()) +
                     " bytes, at most " + std::to_string(PATH_MAX - kSuffixRoom - 1));
  }
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    throw InputError("cannot write " + path + ": directory " + directory + " does not exist");
  }
}

std::string replaced_file(const std::string& path) {
  std::error_code error;
  if (!fs::is_symlink(fs::symlink_status(path, error))) return path;
  if (!fs::is_regular_file(fs::status(path, error))) return path;
  const fs::path target = fs::canonical(path, error);
  return error ? path : target.string();
}

std::string temporary_path(const std::string& path) {
  return path + kTemporaryInfix + std::to_string(::getpid());
}

std::vector<std::string> remove_stale_temporaries(const std::string& path) {
  const std::string prefix = fs::path(path).filename().string() + kTemporaryInfix;
  std::vector<std::string> removed;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory_of(path), error)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    if (!std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
                     [](char ch) { return ch >= '0' && ch <= '9'; })) {
      continue;
    }
    std::error_code type_error;
    if (!entry.is_regular_file(type_error)) continue;
    try {
      const FileLock lock(entry.path().string());  // throws while its creator is alive
      std::error_code remove_error;
      if (fs::remove(entry.path(), remove_error)) removed.push_back(entry.path().string());
    } catch (const InputError&) {
      continue;  // a live process is building it
    }
  }
  return removed;
}

void check_replaceable(const std::string& path) {
  const std::string advice = "; --overwrite replaces only a wordsens results file";
  std::error_code error;
  const auto status = fs::status(path, error);
  if (fs::is_directory(status)) {
    throw InputError("refusing to overwrite " + path + ": it is a directory" + advice);
  }
  if (!fs::is_regular_file(status)) {
    throw InputError("refusing to overwrite " + path + ": it is not a regular file" + advice);
  }
  try {
    (void)open_checked(path, h5::Access::read);
  } catch (const InputError& e) {
    throw InputError("refusing to overwrite " + path + ": " + e.what() + advice);
  } catch (const std::exception&) {
    throw InputError("refusing to overwrite " + path +
                     ": it cannot be read as a wordsens results file (damaged?); remove it "
                     "yourself if it should go");
  }
  if (FileLock::held_elsewhere(path)) {
    throw InputError("refusing to overwrite " + path + ": another live process is writing it");
  }
}

void publish(const std::string& temporary, const std::string& path, bool replace) {
  const auto fail = [&](int error) {
    throw std::runtime_error("cannot rename " + temporary + " to " + path + ": " +
                             std::strerror(error));
  };
  const auto appeared = [&] {
    return InputError(path +
                      " appeared while this process was creating it (another program wrote it "
                      "meanwhile); it was left alone");
  };
  if (replace) {
    if (::rename(temporary.c_str(), path.c_str()) != 0) fail(errno);
    return;
  }
  if (::renameat2(AT_FDCWD, temporary.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) {
    return;
  }
  if (errno == EEXIST) throw appeared();
  if (errno != EINVAL && errno != ENOSYS) fail(errno);
  // A file system without RENAME_NOREPLACE: link() refuses an existing target just the same.
  if (::link(temporary.c_str(), path.c_str()) != 0) {
    if (errno == EEXIST) throw appeared();
    fail(errno);
  }
  ::unlink(temporary.c_str());
}

}  // namespace wordsens::io::detail
