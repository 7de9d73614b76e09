// `wordsens ws`: word-sensitivity estimates of one grid point, one line per trial, without MPI
// or a results file, so that a person can try a model before running a study. It takes run's keys
// (one value each) and runs trial t as task t of that one-point study (cli/one_point.hpp): the same
// text, weights, positions and starts as `wordsens run` with the same keys. Scripts parse the csv
// format: keep it stable.
#include <cmath>
#include <cstdio>
#include <string>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/one_point.hpp"
#include "core/errors.hpp"

namespace wordsens::cli {
namespace {

constexpr const char* kCsvHeader =
    "trial,S,S_upper,argmax_position,evaluations,seconds,S_upper_scope,cert_rel_err,starts,"
    "starts_at_budget,stationarity,S_budget_check";

constexpr const char* kWordsCsvHeader =
    "trial,words,S,S_upper,argmax_set,evaluations,seconds,S_upper_scope,cert_rel_err,starts,"
    "starts_at_budget";

const std::string kUsage =
    "usage: wordsens ws --model M --n N --d D [options]\n\n"
    "Estimates the word sensitivity S = max_i max_{|Delta| <= sqrt(d)} |phi(X^i(Delta)) - "
    "phi(X)| / |phi(X)|\n"
    "of a random feature map on texts X (n words: synthetic rows of norm sqrt(d), or an\n"
    "embeddings file's texts with --data) by projected gradient ascent from several starts per\n"
    "word position. S is a lower bound attained by a witness\n"
    "(i*, Delta*) and recomputed from scratch there (cert_rel_err; above 1e-9 the trial fails\n"
    "with exit code 1); S_upper is a certified upper bound where the model has one (rf, drf;\n"
    "S_upper_scope 1: over all positions, 2: over the examined positions only).\n"
    "The options are the keys of wordsens run (the same spellings, defaults and checks), one "
    "value\n"
    "each: trial t is task t of the study of that one grid point (its text, weights, positions "
    "and\n"
    "starts). --format csv prints\n"
    "  trial,S,S_upper,argmax_position,evaluations,seconds,S_upper_scope,cert_rel_err,"
    "starts,starts_at_budget,stationarity,S_budget_check\n"
    "then one row per trial (S_upper and S_budget_check empty where undefined).\n"
    "With --words m >= 2 it estimates S_m, the same with m words changed at once (each in the\n"
    "ball of radius sqrt(d)), jointly over the m rows, on the sets --word-sets names: first\n"
    "(words 0..m-1) | random:r (r random m-sets) | greedy (grown from the best single word, one\n"
    "word at a time). S_upper (rf with the full sampler, drf) bounds the examined sets.\n"
    "--format csv prints\n"
    "  trial,words,S,S_upper,argmax_set,evaluations,seconds,S_upper_scope,cert_rel_err,"
    "starts,starts_at_budget\n"
    "with argmax_set the changed words separated by ';'.\n\n"
    "options";

// The keys of run that ws takes; n and d have no default (run's are grids).
KeySubset ws_keys() {
  return {{"n", "d", "k", "mlp-width", "layers", "activation", "heads", "mask", "rf-sampling",
           "trials", "seed", "positions", "words", "word-sets", "data"},
          {"n", "d"},
          {}};
}

void print_row(const std::string& format, const TaskSpec& task, const WsRecord& r) {
  const auto trial = static_cast<long long>(task.trial);
  if (format == "csv") {
    std::printf("%lld,%.17g,", trial, r.S);
    if (!std::isnan(r.S_upper)) std::printf("%.17g", r.S_upper);
    std::printf(",%lld,%lld,%.6g,%d,%.3g,%lld,%lld,%.3g,",
                static_cast<long long>(r.argmax_position), static_cast<long long>(r.evaluations),
                r.seconds, static_cast<int>(r.S_upper_scope), r.cert_rel_err,
                static_cast<long long>(r.starts), static_cast<long long>(r.starts_at_budget),
                r.stationarity);
    if (std::isfinite(r.S_budget_check)) std::printf("%.17g", r.S_budget_check);
    std::printf("\n");
  } else {
    std::printf("trial %lld: S = %.6g", trial, r.S);
    if (!std::isnan(r.S_upper)) {
      std::printf("  S_upper = %.6g%s", r.S_upper,
                  r.S_upper_scope == 2 ? " (examined positions only)" : "");
    }
    if (std::isfinite(r.S_budget_check)) std::printf("  S_budget_check = %.6g", r.S_budget_check);
    std::printf(
        "  (i* = %lld, |Delta*| = %.4g, cert %.1e, starts = %lld (%lld at budget), evaluations = "
        "%lld, %.2f s)\n",
        static_cast<long long>(r.argmax_position), witness_norm(r.witness), r.cert_rel_err,
        static_cast<long long>(r.starts), static_cast<long long>(r.starts_at_budget),
        static_cast<long long>(r.evaluations), r.seconds);
  }
  std::fflush(stdout);
}

void print_words_row(const std::string& format, const TaskSpec& task, const WsRecord& r) {
  const auto trial = static_cast<long long>(task.trial);
  const auto words = static_cast<long long>(task.words);
  // csv: "0;3" (one field); text: "{0, 3}".
  const char* separator = format == "csv" ? ";" : ", ";
  std::string set;
  for (const auto i : r.argmax_set) set += (set.empty() ? "" : separator) + std::to_string(i);
  if (format == "csv") {
    std::printf("%lld,%lld,%.17g,", trial, words, r.S);
    if (!std::isnan(r.S_upper)) std::printf("%.17g", r.S_upper);
    std::printf(",%s,%lld,%.6g,%d,%.3g,%lld,%lld\n", set.c_str(),
                static_cast<long long>(r.evaluations), r.seconds, static_cast<int>(r.S_upper_scope),
                r.cert_rel_err, static_cast<long long>(r.starts),
                static_cast<long long>(r.starts_at_budget));
  } else {
    std::printf("trial %lld: S_%lld = %.6g", trial, words, r.S);
    if (!std::isnan(r.S_upper)) std::printf("  S_upper = %.6g (examined sets only)", r.S_upper);
    std::printf(
        "  (M* = {%s}, |Delta*| = %.4g, cert %.1e, %zu sets, starts = %lld (%lld at budget), "
        "evaluations = %lld, %.2f s)\n",
        set.c_str(), witness_norm(r.witness), r.cert_rel_err,
        r.examined_sets.size() / static_cast<std::size_t>(task.words),
        static_cast<long long>(r.starts), static_cast<long long>(r.starts_at_budget),
        static_cast<long long>(r.evaluations), r.seconds);
  }
  std::fflush(stdout);
}

// The rules of one changed word against several that run leaves to the grid (where one key
// serves tasks of both): an option given for the other kind would do nothing here.
void check_words_options(const OnePointCommand& command, const StudyConfig& study) {
  const Index words = study.grid.words.front();
  if (words >= 2) {
    if (command.given("positions")) {
      throw InputError("positions = '" + study.search.positions.to_string() +
                       "': applies to words = 1; word-sets names the sets examined with words "
                       ">= 2 (first, random:r or greedy)");
    }
    require_input(study.search.budget_check < 2, "budget-check = '" +
                                                     std::to_string(study.search.budget_check) +
                                                     "': applies to words = 1 only");
  } else if (command.given("word-sets")) {
    throw InputError("word-sets = '" + study.search.word_sets.to_string() +
                     "': applies to words >= 2 only");
  }
}

}  // namespace

int ws_command(int argc, char** argv) {
  OnePointCommand command("ws", Experiment::ws, ws_keys(), kUsage, /*ws_search_options=*/true);
  OnePointStudy study;
  try {
    if (!command.parse(argc, argv)) return kExitOk;  // --help
    StudyConfig config = command.study();
    check_words_options(command, config);
    study = plan_one_point(std::move(config));
  } catch (const InputError& e) {
    return report_usage_error("ws", e);
  }
  const std::string format = command.format();
  const bool several_words = study.config.grid.words.front() >= 2;
  if (format == "csv") std::printf("%s\n", several_words ? kWordsCsvHeader : kCsvHeader);
  run_trials(study, [&](const TaskSpec& task, const TaskOutput& out) {
    if (several_words) {
      print_words_row(format, task, out.ws);
    } else {
      print_row(format, task, out.ws);
    }
  });
  return kExitOk;
}

}  // namespace wordsens::cli
