// printable(): what an error message may echo of the user's text. One line, no byte that a
// terminal acts on or shows as nothing, and every other character (UTF-8 included) unchanged.
#include "core/printable.hpp"

#include <gtest/gtest.h>

#include <string>

namespace wordsens {
namespace {

TEST(Printable, PlainTextAndUtf8AreUnchanged) {
  EXPECT_EQ(printable("results/run 1.h5"), "results/run 1.h5");
  EXPECT_EQ(printable("n ≥ 2 → S_m, données, 単語"), "n ≥ 2 → S_m, données, 単語");
  EXPECT_EQ(printable(""), "");
}

TEST(Printable, LineBreaksAndTabsAreEscaped) {
  EXPECT_EQ(printable("1/3\n"), "1/3\\n");
  EXPECT_EQ(printable("a\r\nb\tc"), "a\\r\\nb\\tc");
}

TEST(Printable, ControlBytesAndDelAreEscaped) {
  EXPECT_EQ(printable("rf\x1b[31m"), "rf\\x1b[31m");
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(printable("seed\x7f"), "seed\\x7f");
}

TEST(Printable, InvisibleCharactersAreEscaped) {
  EXPECT_EQ(printable("\xef\xbb\xbf"
                      "experiments"),
            "\\ufeffexperiments");  // byte-order mark
  EXPECT_EQ(printable("a\xe2\x80\x8b"
                      "b"),
            "a\\u200bb");  // zero-width space
  EXPECT_EQ(printable("\xe2\x80\xae"
                      "txt"),
            "\\u202etxt");  // right-to-left
  EXPECT_EQ(printable("\xc2\x9b"
                      "2J"),
            "\\u009b2J");  // C1 CSI
}

TEST(Printable, BytesThatAreNotUtf8AreEscaped) {
  EXPECT_EQ(printable("caf\xe9"), "caf\\xe9");              // Latin-1
  EXPECT_EQ(printable("\xc3"), "\\xc3");                    // truncated sequence
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(printable("\x80x"), "\\x80x");                  // stray continuation byte
}

TEST(Printable, ResultIsOneLineOfPrintableBytes) {
  std::string all;
  for (int byte = 0; byte < 256; ++byte) all += static_cast<char>(byte);
  const std::string shown = printable(all);
  for (const char ch : shown) {
    const auto byte = static_cast<unsigned char>(ch);
    EXPECT_TRUE(byte >= 0x20 && byte < 0x7f) << "byte " << static_cast<int>(byte);
  }
}

}  // namespace
}  // namespace wordsens
