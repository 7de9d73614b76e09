// The start-up check of token values (check_token_values) against the check every sample makes
// (embeddings_sample), on the fixture's planted NaN (sequence 3, token 10, coordinate 2), Inf
// (sequence 5, token 0, coordinate 7) and zero token (sequence 1, token 3, coordinates 0..3);
// and the content fingerprint of an embeddings file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "data/embeddings_data_source.hpp"
#include "io/inputs/embeddings_file.hpp"
#include "unit/embeddings_fixture.hpp"

namespace wordsens {
namespace {

std::string good_fixture() { return testing::embeddings_fixture("good.h5"); }

bool refused(const EmbeddingsSource& source, Index sequence, Index n, Index d) {
  EmbeddingsNeeds needs;
  needs.windows[sequence].insert({n, d});
  try {
    check_token_values(source, needs);
    return false;
  } catch (const InputError&) {
    return true;
  }
}

bool sample_refused(const EmbeddingsSource& source, Index sequence, Index n, Index d) {
  try {
    (void)embeddings_sample(source, sequence, n, d);
    return false;
  } catch (const InputError&) {
    return true;
  }
}

TEST(TokenCheck, RefusesExactlyTheWindowsASampleWouldRefuse) {
  const auto file = io::EmbeddingsFile::open(good_fixture());
  int refusals = 0;
  for (Index s = 0; s < file.sequences(); ++s) {
    for (Index n = 1; n <= file.length(s); ++n) {
      for (Index d = 1; d <= file.width(); ++d) {
        const bool expected = sample_refused(file, s, n, d);
        EXPECT_EQ(refused(file, s, n, d), expected)
            << "sequence " << s << ", n " << n << ", d " << d;
        refusals += expected ? 1 : 0;
      }
    }
  }
  EXPECT_GT(refusals, 0);  // the planted values are met
}

TEST(TokenCheck, PlantedValuesOnlyInsideTheirWindows) {
  const auto file = io::EmbeddingsFile::open(good_fixture());
  EXPECT_TRUE(refused(file, 3, 11, 3));   // NaN: token 10, coordinate 2
  EXPECT_FALSE(refused(file, 3, 10, 8));  // token 10 not used
  EXPECT_FALSE(refused(file, 3, 11, 2));  // coordinate 2 not used
  EXPECT_TRUE(refused(file, 5, 1, 8));    // Inf: token 0, coordinate 7
  EXPECT_FALSE(refused(file, 5, 9, 7));
  EXPECT_TRUE(refused(file, 1, 4, 4));  // token 3 zero in coordinates 0..3
  EXPECT_FALSE(refused(file, 1, 4, 5));
  EXPECT_FALSE(refused(file, 1, 3, 4));
  // Several windows of one sequence: any bad one refuses.
  EmbeddingsNeeds needs;
  needs.windows[1] = {{3, 4}, {4, 5}, {4, 2}};
  EXPECT_THROW(check_token_values(file, needs), InputError);
}

TEST(TokenCheck, NeedsListEveryWindowTheTasksUse) {
  const auto file = io::EmbeddingsFile::open(good_fixture());
  // Two gen tasks of N = 2 (three texts each) at d = 2 and d = 5.
  const EmbeddingsNeeds needs = embeddings_needs(file, 8, {{9, 2, 3, 1}, {9, 5, 3, 1}});
  const auto chosen = select_sequences(file, 8, 1, 9, 3);
  ASSERT_EQ(needs.windows.size(), 3u);
  for (const Index s : chosen) {
    EXPECT_EQ(needs.windows.at(s), (std::set<std::pair<Index, Index>>{{9, 2}, {9, 5}}));
  }
}

TEST(EmbeddingsFingerprint, ChangesWithTheContentNotTheName) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("wordsens_fingerprint_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string copy = (dir / "copy.h5").string();
  std::filesystem::copy_file(good_fixture(), copy);
  const std::string original = io::EmbeddingsFile::open(good_fixture()).fingerprint();
  const std::string copied = io::EmbeddingsFile::open(copy).fingerprint();
  const auto content = [](const std::string& f) { return f.substr(f.find("content=")); };
  EXPECT_EQ(content(original), content(copied));
  EXPECT_NE(original.find("size="), std::string::npos);
  EXPECT_NE(original.find(" mtime="), std::string::npos);
  if (std::system("/usr/bin/python3 -c 'import h5py' 2>/dev/null") == 0) {
    ASSERT_EQ(std::system(("/usr/bin/python3 -c \"import h5py; f = h5py.File('" + copy +
                           "', 'r+'); f['tokens'][4, 2, 1] += 1; f.close()\"")
                              .c_str()),
              0);
    EXPECT_NE(content(io::EmbeddingsFile::open(copy).fingerprint()), content(original));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace wordsens
