// A configuration is a regular text file of bounded size, read without waiting on anything: a
// FIFO is refused without waiting for a writer, a read error is bad input, a file larger than
// 1 MiB is refused, a DEL byte and a byte-order mark after the start are named (never echoed),
// and a byte-order mark at the start is accepted.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <csignal>

#include <string>
#include <thread>
#include <vector>

#include "parse_helper.hpp"

namespace wordsens::cli {
namespace {

using testing::expect_usage_error;
using testing::parse;
using testing::TempFile;
using testing::unique_temp_path;

using V = std::vector<Index>;

// A FIFO that a thread writes a valid configuration into as soon as a reader opens it: an
// implementation that reads FIFOs would accept it, so the test fails there instead of hanging.
TEST(ConfigFileKinds, FifoIsRefusedWithoutWaitingForAWriter) {
  const std::string path = unique_temp_path(".fifo").string();
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  // The parser may open the FIFO to look at it and close it again: the writer's open then
  // returns, and a write after that close, before a reader below exists, raises SIGPIPE, which
  // would kill the test process. The write's EPIPE is harmless here.
  std::signal(SIGPIPE, SIG_IGN);
  std::thread writer([&] {
    const int fd = ::open(path.c_str(), O_WRONLY);  // waits for a reader
    if (fd < 0) return;
    const std::string text = "n = 5\n";
    [[maybe_unused]] const ssize_t written = ::write(fd, text.data(), text.size());
    ::close(fd);
  });
  expect_usage_error({path},
                     {"configuration file '" + path + "'", "is not a regular file (a FIFO)"});
  // Release the writer if the parser never opened the FIFO.
  const int reader = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
  writer.join();
  if (reader >= 0) ::close(reader);
  ::unlink(path.c_str());
}

TEST(ConfigFileKinds, ReadErrorIsBadInput) {
  // A regular file of /proc whose read fails (EIO): it used to escape as a C++ library error.
  expect_usage_error({"/proc/self/mem"}, {"cannot read configuration file '/proc/self/mem'"});
}

TEST(ConfigFileKinds, MoreThanOneMebibyteIsRefused) {
  const std::string line(1023, '#');
  std::string text = "n = 5\n";
  while (text.size() <= (1u << 20)) text += line + "\n";
  const TempFile big(text);
  expect_usage_error({big.path()},
                     {"configuration file '" + big.path() + "'", "is larger than 1 MiB"});
  // Just under the limit is read.
  const TempFile fits(text.substr(0, (1u << 20) - 1) + "\n");
  EXPECT_EQ(parse({fits.path()}).study.grid.n, (V{5}));
}

TEST(ConfigFileKinds, DelByteIsNamedWithItsLine) {
  const TempFile del("n = 5\nseed = 1\x7f\n");
  expect_usage_error({del.path()}, {"not a text file", "byte 0x7f (DEL) on line 2"});
}

TEST(ConfigFileKinds, LeadingByteOrderMarkIsAccepted) {
  const TempFile bom("\xef\xbb\xbfn = 5\nseed = 9\n");
  const auto options = parse({bom.path()});
  EXPECT_EQ(options.study.grid.n, (V{5}));
  EXPECT_EQ(options.study.seed, 9u);
}

TEST(ConfigFileKinds, ByteOrderMarkAfterTheStartIsNamed) {
  const TempFile inner("n = 5\n\xef\xbb\xbfseed = 9\n");
  expect_usage_error({inner.path()}, {"byte-order mark (U+FEFF) on line 2"});
  const TempFile twice("\xef\xbb\xbf\xef\xbb\xbfn = 5\n");
  expect_usage_error({twice.path()}, {"byte-order mark (U+FEFF) on line 1"});
}

}  // namespace
}  // namespace wordsens::cli
