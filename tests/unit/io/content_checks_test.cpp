// The content checks of a results file (io/integrity/content_checks.cpp, io/h5/global_heap.cpp):
// every dataset carries its checksum and a damaged chunk is named with its rows, record values a
// run cannot write are damage, the task table is compared with its checksum and its plan, and a
// damaged global heap is refused before HDF5 reads a string from it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "io/h5/global_heap.hpp"
#include "io/results_file.hpp"
#include "io_test_support.hpp"

namespace wordsens::io {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace): test helpers

class ContentChecksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  [[nodiscard]] std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // r.h5 of the configuration `config` with every task of `tasks` done; `edit` changes a record
  // before it is appended.
  void write(const std::vector<TaskSpec>& tasks, const std::string& config,
             const std::function<void(WsRecord&)>& edit = {}) {
    auto file = ResultsFile::create(path("r.h5"), provenance(config), tasks, false);
    for (const auto& t : tasks) {
      if (t.experiment == Experiment::ws && edit) {
        WsRecord r = ws_record(t);
        edit(r);
        file.append(r);
      } else {
        append_task(file, t);
      }
    }
  }

  static bool names(const Diagnosis& d, const std::string& words) {
    for (const auto& p : d.problems) {
      if (p.find(words) != std::string::npos) return true;
    }
    return false;
  }

  std::filesystem::path dir_;
};

std::string problems_of(const Diagnosis& d) {
  std::string text;
  for (const auto& p : d.problems) text += p + "\n";
  return text;
}

TEST_F(ContentChecksTest, AValueNoRunWritesIsDamageNamingColumnAndRow) {
  const auto tasks = make_tasks(3, 0);
  write(tasks, config_of(3, 0), [](WsRecord& r) {
    if (r.task_id == 1) r.S = -1;
  });
  const Diagnosis d = check_results(path("r.h5"));
  EXPECT_TRUE(names(d, "/ws/S holds values outside what a run writes (finite, >= 0) (row 1: -1)"))
      << problems_of(d);
  EXPECT_THROW((void)read_results(path("r.h5")), DamagedFileError);
}

TEST_F(ContentChecksTest, APositionPastTheTasksWordsIsDamage) {
  const auto tasks = make_tasks(3, 0);
  write(tasks, config_of(3, 0), [](WsRecord& r) {
    r.examined = {0, 99};
    r.position_S = {1, 1};
  });
  EXPECT_TRUE(names(check_results(path("r.h5")), "/ws/examined_values holds values outside"));
}

TEST_F(ContentChecksTest, ATaskTableThatIsNotThePlanIsDamageAndAnUnplannableConfigANote) {
  auto tasks = make_tasks(3, 3);
  write(tasks, config_of(3, 3));
  EXPECT_FALSE(check_results(path("r.h5")).damaged());
  // A table whose checksum is its own but which its configuration does not plan.
  std::filesystem::remove(path("r.h5"));
  tasks[4].n += 2;
  write(tasks, config_of(3, 3));
  EXPECT_TRUE(
      names(check_results(path("r.h5")),
            "the task table differs from the plan of config_text (row 4: n 12, planned 10)"))
      << problems_of(check_results(path("r.h5")));
  // A configuration this build cannot plan (a key it does not know): the table is not compared.
  std::filesystem::remove(path("r.h5"));
  write(make_tasks(3, 3), "bogus = 1\n" + config_of(3, 3));
  const Diagnosis d = check_results(path("r.h5"));
  EXPECT_FALSE(d.damaged()) << problems_of(d);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0],
            "this wordsens cannot plan the stored configuration (configuration text:1: unknown "
            "key 'bogus' (wordsens run --help lists the keys)), so the task table was not "
            "compared with its plan");
}

// Flips one byte of the file.
void flip(const std::string& path, std::streamoff offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(offset);
  char byte = 0;
  f.read(&byte, 1);
  byte = static_cast<char>(byte ^ 0x10);
  f.seekp(offset);
  f.write(&byte, 1);
}

// The offset of the first occurrence of `bytes` in the file (npos when absent).
std::size_t find(const std::string& path, const std::string& bytes) {
  return file_bytes(path).find(bytes);
}

TEST_F(ContentChecksTest, AFlippedValueIsNamedWithItsDatasetAndRows) {
  const auto tasks = make_tasks(3, 0);
  write(tasks, config_of(3, 0),
        [](WsRecord& r) { r.phi_norm = 1234.5678125; });  // a value easy to find
  const double marker = 1234.5678125;
  const std::string bytes(reinterpret_cast<const char*>(&marker), sizeof marker);
  const std::size_t at = find(path("r.h5"), bytes);
  ASSERT_NE(at, std::string::npos);
  flip(path("r.h5"), static_cast<std::streamoff>(at + 3));
  const Diagnosis d = check_results(path("r.h5"));
  EXPECT_TRUE(names(d, "/ws/phi_norm cannot be read back")) << problems_of(d);
  EXPECT_TRUE(names(d, "rows 0-2")) << problems_of(d);
  try {
    (void)read_results(path("r.h5"));
    ADD_FAILURE() << "read a damaged file";
  } catch (const DamagedFileError& e) {
    EXPECT_NE(std::string(e.what()).find("/ws/phi_norm rows 0-2"), std::string::npos) << e.what();
  }
}

