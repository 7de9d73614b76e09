// A configuration path that is not a readable text file is refused with one line naming it, so
// that no raw bytes of a binary file reach the terminal.
#include <gtest/gtest.h>

#include <string>

#include "parse_helper.hpp"

namespace wordsens::cli {
namespace {

using testing::expect_usage_error;
using testing::TempDir;
using testing::TempFile;
using testing::unique_temp_path;

TEST(ConfigFileErrors, Directory) {
  const TempDir dir;
  expect_usage_error({dir.path()}, {"configuration file '" + dir.path() + "' is a directory"});
}

TEST(ConfigFileErrors, MissingFile) {
  const std::string path = unique_temp_path(".ini").string();
  expect_usage_error({path}, {"cannot read configuration file '" + path + "'"});
  expect_usage_error({""}, {"cannot read configuration file ''"});
}

TEST(ConfigFileErrors, ControlBytesNameTheByteAndTheLine) {
  const TempFile soh("n = 5\nseed = 1\x01\n");
  expect_usage_error({soh.path()}, {"configuration file '" + soh.path() + "'", "not a text file",
                                    "byte 0x01 on line 2"});
  const TempFile nul(std::string("\0\0\0\x01", 4));
  expect_usage_error({nul.path()}, {"byte 0x00 on line 1"});
  const TempFile escape("# colours\n\n\n\x1b[31mn = 5\n");
  expect_usage_error({escape.path()}, {"byte 0x1b on line 4"});
}

// A missing file is reported even when a value on the command line is also bad: the file is
// read before the values are checked.
TEST(ConfigFileErrors, FileIsReadBeforeValuesAreChecked) {
  const std::string path = unique_temp_path(".ini").string();
  expect_usage_error({path, "--seed=-1"}, {"cannot read configuration file"});
}

}  // namespace
}  // namespace wordsens::cli
