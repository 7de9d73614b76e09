// `wordsens info FILE`: what a results file holds and how complete it is. Read-only; works on a
// file that is being written or whose writer was killed.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/errors.hpp"
#include "core/printable.hpp"
#include "io/format/build_provenance.hpp"
#include "io/results_file.hpp"

namespace wordsens::cli {

namespace po = boost::program_options;

namespace {

std::string percent(std::size_t done, std::size_t total) {
  char text[32];
  std::snprintf(
      text, sizeof text, "%.1f%%",
      total == 0 ? 100.0 : 100.0 * static_cast<double>(done) / static_cast<double>(total));
  return text;
}

// Text a file holds (its attributes, its configuration, names in its tables) is anyone's: each
// line of it is printed with printable(), so that an escape sequence in a file name the
// command line recorded, or in a crafted attribute, shows as \x1b instead of reaching the
// terminal. `prefix` starts every line after the first (a multi-line attribute stays indented).
std::string lines_of(const std::string& text, const std::string& prefix = "") {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += (start == 0 ? "" : prefix) +
           printable(std::string_view(text).substr(start, end - start)) + "\n";
    start = end + 1;
  }
  return out;
}

void print(const std::string& path, const io::FileContents& c, bool show_config) {
  std::size_t done = 0;
  for (auto flag : c.done) done += flag != 0 ? 1 : 0;
  std::cout << "file:          " << printable(path) << "\n"
            << "filetype:      " << printable(c.filetype) << " " << c.format_major << "."
            << c.format_minor << "\n"
            << "software:      wordsens " << printable(c.software_version) << " (git "
            << printable(c.git_sha) << ")\n"
            << "build:         " << (c.build.empty() ? "(not recorded)" : printable(c.build))
            << "\n";
  if (!c.builds.empty()) {
    // A merge of several builds (--allow-mixed-builds): which one computed which records.
    const auto builds = io::builds_of(c);
    std::cout << "builds:        " << builds.size() << " (records of several builds)\n";
    for (const auto& b : builds) {
      std::cout << "  " << printable(io::describe(b.id)) << ": " << b.tasks.size() << " tasks ("
                << io::task_ranges(b.tasks) << ")\n";
    }
  }
  std::cout << "created (UTC): " << printable(c.created_utc) << "\n"
            << "command line:  " << printable(c.provenance.command_line) << "\n"
            << "mpi ranks:     " << c.provenance.mpi_ranks << "\n"
            << "master seed:   " << c.provenance.master_seed << "\n"
            << "config hash:   " << printable(c.config_hash) << "\n"
            << "inputs:        "
            << (c.provenance.input_fingerprints.empty()
                    ? std::string("(none recorded)\n")
                    : lines_of(c.provenance.input_fingerprints, "               "))
            << "save witness:  " << (c.provenance.save_witness ? "yes" : "no") << "\n"
            << "tasks done:    " << done << "/" << c.tasks.size() << " ("
            << percent(done, c.tasks.size()) << ")\n"
            << "rows:          ws " << c.ws.size() << ", gen " << c.gen.size()
            << ", witness arrays " << c.array_count << "\n";

  // Per experiment and model, then per grid point.
  std::map<std::pair<std::string, std::string>, std::pair<std::size_t, std::size_t>> by_model;
  using Point = std::tuple<std::string, std::string, long long, long long, long long, long long,
                           int, int, long long, std::uint32_t>;
  std::map<Point, std::pair<std::size_t, std::size_t>> by_point;
  for (std::size_t i = 0; i < c.tasks.size(); ++i) {
    const TaskSpec& t = c.tasks[i];
    const std::size_t d = c.done[i] != 0 ? 1 : 0;
    auto& m = by_model[{to_string(t.experiment), to_string(t.model)}];
    m.first += d;
    ++m.second;
    auto& p = by_point[{to_string(t.experiment), to_string(t.model), static_cast<long long>(t.n),
                        static_cast<long long>(t.d), static_cast<long long>(t.k),
                        static_cast<long long>(t.N), t.layers, t.heads,
                        static_cast<long long>(t.words), t.point_id}];
    p.first += d;
    ++p.second;
  }
  // The model column is as wide as the longest name (9 for the paper's models, so their listings
  // keep their layout; trained_layer needs 13).
  int model_width = 9;
  for (const auto& entry : by_model) {
    model_width = std::max(model_width, static_cast<int>(entry.first.second.size()));
  }
  std::cout << "\nper experiment and model (done/total):\n";
  for (const auto& [key, counts] : by_model) {
    std::printf("  %-4s %-*s %7zu/%-7zu %6s\n", key.first.c_str(), model_width, key.second.c_str(),
                counts.first, counts.second, percent(counts.first, counts.second).c_str());
  }
  std::cout << std::flush << "\nper grid point (done/total):\n";
  std::printf("  %-4s %-*s %7s %6s %9s %7s %3s %3s %5s %15s\n", "exp", model_width, "model", "n",
              "d", "k", "N", "L", "H", "m", "done/total");
  for (const auto& [key, counts] : by_point) {
    const auto& [experiment, model, n, d, k, N, L, H, m, point] = key;
    (void)point;
    std::printf("  %-4s %-*s %7lld %6lld %9lld %7lld %3d %3d %5lld %7zu/%-7zu\n",
                experiment.c_str(), model_width, model.c_str(), n, d, k, N, L, H, m, counts.first,
                counts.second);
  }
  std::fflush(stdout);
  if (show_config) std::cout << "\nconfiguration:\n" << lines_of(c.provenance.config_text) << "\n";
}

// `--check`: the full diagnosis, one line per problem and note; exit 1 when damaged.
int print_check(const std::string& path) {
  const io::Diagnosis diagnosis = io::check_results(path);
  std::cout << "file:     " << printable(path) << "\n"
            << "verdict:  " << (diagnosis.damaged() ? "DAMAGED" : "consistent") << "\n";
  // A problem or note may quote the file (a model name, a key of /witness): printable.
  for (const auto& problem : diagnosis.problems) {
    std::cout << "problem:  " << printable(problem) << "\n";
  }
  for (const auto& note : diagnosis.notes) std::cout << "note:     " << printable(note) << "\n";
  std::cout << std::flush;
  if (!diagnosis.damaged()) return kExitOk;
  std::cerr << "wordsens info: error: " << printable(path) << " is damaged ("
            << diagnosis.problems.size() << " problem" << (diagnosis.problems.size() > 1 ? "s" : "")
            << ")\n";
  return kExitFailure;
}

}  // namespace

