// An embeddings path that exists but is not a regular file is named for what it is (a directory,
// a FIFO, a device, a symbolic link loop), at once and in one line: it used to be reported as
// "does not exist" (a FIFO is refused without being opened, which would wait for a writer).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "io/inputs/embeddings_file.hpp"

namespace wordsens {
namespace {

namespace fs = std::filesystem;

// A scratch directory of this test process, removed at the end.
class Scratch {
 public:
  Scratch()
      : path_(fs::temp_directory_path() /
              ("wordsens_embeddings_special_" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  [[nodiscard]] std::string at(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

// open(path) throws InputError, one line, naming the path and containing `part`.
void expect_refused(const std::string& path, const std::string& part) {
  try {
    (void)io::EmbeddingsFile::open(path);
    ADD_FAILURE() << path << ": opened without error";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("embeddings file " + path + ": " + part), std::string::npos) << message;
    EXPECT_EQ(message.find("does not exist"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(EmbeddingsSpecialPath, DirectoryIsNamed) {
  const Scratch scratch;
  fs::create_directory(scratch.at("dir.h5"));
  expect_refused(scratch.at("dir.h5"), "is a directory");
}

TEST(EmbeddingsSpecialPath, FifoIsNamedWithoutWaitingForAWriter) {
  const Scratch scratch;
  ASSERT_EQ(::mkfifo(scratch.at("fifo.h5").c_str(), 0600), 0);
  expect_refused(scratch.at("fifo.h5"), "is not a regular file (a FIFO)");
}

TEST(EmbeddingsSpecialPath, DeviceIsNamed) {
  expect_refused("/dev/zero", "is not a regular file (a character device)");
}

TEST(EmbeddingsSpecialPath, SymbolicLinkLoopIsNamed) {
  const Scratch scratch;
  fs::create_symlink(scratch.at("b.h5"), scratch.at("a.h5"));
  fs::create_symlink(scratch.at("a.h5"), scratch.at("b.h5"));
  expect_refused(scratch.at("a.h5"), "cannot be resolved (too many levels of symbolic links");
}

TEST(EmbeddingsSpecialPath, DanglingLinkSaysSo) {
  const Scratch scratch;
  fs::create_symlink(scratch.at("gone.h5"), scratch.at("link.h5"));
  try {
    (void)io::EmbeddingsFile::open(scratch.at("link.h5"));
    ADD_FAILURE() << "opened without error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is a symbolic link to a file that does not exist"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace wordsens