// A page of zeros over a whole chunk and its Fletcher-32 checksum reads back as zeros (chunks
// are one page since 1.6); the row checksums see it, in a row column and in a flat array.
TEST_F(ContentChecksTest, APageOfZerosOverAChunkIsFoundByTheRowChecksums) {
  const auto tasks = make_tasks(3, 0);
  const double in_column = 1234.5678125, in_flat = 8765.4321875;  // values easy to find
  for (const double marker : {in_column, in_flat}) {
    write(tasks, config_of(3, 0), [&](WsRecord& r) {
      r.phi_norm = in_column;
      // A record that keeps its invariants: S is the best position_S, at argmax_position.
      r.S = 2 * in_flat;
      r.examined = {0, 1};
      r.position_S = {r.S, in_flat};
      r.argmax_position = 0;
      r.argmax_set = {0};
    });
    ASSERT_TRUE(check_results(path("r.h5")).problems.empty());
    const std::string bytes(reinterpret_cast<const char*>(&marker), sizeof marker);
    const std::size_t at = find(path("r.h5"), bytes);
    ASSERT_NE(at, std::string::npos);
    {
      std::fstream f(path("r.h5"), std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(at - at % 4096));
      const std::string zeros(4096, '\0');
      f.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
    }
    const Diagnosis d = check_results(path("r.h5"));
    EXPECT_FALSE(names(d, "cannot be read back")) << "Fletcher-32 saw it:\n" << problems_of(d);
    EXPECT_TRUE(names(d, "/ws has rows that do not match their checksum row_crc32"))
        << problems_of(d);
    EXPECT_THROW((void)read_results(path("r.h5")), DamagedFileError);
    std::filesystem::remove(path("r.h5"));
  }
}

TEST_F(ContentChecksTest, NoGlobalHeapInANewFile) {
  write(make_tasks(2, 1), config_of(2, 1));
  EXPECT_EQ(find(path("r.h5"), "GCOL"), std::string::npos);
}

// A file holding one global heap collection of 4096 bytes at offset 64: two strings, then the
// free space; `edit` damages its bytes.
std::string heap_file(const std::filesystem::path& dir,
                      const std::function<void(std::string&)>& edit) {
  std::string bytes(64 + 4096 + 64, 'x');
  std::string heap(4096, '\0');
  const auto put = [&](std::size_t at, std::uint64_t value, int size) {
    for (int i = 0; i < size; ++i) heap[at + i] = static_cast<char>((value >> (8 * i)) & 0xFF);
  };
  heap.replace(0, 4, "GCOL");
  put(4, 1, 1);
  put(8, 4096, 8);
  std::size_t p = 16;
  for (const std::string text : {"wordsens-results", "abc"}) {
    put(p, p == 16 ? 1 : 2, 2);
    put(p + 8, text.size(), 8);
    heap.replace(p + 16, text.size(), text);
    p += 16 + (text.size() + 7) / 8 * 8;
  }
  put(p, 0, 2);
  put(p + 8, 4096 - p, 8);
  if (edit) edit(heap);
  bytes.replace(64, 4096, heap);
  const auto path = (dir / "heap.bin").string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST_F(ContentChecksTest, AWellFormedGlobalHeapPassesAndDamagedSizesAreFound) {
  EXPECT_EQ(detail::global_heap_problem(heap_file(dir_, {})), "");
  const auto problem = [&](const std::function<void(std::string&)>& edit) {
    std::filesystem::remove(dir_ / "heap.bin");
    return detail::global_heap_problem(heap_file(dir_, edit));
  };
  // The size of the first string, as a flipped byte makes it: past the collection's end.
  EXPECT_NE(problem([](std::string& h) {
              h[25] = static_cast<char>(0xFF);
            }).find("object 1 (65296 bytes) runs past the collection's end"),
            std::string::npos);
  // A size off by 8 breaks the chain of objects: the free space no longer ends the collection.
  EXPECT_NE(problem([](std::string& h) { h[24] = static_cast<char>(16 + 8); }), "");
  // Zeroed objects (HDF5 looped for ever on them).
  EXPECT_NE(problem([](std::string& h) { std::fill(h.begin() + 16, h.begin() + 200, '\0'); }), "");
  // The collection's own size.
  EXPECT_NE(problem([](std::string& h) { h[9] = 0x7F; }).find("is impossible"), std::string::npos);
}

}  // namespace
}  // namespace wordsens::io
