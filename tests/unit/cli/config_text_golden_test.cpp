// The stored configuration text of every shipped study and of a configuration for each key that
// a study names only in some cases, byte for byte as recorded in canonical_texts.golden: a file
// written by any build since then resumes only if its text is the same. Changing how the text is
// made must leave this file as it is. WORDSENS_RECORD_GOLDEN=1 writes it again, for a deliberate
// change of the text (a new key), which a format note then records.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "study/config_text.hpp"
#include "study/study.hpp"

namespace wordsens::cli {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = WORDSENS_SOURCE_DIR;
const fs::path kGolden = kSource / "tests/unit/cli/canonical_texts.golden";

// Each optional key of the text under the condition that makes a study name it, and the
// spellings of the others that differ from their defaults.
const std::vector<std::pair<std::string, std::string>> kVariants = {
    {"defaults", ""},
    {"rf marginal", "models = rf,raf\nrf-sampling = marginal\n"},
    {"marginal without rf", "models = raf\nrf-sampling = marginal\n"},
    {"heads, mlp width and mask",
     "models = mhraf,block\nheads = 1,2\nmlp-width = 2d,64\nmask = causal\nd = 8\n"},
    {"block at the default width", "models = block\nmlp-width = 4d\n"},
    {"mask without attention", "models = rf\nmask = causal\n"},
    {"descriptive", "purpose = descriptive\n"},
    {"encoder", "models = trained_attn,twin_layer\nencoder = enc/folder\nencoder-layer = 3\n"},
    {"encoder without its models", "encoder = enc/folder\nencoder-layer = 2\n"},
    {"race", "race-evaluations = 30\nrace-survivors = 16\n"},
    {"extension", "trials = 5\nfirst-trial = 5\nmax-trials = 20\n"},
    {"selection", "select = model:raf;model:rf,n:20\n"},
    {"words", "words = 1,2\nwords-fraction = 0.25,0.1\nword-sets = random:4\n"},
    {"a fraction alone", "words =\nwords-fraction = 0.5\n"},
    {"one word", "words = 1\nword-sets = greedy\n"},
    {"search",
     "rel-tol = 1e-9\nbudget-check = 2\nupper-bound = false\nguided-start = false\n"
     "max-evals = 40\nsphere-starts = 3\nmin-total-sphere-starts = 12\n"
     "near-origin-starts = 0\nscreen-points = 16\npositions = random:3\n"},
    {"gen",
     "experiments = ws,gen\ngen-models = raf\ngen-n = 4,8\ngen-d = 16\nN = 5,7\n"
     "training = finetune\nobjective = align\n"},
    {"widths and depth", "k = 0.5D,80,1:3:lin3\nlayers = 1,3\nactivation = tanh\nn = 8:64:log4\n"},
    {"data and witness",
     "data = embeddings:some/file.h5\nsave-witness = true\nseed = 4294967295\n"},
};

std::vector<fs::path> shipped_configs() {
  std::vector<fs::path> configs;
  for (const auto& entry : fs::directory_iterator(kSource / "jobs/configs")) {
    if (entry.path().extension() == ".ini") configs.push_back(entry.path());
  }
  std::sort(configs.begin(), configs.end());
  return configs;
}

// Every text, each after a header line naming where it comes from.
std::string all_texts() {
  std::string out;
  for (const auto& config : shipped_configs()) {
    out += "### jobs/configs/" + config.filename().string() + "\n";
    std::ifstream in(config, std::ios::binary);
    std::ostringstream file;
    file << in.rdbuf();
    out += canonical_text(study_of_config_text(file.str()));
  }
  for (const auto& [name, text] : kVariants) {
    out += "### " + name + "\n" + canonical_text(study_of_config_text(text));
  }
  return out;
}

TEST(ConfigTextGolden, EveryTextIsTheRecordedOneByteForByte) {
  const std::string texts = all_texts();
  if (const char* record = std::getenv("WORDSENS_RECORD_GOLDEN"); record && *record == '1') {
    std::ofstream(kGolden, std::ios::binary) << texts;
    GTEST_SKIP() << "recorded " << kGolden;
  }
  std::ifstream in(kGolden, std::ios::binary);
  ASSERT_TRUE(in) << kGolden;
  std::ostringstream golden;
  golden << in.rdbuf();
  EXPECT_EQ(texts, golden.str());
}

TEST(ConfigTextGolden, EveryShippedConfigurationIsRecorded) {
  std::ifstream in(kGolden, std::ios::binary);
  std::ostringstream golden;
  golden << in.rdbuf();
  for (const auto& config : shipped_configs()) {
    EXPECT_NE(golden.str().find("### jobs/configs/" + config.filename().string() + "\n"),
              std::string::npos)
        << config;
  }
}

}  // namespace
}  // namespace wordsens::cli
