// analysis/FORMAT.md stays true: its Python examples run (with h5py and pandas) on a real file,
// and every dataset the file has is named on that page.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "io/results_file.hpp"
#include "io/schema.hpp"
#include "io_test_support.hpp"

namespace wordsens::io {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace): test helpers

std::string format_md() {
  const auto path = std::filesystem::path(__FILE__).parent_path() / "../../../analysis/FORMAT.md";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(FormatDoc, PythonExamplesRunOnARealFile) {
  if (std::system("/usr/bin/python3 -c 'import h5py, pandas' 2>/dev/null") != 0) {
    GTEST_SKIP() << "h5py and pandas are needed";
  }
  const std::string doc = format_md();
  ASSERT_FALSE(doc.empty());
  const auto dir = scratch_dir("format_doc");
  const auto tasks = make_tasks(6, 3);
  {
    auto file =
        ResultsFile::create((dir / "results.h5").string(), provenance(kConfig, true), tasks, false);
    for (const auto& t : tasks) append_task(file, t);
    file.write_summaries();
  }
  const std::regex block("```python\n([\\s\\S]*?)```");
  int blocks = 0;
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), block); it != std::sregex_iterator();
       ++it) {
    const auto script = dir / ("example" + std::to_string(blocks++) + ".py");
    std::ofstream(script) << (*it)[1].str();
    const std::string cmd =
        "cd " + dir.string() + " && /usr/bin/python3 " + script.string() + " > /dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << (*it)[1].str();
  }
  EXPECT_GE(blocks, 2);
  // Every dataset in the file is documented (h5ls lists them).
  const std::string list = (dir / "list.txt").string();
  ASSERT_EQ(std::system(("h5ls -r " + (dir / "results.h5").string() + " > " + list).c_str()), 0);
  std::ifstream in(list);
  std::string name, kind;
  int datasets = 0;
  while (in >> name >> kind) {
    std::string rest;
    std::getline(in, rest);
    if (kind != "Dataset") continue;
    ++datasets;
    const std::string leaf = name.substr(name.rfind('/') + 1);
    const bool documented =
        doc.find("`" + leaf + "`") != std::string::npos ||
        doc.find("`" + leaf.substr(0, leaf.find('_')) + "_<stat>`") != std::string::npos ||
        std::regex_search(leaf, std::regex("^(S|S_upper|E|D1)_(mean|std|sem|median|q05|q95)$"));
    EXPECT_TRUE(documented) << name << " is not in FORMAT.md";
  }
  EXPECT_GT(datasets, 50);
  // Every root attribute and the format constants are on the page.
  namespace a = schema::attr;
  for (const char* attribute : {a::kFileType, a::kFormatVersion, a::kSoftwareVersion, a::kGitSha,
                                a::kCreatedUtc, a::kCommandLine, a::kMpiRanks, a::kMasterSeed,
                                a::kConfigText, a::kConfigHash, a::kSaveWitness, a::kMergedFrom}) {
    EXPECT_NE(doc.find(std::string("| `") + attribute + "`"), std::string::npos) << attribute;
  }
  EXPECT_NE(doc.find(std::string("`filetype = \"") + schema::kFileType + "\"`, format " +
                     std::to_string(schema::kFormatMajor) + "." +
                     std::to_string(schema::kFormatMinor) + ")"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace wordsens::io
