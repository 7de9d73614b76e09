// analysis/FORMAT.md stays true: its Python examples run (with h5py and pandas) on a real file,
// and every dataset the file has is named on that page.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "io/format/schema.hpp"
#include "io/results_file.hpp"
#include "io_test_support.hpp"
#include "study/record_invariants.hpp"

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
    auto file = ResultsFile::create((dir / "results.h5").string(),
                                    provenance(config_of(6, 3), true), tasks, false);
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
  for (const char* attribute :
       {a::kFileType, a::kFormatVersion, a::kSoftwareVersion, a::kGitSha, a::kCreatedUtc,
        a::kCommandLine, a::kMpiRanks, a::kMasterSeed, a::kConfigText, a::kConfigHash,
        a::kSaveWitness, a::kMergedFrom, a::kBuilds}) {
    EXPECT_NE(doc.find(std::string("| `") + attribute + "`"), std::string::npos) << attribute;
  }
  EXPECT_NE(doc.find(std::string("`filetype = \"") + schema::kFileType + "\"`, format " +
                     std::to_string(schema::kFormatMajor) + "." +
                     std::to_string(schema::kFormatMinor) + ")"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

// The text between a generated block's two markers; a missing marker fails the test, naming it.
std::string generated_block(const std::string& doc, const std::string& begin,
                            const std::string& end) {
  const auto b = doc.find(begin);
  if (b == std::string::npos) {
    ADD_FAILURE() << "no marker: " << begin;
    return {};
  }
  const auto e = doc.find(end, b);
  if (e == std::string::npos) {
    ADD_FAILURE() << "no marker: " << end;
    return {};
  }
  return doc.substr(b + begin.size(), e - b - begin.size());
}

// The column tables of FORMAT.md are the schemas the writer uses (study/record_fields.cpp and
// io/format/layout.cpp), not a copy that can drift: each sits between two markers and must equal
// column_table_markdown(group) to the letter.
TEST(FormatDoc, ColumnTablesAreTheWritersSchemas) {
  const std::string doc = format_md();
  for (const std::string group : {"/tasks", "/ws", "/gen", "/witness", "/models"}) {
    const std::string begin = "<!-- columns of " + group +
                              ": generated from the writer's schema "
                              "(tests/unit/io/format_doc_test.cpp compares them) -->\n";
    const std::string end = "<!-- end of the columns of " + group + " -->";
    const std::string block = generated_block(doc, begin, end);
    const std::string expected = column_table_markdown(group);
    EXPECT_EQ(block, expected) << "the block of " << group
                               << " in analysis/FORMAT.md must read (wordsens info --columns "
                               << group << " prints it):\n"
                               << expected;
  }
}

// The keys of /config in FORMAT.md are the study's settings with the kinds the writer stores
// (study/study_settings.cpp; the analysis reader's kinds are compared with the same block by
// tests/python/test_stored_config.py).
TEST(FormatDoc, TheKeysOfConfigAreTheStudysSettings) {
  const std::string doc = format_md();
  const std::string begin =
      "<!-- keys of /config: generated from study/study_settings.cpp "
      "(tests/unit/io/format_doc_test.cpp compares them) -->\n";
  const std::string end = "<!-- end of the keys of /config -->";
  const std::string block = generated_block(doc, begin, end);
  EXPECT_EQ(block, stored_config_markdown()) << "the block in analysis/FORMAT.md must read:\n"
                                             << stored_config_markdown();
}

// The invariants of a record in FORMAT.md are the ones every reader checks
// (study/record_invariants.cpp; the Python reader's list is compared with the same block by
// tests/python/test_record_invariants.py).
TEST(FormatDoc, TheInvariantsOfARecordAreTheReadersRules) {
  const std::string doc = format_md();
  const std::string begin =
      "<!-- invariants of a record: generated from study/record_invariants.cpp "
      "(tests/unit/io/format_doc_test.cpp compares them) -->\n";
  const std::string end = "<!-- end of the invariants of a record -->";
  const std::string block = generated_block(doc, begin, end);
  EXPECT_EQ(block, record_invariants_markdown()) << "the block in analysis/FORMAT.md must read:\n"
                                                 << record_invariants_markdown();
}

// The analysis reader knows which format added each dataset, table and attribute (names.SINCE_*),
// as the writer's layout states it (format_additions): both refuse a file holding one that its
// format_version predates.
TEST(FormatDoc, TheAnalysisReaderKnowsTheFormatOfEachDataset) {
  if (!has_h5py()) GTEST_SKIP() << "the analysis package needs h5py";
  std::set<std::string> expected;
  for (const auto& [name, since] : format_additions()) {
    expected.insert(name + " " + std::to_string(since));
  }
  const auto dir = scratch_dir("format_since");
  const auto analysis = std::filesystem::path(__FILE__).parent_path() / "../../../analysis";
  const std::string out = (dir / "since.txt").string();
  const std::string cmd = "/usr/bin/python3 -c \"import sys; sys.path.insert(0, '" +
                          analysis.string() +
                          "'); from wordsens_analysis.reading import schema as names\n"
                          "for k, v in names.SINCE_MINOR.items():\n"
                          "    if k.split('/')[0] not in names.SINCE_MINOR_TABLES: print(k, v)\n"
                          "for k, v in names.SINCE_MINOR_TABLES.items(): print(k, v)\n"
                          "for k, v in names.SINCE_MINOR_ATTRS.items(): print('@' + k, v)\" > " +
                          out;
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(out);
  std::set<std::string> python;
  for (std::string line; std::getline(in, line);) python.insert(line);
  EXPECT_EQ(python, expected);
  std::filesystem::remove_all(dir);
}

// Every dataset of a real file names its unit and meaning (the file describes itself).
TEST(FormatDoc, EveryDatasetCarriesUnitAndMeaning) {
  if (!has_h5py()) {
    GTEST_SKIP() << "h5py is needed";
  }
  const auto dir = scratch_dir("format_attrs");
  const std::string path = (dir / "results.h5").string();
  {
    auto file =
        ResultsFile::create(path, provenance(config_of(3, 3), true), make_tasks(3, 3), false);
    for (const auto& t : make_tasks(3, 3)) append_task(file, t);
  }
  const std::string script =
      "import h5py, sys\n"
      "bad = []\n"
      "def visit(name, obj):\n"
      "    if isinstance(obj, h5py.Dataset) and not ('unit' in obj.attrs and 'meaning' in "
      "obj.attrs and len(obj.attrs['meaning']) > 5):\n"
      "        bad.append(name)\n"
      "with h5py.File(sys.argv[1], 'r', libver='latest', swmr=True) as f:\n"
      "    f.visititems(visit)\n"
      "sys.exit(1 if bad else 0) if not print(bad) else None\n";
  std::ofstream(dir / "check.py") << script;
  EXPECT_EQ(std::system(("/usr/bin/python3 " + (dir / "check.py").string() + " " + path).c_str()),
            0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace wordsens::io
