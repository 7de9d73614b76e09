#pragma once
// The tiny embeddings files of tests/fixtures/embeddings (make_fixtures.py says what each one
// plants), for the reader's tests in unit/io and the driver's in unit/study.
#include <filesystem>
#include <string>

namespace wordsens::testing {

/// The path of fixture `name`, e.g. "good.h5".
inline std::string embeddings_fixture(const std::string& name) {
  return (std::filesystem::path(__FILE__).parent_path() / ".." / "fixtures" / "embeddings" / name)
      .lexically_normal()
      .string();
}

}  // namespace wordsens::testing
