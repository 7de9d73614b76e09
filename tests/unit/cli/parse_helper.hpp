#pragma once
// Shared by the tests of `wordsens run`'s parser: argv from strings, scratch INI files, and the
// message of the InputError a command line is refused with.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <exception>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cli/config.hpp"

namespace wordsens::cli::testing {

/// argv for parse_run_options; owns the strings argv points into.
class Argv {
 public:
  explicit Argv(std::vector<std::string> args) : args_(std::move(args)) {
    for (auto& arg : args_) pointers_.push_back(arg.data());
    pointers_.push_back(nullptr);  // argv[argc] is a null pointer, as main's
  }
  Argv(const Argv&) = delete;
  Argv& operator=(const Argv&) = delete;

  [[nodiscard]] int argc() const { return static_cast<int>(args_.size()); }
  [[nodiscard]] char** argv() { return pointers_.data(); }

 private:
  std::vector<std::string> args_;
  std::vector<char*> pointers_;
};

/// parse_run_options of `run` followed by `args`.
inline auto parse(const std::vector<std::string>& args) {
  std::vector<std::string> all{"run"};
  all.insert(all.end(), args.begin(), args.end());
  Argv argv(std::move(all));
  return parse_run_options(argv.argc(), argv.argv());
}

/// `--key=value`; an empty value as a separate argument (`--key=` means the same).
inline std::vector<std::string> option(const std::string& key, const std::string& value) {
  if (value.empty()) return {"--" + key, ""};
  return {"--" + key + "=" + value};
}

/// A path in the temporary directory that no other test (or concurrent test process) uses.
inline std::filesystem::path unique_temp_path(const std::string& suffix) {
  static std::atomic<unsigned> counter{0};
  const auto salt = std::random_device{}();
  return std::filesystem::temp_directory_path() /
         ("wordsens_cli_test_" + std::to_string(::getpid()) + "_" + std::to_string(salt) + "_" +
          std::to_string(counter++) + suffix);
}

/// A file with the given bytes, removed when it goes out of scope.
class TempFile {
 public:
  explicit TempFile(const std::string& bytes, const std::string& suffix = ".ini")
      : path_(unique_temp_path(suffix)) {
    std::ofstream out(path_, std::ios::binary);
    out << bytes;
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }

  [[nodiscard]] std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

/// An empty directory, removed when it goes out of scope.
class TempDir {
 public:
  TempDir() : path_(unique_temp_path(".d")) { std::filesystem::create_directories(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }

  [[nodiscard]] std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The message of the InputError `args` are refused with; a test failure (and "") when parsing
/// succeeds or throws anything else, since every bad input must end in exit code 2.
inline std::string usage_error(const std::vector<std::string>& args) {
  try {
    (void)parse(args);
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not an InputError: " << e.what();
    return "";
  }
  ADD_FAILURE() << "accepted";
  return "";
}

/// Expects `args` to be refused with a one-line message that contains every one of `parts`
/// (the offending key or value, so that the user sees what to fix).
inline void expect_usage_error(const std::vector<std::string>& args,
                               const std::vector<std::string>& parts) {
  std::string shown;
  for (const auto& arg : args) shown += " " + arg;
  SCOPED_TRACE("run" + shown);
  const std::string message = usage_error(args);
  EXPECT_FALSE(message.empty());
  EXPECT_FALSE(contains(message, "\n")) << message;
  for (const auto& part : parts) EXPECT_TRUE(contains(message, part)) << message;
}

/// Expects `args` to be refused with one line that starts with `start` (the key as written, or
/// "<file>:<line>: " and the key) and contains every one of `parts`.
inline void expect_usage_line(const std::vector<std::string>& args, const std::string& start,
                              const std::vector<std::string>& parts = {}) {
  std::string shown;
  for (const auto& arg : args) shown += " " + arg;
  SCOPED_TRACE("run" + shown);
  const std::string message = usage_error(args);
  EXPECT_EQ(message.rfind(start, 0), 0u) << "does not start with '" << start << "': " << message;
  EXPECT_FALSE(contains(message, "\n")) << message;
  for (const auto& part : parts) EXPECT_TRUE(contains(message, part)) << message;
}

}  // namespace wordsens::cli::testing
