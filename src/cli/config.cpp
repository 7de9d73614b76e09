#include "cli/config.hpp"

#include <boost/program_options.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string_view>

#include "cli/renamed_options.hpp"
#include "cli/search_options.hpp"
#include "estimators/multi_word.hpp"
#include "estimators/positions.hpp"
#include "io/file_kind.hpp"
#include "io/results_file.hpp"
#include "models/drf.hpp"
#include "models/model_kind.hpp"

namespace po = boost::program_options;

namespace wordsens::cli {
namespace {

// A configuration is a short text; a larger file is something else given by mistake (a log, a
// data file), and no file is read without bound.
constexpr std::size_t kMaxConfigBytes = std::size_t{1} << 20;

// Raw option values, as text where the text is parsed by the grid layer.
struct Raw {
  std::string config, experiments, models, gen_models, n, d, gen_n, gen_d, k, N, layers, activation,
      positions, training, objective, data, output, shard, seed, rf_sampling, words, words_fraction,
      word_sets, purpose, select;
  long long trials = 0, first_trial = 0, max_trials = 0;
  SearchOptionValues search;
  double walltime = 0, progress = 0;
  bool overwrite = false, dry_run = false, save_witness = false, help = false;
};

po::options_description describe_options(Raw& r) {
  const StudyConfig defaults;
  // clang-format off
  po::options_description study("Study (INI keys; --key=value on the command line wins)");
  study.add_options()
      ("experiments", po::value(&r.experiments)->default_value("ws"),
       "experiments to run: ws (word sensitivity), gen (trained head after a one-word change)")
      ("models", po::value(&r.models)->default_value("rf,drf,raf,raf_relu"),
       "models: rf, drf, raf, raf_relu (comma list)")
      ("gen-models", po::value(&r.gen_models)->default_value(""),
       "models of the gen experiment (comma list; empty: the same as models)")
      ("n", po::value(&r.n)->default_value("10,20,40"),
       "words per text: list (10,20,50) or range lo:hi:logM | lo:hi:linM | lo:hi:stepS")
      ("d", po::value(&r.d)->default_value("8"), "embedding dimension (grid, as n)")
      ("gen-n", po::value(&r.gen_n)->default_value(""),
       "words per text for the gen experiment (grid, as n; empty: the same as n)")
      ("gen-d", po::value(&r.gen_d)->default_value(""),
       "embedding dimension for the gen experiment (grid; empty: the same as d)")
      ("k", po::value(&r.k)->default_value("1.0D"),
       "rf/drf width: multiples of D = n*d (1.0D, 0.5D) and/or integers or ranges")
      ("N", po::value(&r.N)->default_value("20"), "gen training-set sizes (grid; N < p)")
      ("layers", po::value(&r.layers)->default_value("2"), "drf depth L (grid)")
      ("activation", po::value(&r.activation)->default_value("relu"),
       "rf/drf activation: relu or tanh")
      ("rf-sampling", po::value(&r.rf_sampling)->default_value("full"),
       "rf weights: full, or marginal (just the examined words' blocks plus exact Gaussian "
       "residuals for the task's texts; same law of every result; S_upper then bounds the "
       "examined positions only)")
      ("trials", po::value(&r.trials)->default_value(defaults.grid.trials),
       "independent trials per grid point")
      ("first-trial", po::value(&r.first_trial)->default_value(0),
       "index of the first trial run (an extension of a study by more trials: trials "
       "first-trial ... first-trial + trials - 1, the same texts and weights as those trials of "
       "the study run at once; needs max-trials)")
      ("max-trials", po::value(&r.max_trials)->default_value(0),
       "the most trials per point the study may reach by extensions (0: none planned); fixes "
       "the random streams of every trial and the number of looks the report corrects for")
      ("select", po::value(&r.select)->default_value(""),
       "grid points run (empty: all): selectors separated by ';', each a ','-list of axis:value "
       "(axes experiment, model, n, d, N, L, m), e.g. model:raf,d:384;model:rf,d:768")
      ("seed", po::value(&r.seed)->default_value("1"), "master seed, 0 ... 4294967295")
      ("positions", po::value(&r.positions)->default_value("all"),
       "word positions examined: all, first or random:m")
      ("words", po::value(&r.words)->default_value("1"),
       "ws: numbers m of words changed at once (grid, as n; 1: the word sensitivity S, m >= 2: "
       "S_m); each m <= n")
      ("words-fraction", po::value(&r.words_fraction)->default_value(""),
       "ws: fractions f in (0, 1] adding m = ceil(f*n) at each n (comma list; holds m/n fixed "
       "while n grows)")
      ("word-sets", po::value(&r.word_sets)->default_value("first"),
       "ws with m >= 2: the word sets examined: first (words 0..m-1), random:r (r random "
       "m-sets) or greedy (grown from the best single word)")
      ("training", po::value(&r.training)->default_value("finetune,retrain"),
       "gen training modes: finetune, retrain")
      ("objective", po::value(&r.objective)->default_value("loss,align"),
       "gen Delta objectives: loss, align")
      ("data", po::value(&r.data)->default_value("synthetic"),
       "data source: synthetic or embeddings:<path>")
      ("save-witness", po::bool_switch(&r.save_witness),
       "store per task the witness (i*, Delta*), the sample X and small weights")
      ("purpose", po::value(&r.purpose)->default_value("claims"),
       "claims (the report judges the paper's claims on the study) or descriptive (a map, like "
       "the regime map: the report shows its rows as a breakdown only)");
  add_search_options(study, r.search, /*ws_options=*/true);
  po::options_description run("Run (not part of the configuration compared on resume)");
  run.add_options()
      ("help,h", po::bool_switch(&r.help), "print this help")
      ("output,o", po::value(&r.output)->default_value("results.h5"),
       "results file (HDF5); an existing file of the same configuration is resumed, by the "
       "build that computed it only (software_version, git_sha, build; another is refused)")
      ("overwrite", po::bool_switch(&r.overwrite), "start over, replacing an existing output")
      ("dry-run", po::bool_switch(&r.dry_run),
       "print the task table and estimated cost, touch no file")
      ("walltime", po::value(&r.walltime)->default_value(0),
       "seconds after which no task is handed out (then exit 3); 0: none")
      ("shard", po::value(&r.shard)->default_value("0/1"),
       "i/N: run only tasks whose index = i (mod N) (job arrays; merge the files)")
      ("progress", po::value(&r.progress)->default_value(10),
       "seconds between progress lines on stderr");
  // clang-format on
  po::options_description all;
  all.add(study).add(run);
  return all;
}

std::uint32_t parse_seed(const std::string& text) {
  unsigned long long value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() ||
      value > 4294967295ULL) {
    throw UsageError("seed = '" + text + "': expected an integer in [0, 4294967295]");
  }
  return static_cast<std::uint32_t>(value);
}

template <typename T, typename Parse>
std::vector<T> parse_enum_list(const std::string& key, const std::string& text,
                               const std::vector<std::string>& allowed, Parse parse) {
  std::vector<T> values;
  for (const auto& name : parse_name_list(key, text, allowed)) values.push_back(parse(name));
  return values;
}

// Whether some ws task changes two words or more: a fraction f gives m = ⌈f·n⌉, which is 1 at
// every n when f·n ≤ 1 throughout the grid.
bool some_task_changes_several_words(const StudyConfig& s) {
  try {
    for (const Index n : s.grid.n) {
      const auto words = words_at(s, n);
      if (!words.empty() && words.back() >= 2) return true;
    }
  } catch (const std::invalid_argument&) {
    return true;  // m > n ≥ 1 (plan_tasks says so)
  }
  return false;
}

// words, words-fraction and word-sets; the m ≤ n check is plan_tasks' (it knows n).
void resolve_words(const Raw& r, StudyConfig& s) {
  s.grid.words = r.words.empty() ? std::vector<Index>{}
                                 : parse_int_grid("words", r.words, 1, StudyLimits::max_n);
  if (!r.words_fraction.empty())
    s.grid.words_fraction = parse_fraction_list("words-fraction", r.words_fraction);
  if (s.grid.words.empty() && s.grid.words_fraction.empty()) {
    throw UsageError("words and words-fraction are both empty: no number of changed words");
  }
  s.search.word_sets = WordSetFamily::parse(r.word_sets);
  if (!some_task_changes_several_words(s)) return;
  const bool ws = std::find(s.grid.experiments.begin(), s.grid.experiments.end(), Experiment::ws) !=
                  s.grid.experiments.end();
  const bool marginal_sampler =
      std::any_of(s.grid.models.begin(), s.grid.models.end(),
                  [](const auto& m) { return model_traits(m).marginal_sampler; });
  if (ws && marginal_sampler && s.rf_sampling == RfSampling::marginal) {
    throw UsageError(
        "rf-sampling = marginal cannot take words >= 2 (it draws single word blocks): use the "
        "full sampler");
  }
}

StudyConfig resolve_study(const Raw& r) {
  StudyConfig s;
  s.grid.experiments =
      parse_enum_list<Experiment>("experiments", r.experiments, {"ws", "gen"}, parse_experiment);
  s.grid.models = parse_name_list("models", r.models, canonical_models());
  if (!r.gen_models.empty()) {
    s.grid.gen_models = parse_name_list("gen-models", r.gen_models, canonical_models());
  }
  s.grid.n = parse_int_grid("n", r.n, 1, StudyLimits::max_n);
  s.grid.d = parse_int_grid("d", r.d, 1, StudyLimits::max_d);
  if (!r.gen_n.empty()) s.grid.gen_n = parse_int_grid("gen-n", r.gen_n, 1, StudyLimits::max_n);
  if (!r.gen_d.empty()) s.grid.gen_d = parse_int_grid("gen-d", r.gen_d, 1, StudyLimits::max_d);
  s.grid.k = parse_k_grid(r.k, StudyLimits::max_k);
  s.grid.N = parse_int_grid("N", r.N, 1, StudyLimits::max_N);
  s.grid.layers = parse_int_grid("layers", r.layers, 1, StudyLimits::max_layers);
  s.activation = parse_activation(r.activation);
  if (r.rf_sampling != "full" && r.rf_sampling != "marginal") {
    throw UsageError("rf-sampling = '" + r.rf_sampling + "': expected full or marginal");
  }
  s.rf_sampling = r.rf_sampling == "marginal" ? RfSampling::marginal : RfSampling::full;
  if (r.purpose != "claims" && r.purpose != "descriptive") {
    throw UsageError("purpose = '" + r.purpose + "': expected claims or descriptive");
  }
  s.descriptive = r.purpose == "descriptive";
  if (r.trials < 1 || r.trials > StudyLimits::max_trials) {
    throw UsageError("trials = " + std::to_string(r.trials) + ": expected 1 … " +
                     std::to_string(StudyLimits::max_trials));
  }
  s.grid.trials = static_cast<std::uint32_t>(r.trials);
  if (r.first_trial < 0 || r.first_trial > StudyLimits::max_trials) {
    throw UsageError("first-trial = " + std::to_string(r.first_trial) + ": expected 0 … " +
                     std::to_string(StudyLimits::max_trials));
  }
  if (r.max_trials < 0 || r.max_trials > StudyLimits::max_trials) {
    throw UsageError("max-trials = " + std::to_string(r.max_trials) + ": expected 0 … " +
                     std::to_string(StudyLimits::max_trials));
  }
  if (r.first_trial > 0 && r.max_trials == 0) {
    throw UsageError("first-trial = " + std::to_string(r.first_trial) +
                     " needs max-trials (the study's largest trial count, which keys every "
                     "trial's random streams)");
  }
  s.grid.first_trial = static_cast<std::uint32_t>(r.first_trial);
  s.grid.max_trials = static_cast<std::uint32_t>(r.max_trials);
  try {
    s.grid.select = PointSelection::parse(r.select);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  s.seed = parse_seed(r.seed);
  s.search.positions = PositionSet::parse(r.positions);
  apply_search_options(r.search, s);
  resolve_words(r, s);
  s.search.trainings =
      parse_enum_list<Training>("training", r.training, {"finetune", "retrain"}, parse_training);
  s.search.objectives =
      parse_enum_list<HeadObjective>("objective", r.objective, {"loss", "align"}, parse_objective);
  s.data = DataSpec::parse(r.data);
  s.save_witness = r.save_witness;
  return s;
}

// The text of an INI file. Refused with one line: anything but a regular file (a directory, a
// FIFO, a device such as /dev/zero, which would never end), a file larger than
// kMaxConfigBytes, a read error (/proc/self/mem), and text with a control byte (a NUL, an
// escape, DEL) or a byte-order mark after the start, so that no raw or invisible bytes reach an
// error message. A byte-order mark at the start (some editors write one) is dropped.
std::string read_config_file(const std::string& path) {
  const std::string name = "configuration file '" + path + "'";
  // O_NONBLOCK: opening a FIFO that no process writes would wait forever; it is refused below.
  const int descriptor = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (descriptor < 0) throw UsageError("cannot read " + name + ": " + std::strerror(errno));
  const auto fail = [&](const std::string& message) {
    ::close(descriptor);
    throw UsageError(message);
  };
  struct stat status {};
  if (::fstat(descriptor, &status) != 0) fail("cannot read " + name + ": " + std::strerror(errno));
  if (S_ISDIR(status.st_mode)) fail(name + " is a directory");
  if (!S_ISREG(status.st_mode)) {
    fail(name + " is not a regular file (" + io::file_kind(status.st_mode) + ")");
  }
  // Read until the end rather than trust st_size: files of /proc report 0.
  std::string text;
  char buffer[65536];
  while (true) {
    const ssize_t got = ::read(descriptor, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail("cannot read " + name + ": " + std::strerror(errno));
    if (got == 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    if (text.size() > kMaxConfigBytes) {
      fail(name + " is larger than " + std::to_string(kMaxConfigBytes >> 20) +
           " MiB: not a configuration");
    }
  }
  ::close(descriptor);
  constexpr std::string_view bom = "\xef\xbb\xbf";
  if (text.compare(0, bom.size(), bom) == 0) text.erase(0, bom.size());
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\n') ++line;
    const bool control =
        (byte < 0x20 && byte != '\n' && byte != '\r' && byte != '\t') || byte == 0x7f;
    if (control) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02x", byte);
      throw UsageError(name + " is not a text file (byte " + code + (byte == 0x7f ? " (DEL)" : "") +
                       " on line " + std::to_string(line) + ")");
    }
    if (text.compare(i, bom.size(), bom) == 0) {
      throw UsageError(name + " has an invisible byte-order mark (U+FEFF) on line " +
                       std::to_string(line) + ": remove it");
    }
  }
  return text;
}

std::string join_argv(int argc, char** argv) {
  std::string s = "wordsens";
  for (int i = 0; i < argc; ++i) s += std::string(" ") + argv[i];
  return s;
}

}  // namespace

std::string run_help_text() {
  Raw r;
  std::ostringstream out;
  out << "usage: wordsens run [CONFIG.ini] [--key=value …]\n"
         "Runs the study (mpirun -n R for R ranks); rerunning the same command resumes.\n"
         "CONFIG.ini: `key = value` lines, a regular text file of at most "
      << (kMaxConfigBytes >> 20)
      << " MiB (not a pipe or a device).\n"
         "Exit codes: 0 done, 1 failure, 2 bad input, 3 checkpointed (USR1 / walltime), "
         "4 interrupted (TERM/INT).\n\n"
      << describe_options(r);
  return out.str();
}

std::vector<TaskSpec> plan_of_config_text(const std::string& text) {
  Raw r;
  const auto described = describe_options(r);
  std::istringstream in(text);
  po::variables_map vm;
  po::store(po::parse_config_file(in, described, /*allow_unregistered=*/false), vm);
  po::notify(vm);
  return plan_tasks(resolve_study(r));
}

void install_task_planner() { io::set_task_planner(plan_of_config_text); }

RunOptions parse_run_options(int argc, char** argv) {
  Raw r;
  RunOptions options;
  options.command_line = join_argv(argc, argv);
  try {
    auto described = describe_options(r);
    po::options_description cli_only;
    cli_only.add_options()("config", po::value(&r.config), "INI file");
    po::options_description with_positional;
    with_positional.add(described).add(cli_only);
    po::positional_options_description positional;
    positional.add("config", 1);
    reject_renamed_options(argc, argv);
    po::variables_map vm;
    // No prefix guessing: `--N` and `--n` are different keys, and a typo must be an error.
    const auto style =
        po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(argc, argv)
                  .options(with_positional)
                  .positional(positional)
                  .style(style)
                  .run(),
              vm);
    // --help is answered without reading the file (which may be the problem).
    const bool help = vm.count("help") != 0 && vm["help"].as<bool>();
    if (vm.count("config") && !help) {
      const std::string path = vm["config"].as<std::string>();
      const std::string text = read_config_file(path);
      reject_renamed_keys(text, path);
      std::istringstream in(text);
      // store() keeps values already present, so the command line wins over the file.
      try {
        po::store(po::parse_config_file(in, described, /*allow_unregistered=*/false), vm);
      } catch (const po::error& e) {
        throw UsageError(path + ": " + e.what());  // which file: the command line has its own
      }
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  } catch (const std::invalid_argument& e) {  // a renamed option
    throw UsageError(e.what());
  }
  options.help = r.help;
  if (options.help) return options;
  options.config_path = r.config;
  try {
    options.study = resolve_study(r);
    options.shard = Shard::parse(r.shard);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (r.output.empty()) throw UsageError("output must not be empty");
  if (!(r.walltime >= 0)) throw UsageError("walltime must be >= 0 seconds");
  if (!(r.progress > 0)) throw UsageError("progress must be > 0 seconds");
  options.output = r.output;
  options.overwrite = r.overwrite;
  options.dry_run = r.dry_run;
  options.walltime = r.walltime;
  options.progress_interval = r.progress;
  return options;
}

}  // namespace wordsens::cli
