#include "cli/run_keys.hpp"

#include "cli/key_table.hpp"
#include "cli/plan_export.hpp"
#include "core/errors.hpp"
#include "parallel/node_memory.hpp"
#include "study/key_values.hpp"

namespace po = boost::program_options;

namespace wordsens::cli {
namespace {

// The two groups of keys, as --help and the configuration reference title them.
constexpr const char* kStudyCaption = "Study (INI keys; --key=value on the command line wins)";
constexpr const char* kRunCaption = "Run (not part of the configuration compared on resume)";

// The study's keys (without the search options) in the order --help and docs/CONFIG.md show
// them: what a study varies first, then how it runs its trials, searches and reads its data.
// clang-format off
constexpr const char* kStudyKeyOrder[] = {
    "experiments", "models", "gen-models", "n", "d", "gen-n", "gen-d", "k", "mlp-width", "N",
    "layers", "activation", "heads", "mask", "rf-sampling", "trials", "first-trial", "max-trials",
    "select", "seed", "positions", "words", "words-fraction", "word-sets", "training", "objective",
    "data", "encoder", "encoder-layer", "save-witness", "purpose"};
// clang-format on

}  // namespace

void add_study_keys(po::options_description& group, StudyKeyTexts& values, KeyFormats* formats,
                    const KeySubset* subset) {
  // Each key as the study describes it (study/study_settings.cpp), bound to its text.
  KeyTable table(group, formats, subset);
  for (const char* key : kStudyKeyOrder) table(key, &values[key]);
}

po::options_description describe_run_keys(
    RunKeyValues& r, KeyFormats* formats,
    std::vector<std::pair<std::string, po::options_description>>* groups) {
  po::options_description study(kStudyCaption);
  add_study_keys(study, r.study, formats);
  add_search_options(study, r.study, /*ws_options=*/true, formats);
  po::options_description run(kRunCaption);
  // clang-format off
  KeyTable(run, formats)
      ("help,h", po::bool_switch(&r.help),
       {"switch (command line only)", "--help"},
       "print this help")
      ("config", po::value(&r.config)->value_name("FILE"),
       {"path (command line only)", "--config=jobs/configs/quick.ini"},
       "the configuration file (INI); the same as giving FILE as the first argument")
      ("output,o", &r.output, "results.h5",
       {"path", "output = results/paper_ws.h5"},
       "results file (HDF5); an existing file of the same configuration is resumed, by the "
       "build that computed it only (software_version, git_sha, build; another is refused)")
      ("overwrite", switch_value(&r.overwrite),
       {"switch: true or false", "overwrite = true"},
       "start over, replacing an existing output")
      ("dry-run", switch_value(&r.dry_run), {"switch: true or false", "dry-run = true"},
       "print the task table and estimated cost, touch no file")
      ("format", &r.format, "table", {"table, tsv or json", "format = json"},
       "what --dry-run prints: table (for people), or tsv or json (for scripts: each grid "
       "point's tasks, seconds and bytes; json adds the wall times and the memory per rank)")
      ("calibration", &r.calibration, "auto", {"auto, none or a path", "calibration = none"},
       "the host calibration --dry-run prices its seconds with (written by `wordsens "
       "calibrate`): auto: $WORDSENS_CALIBRATION, else ~/.config/wordsens/calibration.tsv, "
       "when it exists; none: the development machine's prices")
      ("walltime", &r.walltime, "0", {"seconds >= 0", "walltime = 14100"},
       "seconds after which no task is handed out (then exit 3); 0: none")
      ("shard", &r.shard, "0/1", {"i/N with 0 <= i < N", "shard = 2/8"},
       "i/N: run only tasks whose index = i (mod N) (job arrays; merge the files)")
      ("progress", &r.progress, "10", {"seconds > 0", "progress = 60"},
       "seconds between progress lines on stderr")
      ("memory-per-rank", &r.memory_per_rank, "auto",
       {"auto, or bytes with K, M, G or T (powers of 1024)", "memory-per-rank = 8G"},
       "the memory a rank may use: a plan whose largest task needs more is refused before it "
       "starts; auto: this machine's available memory (or its control group's, or ulimit -v) "
       "shared by the ranks the launcher starts on it; on a cluster, the memory the job gives "
       "each rank");
  // clang-format on
  po::options_description all;
  all.add(study).add(run);
  if (groups != nullptr) {
    groups->emplace_back(kStudyCaption, study);
    groups->emplace_back(kRunCaption, run);
  }
  return all;
}

RunKeyValues default_run_key_values() {
  RunKeyValues values;
  const auto described = describe_run_keys(values);
  po::variables_map vm;
  po::store(po::parsed_options(&described), vm);  // no option given: each takes its default
  po::notify(vm);
  return values;
}

void resolve_run(const RunKeyValues& r, RunOptions& options) {
  options.shard = Shard::parse(r.shard);
  if (r.output.empty()) throw_bad_value("output", r.output, "a file name");
  options.output = r.output;
  options.overwrite = parse_bool_value("overwrite", r.overwrite);
  options.dry_run = parse_bool_value("dry-run", r.dry_run);
  options.plan_format = r.format;
  (void)parse_plan_format(r.format);  // a bad value is refused with or without --dry-run
  if (r.calibration.empty()) throw_bad_value("calibration", r.calibration, "auto, none or a path");
  options.calibration = r.calibration;
  options.walltime = parse_real_value(
      "walltime", r.walltime, [](double x) { return x >= 0; }, "seconds >= 0 (0: none)");
  options.progress_interval = parse_real_value(
      "progress", r.progress, [](double x) { return x > 0; }, "seconds > 0");
  if (r.memory_per_rank != "auto") {
    const auto bytes = parallel::parse_bytes(r.memory_per_rank);
    if (!bytes || *bytes < 1) {
      throw_bad_value("memory-per-rank", r.memory_per_rank,
                      "auto, or bytes with K, M, G or T (powers of 1024), e.g. 8G");
    }
    options.memory_per_rank = *bytes;
  }
}

}  // namespace wordsens::cli
