// The `data` key, parsed once: synthetic or embeddings:<path>, and nothing else.
#include "data/data_spec.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "core/errors.hpp"

namespace wordsens {
namespace {

TEST(DataSpec, ReadsBothSourcesAndSpellsThemBack) {
  const DataSpec synthetic = DataSpec::parse("synthetic");
  EXPECT_EQ(synthetic.kind, DataSpec::Kind::synthetic);
  EXPECT_EQ(synthetic.to_string(), "synthetic");
  const DataSpec file = DataSpec::parse("embeddings:/data/glove brown.h5");
  EXPECT_EQ(file.kind, DataSpec::Kind::embeddings);
  EXPECT_EQ(file.path, "/data/glove brown.h5");
  EXPECT_EQ(file.to_string(), "embeddings:/data/glove brown.h5");
  EXPECT_EQ(DataSpec{}.to_string(), "synthetic");
}

TEST(DataSpec, AnythingElseIsAOneLineErrorNamingTheKey) {
  for (const char* bad : {"", "Synthetic", "embeddings:", "embeddings", "file:/x.h5"}) {
    try {
      (void)DataSpec::parse(bad);
      FAIL() << bad;
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("data = '" + std::string(bad) + "': expected ", 0), 0U) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace wordsens
