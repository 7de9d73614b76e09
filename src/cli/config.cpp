#include "cli/config.hpp"

#include <boost/program_options.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include "cli/ini_text.hpp"
#include "cli/key_table.hpp"
#include "cli/option_values.hpp"
#include "cli/renamed_options.hpp"
#include "cli/search_options.hpp"
#include "estimators/multi_word.hpp"
#include "estimators/positions.hpp"
#include "io/file_kind.hpp"
#include "io/results_file.hpp"
#include "models/drf/drf.hpp"
#include "models/shared/model_kind.hpp"

namespace po = boost::program_options;

namespace wordsens::cli {
namespace {

// A configuration is a short text; a larger file is something else given by mistake (a log, a
// data file), and no file is read without bound.
constexpr std::size_t kMaxConfigBytes = std::size_t{1} << 20;

// Raw option values, as written: each is parsed by hand (cli/option_values.hpp, the grid layer),
// so that every key refuses a bad value with a line that starts with its name.
struct Raw {
  std::string config, experiments, models, gen_models, n, d, gen_n, gen_d, k, N, layers, activation,
      positions, training, objective, data, output, shard, seed, rf_sampling, words, words_fraction,
      word_sets, purpose, trials, walltime, progress, select, first_trial = "0", max_trials = "0";
  SearchOptionValues search;
  // Switches: "true" when given alone (--dry-run), or the value of --dry-run=true|false and of
  // `dry-run = true|false` in the file.
  std::string overwrite = "false", dry_run = "false", save_witness = "false";
  bool help = false;
};

// The two groups of keys, as --help and the configuration reference title them.
constexpr const char* kStudyCaption = "Study (INI keys; --key=value on the command line wins)";
constexpr const char* kRunCaption = "Run (not part of the configuration compared on resume)";

// Keys of the command line only: refused in a configuration file.
const std::set<std::string> kCommandLineOnly{"help", "config"};

// A switch: `--name` alone means true; `--name=true|false` (and `name = true|false` in the file)
// says which. Its help shows no default (false).
po::typed_value<std::string>* switch_value(std::string* target) {
  return po::value(target)->implicit_value("true", "")->value_name("[=true|false]");
}

// Every key of `wordsens run`, in two groups; each key's format goes to `formats` when given.
po::options_description describe_options(
    Raw& r, KeyFormats* formats = nullptr,
    std::vector<std::pair<std::string, po::options_description>>* groups = nullptr) {
  const StudyConfig defaults;
  // clang-format off
  po::options_description study(kStudyCaption);
  KeyTable(study, formats)
      ("experiments", po::value(&r.experiments)->default_value("ws"),
       {"comma list: ws, gen", "experiments = ws,gen"},
       "experiments to run: ws (word sensitivity), gen (trained head after a one-word change)")
      ("models", po::value(&r.models)->default_value("rf,drf,raf,raf_relu"),
       {"comma list: rf, drf, raf, raf_relu", "models = rf,raf"},
       "models: rf, drf, raf, raf_relu (comma list)")
      ("gen-models", po::value(&r.gen_models)->default_value(""),
       {"comma list of models; empty: models", "experiments = ws,gen\ngen-models = rf,raf"},
       "models of the gen experiment (comma list; empty: the same as models)")
      ("n", po::value(&r.n)->default_value("10,20,40"), {"integer grid", "n = 8:64:log4"},
       "words per text: list (10,20,50) or range lo:hi:logM | lo:hi:linM | lo:hi:stepS")
      ("d", po::value(&r.d)->default_value("8"),
       {"integer grid", "d = 64,128"},
       "embedding dimension (grid, as n)")
      ("gen-n", po::value(&r.gen_n)->default_value(""),
       {"integer grid; empty: n", "experiments = gen\ngen-n = 16,24,32"},
       "words per text for the gen experiment (grid, as n; empty: the same as n)")
      ("gen-d", po::value(&r.gen_d)->default_value(""),
       {"integer grid; empty: d", "experiments = gen\ngen-d = 16"},
       "embedding dimension for the gen experiment (grid; empty: the same as d)")
      ("k", po::value(&r.k)->default_value("1.0D"),
       {"width grid: multiples of D = n*d, integers or ranges", "k = 0.125D"},
       "rf/drf width: multiples of D = n*d (1.0D, 0.5D) and/or integers or ranges")
      ("N", po::value(&r.N)->default_value("20"),
       {"integer grid", "N = 20,40"},
       "gen training-set sizes (grid; N < p)")
      ("layers", po::value(&r.layers)->default_value("2"),
       {"integer grid", "layers = 2,4"},
       "drf depth L (grid)")
      ("activation", po::value(&r.activation)->default_value("relu"),
       {"relu or tanh", "activation = tanh"},
       "rf/drf activation: relu or tanh")
      ("rf-sampling", po::value(&r.rf_sampling)->default_value("full"),
       {"full or marginal", "rf-sampling = marginal"},
       "rf weights: full, or marginal (just the examined words' blocks plus exact Gaussian "
       "residuals for the task's texts; same law of every result; S_upper then bounds the "
       "examined positions only); ignored without rf in the study")
      ("trials", po::value(&r.trials)->default_value(std::to_string(defaults.grid.trials)),
       {"integer >= 1", "trials = 20"},
       "independent trials per grid point")
      ("first-trial", po::value(&r.first_trial)->default_value("0"),
       {"integer >= 0", "trials = 20\nfirst-trial = 20\nmax-trials = 40"},
       "index of the first trial run (an extension of a study by more trials: trials "
       "first-trial ... first-trial + trials - 1, the same texts and weights as those trials of "
       "the study run at once; needs max-trials)")
      ("max-trials", po::value(&r.max_trials)->default_value("0"),
       {"integer >= 0", "max-trials = 100"},
       "the most trials per point the study may reach by extensions (0: none planned); fixes "
       "the random streams of every trial and the number of looks the report corrects for")
      ("select", po::value(&r.select)->default_value(""),
       {"selectors: axis:value lists separated by ;", "select = model:raf;model:rf,n:20"},
       "grid points run (empty: all): selectors separated by ';', each a ','-list of axis:value "
       "(axes experiment, model, n, d, N, L, m), e.g. model:raf,d:384;model:rf,d:768")
      ("seed", po::value(&r.seed)->default_value("1"),
       {"integer in [0, 4294967295]", "seed = 7"},
       "master seed, 0 ... 4294967295")
      ("positions", po::value(&r.positions)->default_value("all"),
       {"all, first or random:m", "positions = random:4"},
       "word positions examined: all, first or random:m")
      ("words", po::value(&r.words)->default_value("1"), {"integer grid", "words = 1,2,4"},
       "ws: numbers m of words changed at once (grid, as n; 1: the word sensitivity S, m >= 2: "
       "S_m); each m <= n")
      ("words-fraction", po::value(&r.words_fraction)->default_value(""),
       {"comma list of fractions in (0, 1]", "words-fraction = 0.1,0.25"},
       "ws: fractions f in (0, 1] adding m = ceil(f*n) at each n (comma list; holds m/n fixed "
       "while n grows)")
      ("word-sets", po::value(&r.word_sets)->default_value("first"),
       {"first, random:r or greedy", "words = 1,2\nword-sets = random:8"},
       "ws with m >= 2: the word sets examined: first (words 0..m-1), random:r (r random "
       "m-sets) or greedy (grown from the best single word)")
      ("training", po::value(&r.training)->default_value("finetune,retrain"),
       {"comma list: finetune, retrain", "training = finetune"},
       "gen training modes: finetune, retrain")
      ("objective", po::value(&r.objective)->default_value("loss,align"),
       {"comma list: loss, align", "objective = loss"},
       "gen Delta objectives: loss, align")
      ("data", po::value(&r.data)->default_value("synthetic"),
       {"synthetic or embeddings:PATH", "data = embeddings:glove_brown.h5"},
       "data source: synthetic or embeddings:<path>")
      ("save-witness", switch_value(&r.save_witness),
       {"switch: true or false", "save-witness = true"},
       "store per task the witness (i*, Delta*), the sample X and small weights")
      ("purpose", po::value(&r.purpose)->default_value("claims"),
       {"claims or descriptive", "purpose = descriptive"},
       "claims (the report judges the paper's claims on the study) or descriptive (a map, like "
       "the regime map: the report shows its rows as a breakdown only)");
  add_search_options(study, r.search, /*ws_options=*/true, formats);
  po::options_description run(kRunCaption);
  KeyTable(run, formats)
      ("help,h", po::bool_switch(&r.help),
       {"switch (command line only)", "--help"},
       "print this help")
      ("config", po::value(&r.config)->value_name("FILE"),
       {"path (command line only)", "--config=jobs/configs/quick.ini"},
       "the configuration file (INI); the same as giving FILE as the first argument")
      ("output,o", po::value(&r.output)->default_value("results.h5"),
       {"path", "output = results/paper_ws.h5"},
       "results file (HDF5); an existing file of the same configuration is resumed, by the "
       "build that computed it only (software_version, git_sha, build; another is refused)")
      ("overwrite", switch_value(&r.overwrite),
       {"switch: true or false", "overwrite = true"},
       "start over, replacing an existing output")
      ("dry-run", switch_value(&r.dry_run), {"switch: true or false", "dry-run = true"},
       "print the task table and estimated cost, touch no file")
      ("walltime", po::value(&r.walltime)->default_value("0"), {"seconds >= 0", "walltime = 14100"},
       "seconds after which no task is handed out (then exit 3); 0: none")
      ("shard", po::value(&r.shard)->default_value("0/1"), {"i/N with 0 <= i < N", "shard = 2/8"},
       "i/N: run only tasks whose index = i (mod N) (job arrays; merge the files)")
      ("progress", po::value(&r.progress)->default_value("10"), {"seconds > 0", "progress = 60"},
       "seconds between progress lines on stderr");
  // clang-format on
  po::options_description all;
  all.add(study).add(run);
  if (groups != nullptr) {
    groups->emplace_back(kStudyCaption, study);
    groups->emplace_back(kRunCaption, run);
  }
  return all;
}

// `parse(text)`, its std::invalid_argument replaced by "<key> = '<text>': expected <expected>".
template <typename Parse>
auto parse_keyed(const std::string& key, const std::string& text, const std::string& expected,
                 Parse parse) -> decltype(parse(text)) {
  try {
    return parse(text);
  } catch (const InputError&) {
    throw_bad_value(key, text, expected);
  }
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
  } catch (const InputError&) {
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
    throw InputError("words and words-fraction are both empty: no number of changed words");
  }
  s.search.word_sets =
      parse_keyed("word-sets", r.word_sets, "first, random:r (r >= 1) or greedy",
                  [](const std::string& text) { return WordSetFamily::parse(text); });
  if (!some_task_changes_several_words(s)) return;
  const bool ws = std::find(s.grid.experiments.begin(), s.grid.experiments.end(), Experiment::ws) !=
                  s.grid.experiments.end();
  const bool marginal_sampler =
      std::any_of(s.grid.models.begin(), s.grid.models.end(),
                  [](const auto& m) { return model_traits(m).marginal_sampler; });
  if (ws && marginal_sampler && s.rf_sampling == RfSampling::marginal) {
    throw InputError(
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
    throw_bad_value("rf-sampling", r.rf_sampling, "full or marginal");
  }
  // Kept as given; canonical_text names it only when a model it applies to is in the study.
  s.rf_sampling = r.rf_sampling == "marginal" ? RfSampling::marginal : RfSampling::full;
  if (r.purpose != "claims" && r.purpose != "descriptive") {
    throw_bad_value("purpose", r.purpose, "claims or descriptive");
  }
  s.descriptive = r.purpose == "descriptive";
  s.grid.trials = static_cast<std::uint32_t>(
      parse_integer_value("trials", r.trials, 1, StudyLimits::max_trials));
  const auto first_trial =
      parse_integer_value("first-trial", r.first_trial, 0, StudyLimits::max_trials);
  const auto max_trials =
      parse_integer_value("max-trials", r.max_trials, 0, StudyLimits::max_trials);
  if (first_trial > 0 && max_trials == 0) {
    throw InputError("first-trial = '" + r.first_trial +
                     "': needs max-trials (the study's largest trial count, which keys every "
                     "trial's random streams)");
  }
  s.grid.first_trial = static_cast<std::uint32_t>(first_trial);
  s.grid.max_trials = static_cast<std::uint32_t>(max_trials);
  s.grid.select = PointSelection::parse(r.select);
  s.seed = static_cast<std::uint32_t>(parse_integer_value("seed", r.seed, 0, 4294967295LL));
  s.search.positions =
      parse_keyed("positions", r.positions, "all, first or random:m (m >= 1)",
                  [](const std::string& text) { return PositionSet::parse(text); });
  apply_search_options(r.search, s);
  resolve_words(r, s);
  s.search.trainings =
      parse_enum_list<Training>("training", r.training, {"finetune", "retrain"}, parse_training);
  s.search.objectives =
      parse_enum_list<HeadObjective>("objective", r.objective, {"loss", "align"}, parse_objective);
  s.data = DataSpec::parse(r.data);
  s.save_witness = parse_bool_value("save-witness", r.save_witness);
  return s;
}

// The run keys of `r` (not part of the configuration) into `options`.
void resolve_run(const Raw& r, RunOptions& options) {
  options.shard = Shard::parse(r.shard);
  if (r.output.empty()) throw_bad_value("output", r.output, "a file name");
  options.output = r.output;
  options.overwrite = parse_bool_value("overwrite", r.overwrite);
  options.dry_run = parse_bool_value("dry-run", r.dry_run);
  options.walltime = parse_real_value(
      "walltime", r.walltime, [](double x) { return x >= 0; }, "seconds >= 0 (0: none)");
  options.progress_interval = parse_real_value(
      "progress", r.progress, [](double x) { return x > 0; }, "seconds > 0");
}

// The entries of a configuration text as boost's parsed options. Refused with one line naming
// `where` and the line: an unknown key, an old spelling, a key of the command line only.
// `origin` gets "<where>:<line>" of every key.
po::parsed_options file_options(const std::vector<IniEntry>& entries,
                                const po::options_description& described, const std::string& where,
                                std::map<std::string, std::string>& origin) {
  po::parsed_options parsed(&described);
  for (const IniEntry& entry : entries) {
    const std::string at = where + ":" + std::to_string(entry.line) + ": ";
    if (const std::string renamed = renamed_key(entry.key); !renamed.empty()) {
      throw InputError(at + "key " + entry.key + " is now spelled " + renamed);
    }
    if (kCommandLineOnly.count(entry.key) != 0) {
      throw InputError(at + "'" + entry.key + "' is an option of the command line, not a key");
    }
    if (described.find_nothrow(entry.key, /*approx=*/false) == nullptr) {
      throw InputError(at + "unknown key '" + entry.key + "' (wordsens run --help lists the keys)");
    }
    po::option option(entry.key, {entry.value});
    option.original_tokens = {entry.key, entry.value};
    parsed.options.push_back(std::move(option));
    origin[entry.key] = where + ":" + std::to_string(entry.line);
  }
  return parsed;
}

// A message that starts with "<key> = " of a key that came from the file, prefixed with the
// file and line that gave it ("quick.ini:7: trials = '0': …").
std::string located(const std::string& message, const std::map<std::string, std::string>& origin) {
  const auto equals = message.find(" = ");
  if (equals == std::string::npos) return message;
  const auto it = origin.find(message.substr(0, equals));
  return it == origin.end() ? message : it->second + ": " + message;
}

// boost's errors of the command line, as one line starting with the option as written.
std::string command_line_error(const po::error& e) {
  if (const auto* unknown = dynamic_cast<const po::unknown_option*>(&e)) {
    std::string name = unknown->get_option_name();  // "--bogus=1" as written: the name only
    if (const auto equals = name.find('='); equals != std::string::npos) name.erase(equals);
    return name + ": unknown option (wordsens run --help lists them)";
  }
  if (const auto* repeated = dynamic_cast<const po::multiple_occurrences*>(&e)) {
    return repeated->get_option_name() + ": given more than once";
  }
  if (const auto* syntax = dynamic_cast<const po::invalid_command_line_syntax*>(&e)) {
    const std::string name = syntax->get_option_name();
    switch (syntax->kind()) {
      case po::invalid_syntax::missing_parameter:
        return name + ": missing value (" + name + "=VALUE)";
      case po::invalid_syntax::extra_parameter:
        return name + ": takes no value";
      case po::invalid_syntax::empty_adjacent_parameter:
        return name + ": empty value after '='";
      default:
        break;
    }
  }
  if (dynamic_cast<const po::too_many_positional_options_error*>(&e) != nullptr) {
    return "more than one configuration file: give one, as the first argument or --config=FILE";
  }
  return e.what();
}

// argv as strings, `--key=` of an option that takes a value spelled `--key ""` (boost refuses an
// empty value after '='), so that the key's own check names it ("n = '': empty grid"). A switch
// with `=` and nothing after is refused here.
std::vector<std::string> normalised_arguments(int argc, char** argv,
                                              const po::options_description& described) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.size() > 3 && arg.rfind("--", 0) == 0 && arg.back() == '=' &&
        arg.find('=') == arg.size() - 1) {
      const std::string name = arg.substr(2, arg.size() - 3);
      if (name == "config") throw_bad_value(name, "", "the path of a configuration file");
      if (const auto* option = described.find_nothrow(name, /*approx=*/false)) {
        if (option->semantic()->min_tokens() >= 1) {
          args.push_back("--" + name);
          args.emplace_back();
          continue;
        }
        if (option->semantic()->max_tokens() >= 1) {  // a switch
          throw_bad_value(name, "", "true or false (--" + name + " alone is true)");
        }
      }
    }
    args.push_back(arg);
  }
  return args;
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
  if (descriptor < 0) throw InputError("cannot read " + name + ": " + std::strerror(errno));
  const auto fail = [&](const std::string& message) {
    ::close(descriptor);
    throw InputError(message);
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
      throw InputError(name + " is not a text file (byte " + code + (byte == 0x7f ? " (DEL)" : "") +
                       " on line " + std::to_string(line) + ")");
    }
    if (text.compare(i, bom.size(), bom) == 0) {
      throw InputError(name + " has an invisible byte-order mark (U+FEFF) on line " +
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
  out << "usage: wordsens run [CONFIG.ini | --config=CONFIG.ini] [--key=value …]\n"
         "Runs the study (mpirun -n R for R ranks); rerunning the same command resumes.\n"
         "CONFIG.ini: `key = value` lines, a regular text file of at most "
      << (kMaxConfigBytes >> 20)
      << " MiB (not a pipe or a device);\n"
         "  the keys are the long option names below; # starts a comment (so does ; at the start\n"
         "  of a line); no [sections]; spaces around a value are dropped; a switch (--dry-run)\n"
         "  takes true or false there, and alone or as --dry-run=true|false on the command line.\n"
         "Exit codes: 0 done, 1 failure, 2 bad input, 3 checkpointed (USR1 / walltime), "
         "4 interrupted (TERM/INT).\n\n"
      << describe_options(r);
  return out.str();
}

std::string config_reference() {
  Raw r;
  KeyFormats formats;
  std::vector<std::pair<std::string, po::options_description>> groups;
  static_cast<void>(describe_options(r, &formats, &groups));
  return key_reference_page(groups, formats, kMaxConfigBytes >> 20);
}

KeyFormats run_key_formats() {
  Raw r;
  KeyFormats formats;
  static_cast<void>(describe_options(r, &formats));
  return formats;
}

std::vector<TaskSpec> plan_of_config_text(const std::string& text) {
  Raw r;
  const auto described = describe_options(r);
  std::map<std::string, std::string> origin;
  po::variables_map vm;
  po::store(file_options(parse_ini_text(text, "configuration text"), described,
                         "configuration text", origin),
            vm);
  po::notify(vm);
  return plan_tasks(resolve_study(r));
}

void install_task_planner() { io::set_task_planner(plan_of_config_text); }

RunOptions parse_run_options(int argc, char** argv) {
  Raw r;
  RunOptions options;
  options.command_line = join_argv(argc, argv);
  // "<file>:<line>" of each key the file gives and the command line does not.
  std::map<std::string, std::string> origin;
  try {
    const auto described = describe_options(r);
    po::positional_options_description positional;
    positional.add("config", 1);
    reject_renamed_options(argc, argv);
    const std::vector<std::string> args = normalised_arguments(argc, argv, described);
    po::variables_map vm;
    // No prefix guessing: `--N` and `--n` are different keys, and a typo must be an error.
    const auto style =
        po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    try {
      po::store(po::command_line_parser(args)
                    .options(described)
                    .positional(positional)
                    .style(style)
                    .run(),
                vm);
    } catch (const po::error& e) {
      throw InputError(command_line_error(e));
    }
    // --help is answered without reading the file (which may be the problem).
    const bool help = vm.count("help") != 0 && vm["help"].as<bool>();
    if (vm.count("config") && !help) {
      const std::string path = vm["config"].as<std::string>();
      const std::string text = read_config_file(path);
      std::map<std::string, std::string> from_file;
      const auto parsed = file_options(parse_ini_text(text, path), described, path, from_file);
      // The command line wins: store() keeps the values already there.
      for (const auto& [key, at] : from_file) {
        if (vm.count(key) == 0 || vm[key].defaulted()) origin[key] = at;
      }
      po::store(parsed, vm);
    }
    po::notify(vm);
  } catch (const po::error& e) {  // boost's type, from reading the file's values
    throw InputError(e.what());
  }
  options.help = r.help;
  if (options.help) return options;
  options.config_path = r.config;
  try {
    options.study = resolve_study(r);
    resolve_run(r, options);
  } catch (const InputError& e) {  // the same error, with the file and line of its key
    throw InputError(located(e.what(), origin));
  }
  return options;
}

}  // namespace wordsens::cli