int info_command(int argc, char** argv) {
  std::string path, columns;
  bool show_config = false, check = false;
  po::options_description visible(
      "usage: wordsens info FILE.h5 [--config] [--check]\n"
      "       wordsens info --columns GROUP\n\n"
      "Prints what a results file holds: format, provenance, and tasks done per experiment,\n"
      "model and grid point. Read-only; also reads a file being written or left by a killed\n"
      "run. A damaged file (HDF5 cannot read it, or its tables contradict each other) is\n"
      "refused with one line naming the first problem; --check lists them all.\n"
      "Exit codes: 0, 2 (missing or not a wordsens file), 1 (damaged file).\n\n"
      "options");
  visible.add_options()                                                                 //
      ("help,h", "print this help and exit")                                            //
      ("config", po::bool_switch(&show_config), "also print the stored configuration")  //
      ("check", po::bool_switch(&check),
       "check the file's consistency and print every problem found (column lengths, rows of "
       "done tasks, duplicated rows, offsets) and the leftovers of a killed writer")  //
      ("columns", po::value(&columns),
       "print the columns this version writes in GROUP (/tasks, /ws, /gen, /witness or /models) "
       "with "
       "their type, unit and meaning, as a Markdown table, and exit");
  po::options_description all;
  all.add(visible).add_options()("file", po::value(&path));
  po::positional_options_description positional;
  positional.add("file", 1);
  try {
    po::variables_map vm;
    store_command_line(argc, argv, all, positional, "info", vm);
    if (vm.count("help") != 0) {
      std::cout << visible << "\n";
      return kExitOk;
    }
    po::notify(vm);
    if (vm.count("columns") != 0) {
      const std::vector<std::string> groups{"/tasks", "/ws", "/gen", "/witness", "/models"};
      if (std::find(groups.begin(), groups.end(), columns) == groups.end()) {
        throw InputError("--columns takes /tasks, /ws, /gen, /witness or /models, not '" + columns +
                         "'");
      }
      std::cout << io::column_table_markdown(columns);
      return kExitOk;
    }
    if (path.empty()) throw InputError("no file given");
  } catch (const std::exception& e) {
    return report_usage_error("info", e);
  }
  // A missing or foreign file (InputError) and a damaged one reach main's one mapping to exit
  // codes.
  if (check) return print_check(path);
  print(path, io::read_results(path, io::ReadOptions{false}), show_config);
  return kExitOk;
}

}  // namespace wordsens::cli
