// `wordsens ws`: word-sensitivity estimates on synthetic texts, one line per trial,
// without MPI or files, so that a person can try a model before running a study. Trial t uses
// the text synthetic_sample(seed, n, d, t, 0) and task id t for weights, positions and starts:
// each line is reproducible on its own. Scripts parse the csv format: keep it stable.
#include <boost/program_options.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/trial_options.hpp"
#include "core/errors.hpp"
#include "core/printable.hpp"
#include "data/synthetic.hpp"
#include "estimators/multi_word.hpp"
#include "estimators/word_sensitivity.hpp"
#include "models/shared/feature_map.hpp"
#include "study/study.hpp"

namespace wordsens::cli {
namespace {

namespace po = boost::program_options;

constexpr const char* kCsvHeader =
    "trial,S,S_upper,argmax_position,evaluations,seconds,S_upper_scope,cert_rel_err,starts,"
    "starts_at_budget,stationarity,S_budget_check";

constexpr const char* kWordsCsvHeader =
    "trial,words,S,S_upper,argmax_set,evaluations,seconds,S_upper_scope,cert_rel_err,starts,"
    "starts_at_budget";

po::options_description describe(TrialOptions& a, long long& words) {
  po::options_description o(
      "usage: wordsens ws --model M --n N --d D [options]\n\n"
      "Estimates the word sensitivity S = max_i max_{|Delta| <= sqrt(d)} |phi(X^i(Delta)) - "
      "phi(X)| / |phi(X)|\n"
      "of a random feature map on synthetic texts X (n words, rows of norm sqrt(d)) by projected\n"
      "gradient ascent from several starts per word position. S is a lower bound attained by a\n"
      "witness (i*, Delta*) and recomputed from scratch there (cert_rel_err; above 1e-9 the\n"
      "trial fails with exit code 1); S_upper is a certified upper bound where the model has\n"
      "one (rf, drf; S_upper_scope 1: over all positions, 2: over the examined positions only).\n"
      "Trial t uses text t and task id t (weights, positions, starts). --format csv prints\n"
      "  trial,S,S_upper,argmax_position,evaluations,seconds,S_upper_scope,cert_rel_err,"
      "starts,starts_at_budget,stationarity,S_budget_check\n"
      "then one row per trial (S_upper and S_budget_check empty where undefined).\n"
      "With --words m >= 2 it estimates S_m, the same with m words changed at once (each in the\n"
      "ball of radius sqrt(d)), jointly over the m rows; --positions then names the word sets:\n"
      "first (words 0..m-1) | random:r (r random m-sets) | greedy (grown from the best single\n"
      "word, one word at a time). S_upper (rf with the full sampler, drf) bounds the examined\n"
      "sets. --format csv prints\n"
      "  trial,words,S,S_upper,argmax_set,evaluations,seconds,S_upper_scope,cert_rel_err,"
      "starts,starts_at_budget\n"
      "with argmax_set the changed words separated by ';'.\n\n"
      "options");
  o.add_options()("help,h", "print this help and exit");
  o.add_options()("words", po::value(&words)->default_value(1),
                  "m, the number of words changed at once (1: the word sensitivity S)");
  add_trial_options(o, a,
                    "word positions examined: all | first | random:m (m distinct random positions)",
                    /*ws_options=*/true);
  return o;
}

void print_row(const std::string& format, long long trial, const WsResult& r, double seconds,
               double S_budget_check) {
  if (format == "csv") {
    std::printf("%lld,%.17g,", trial, r.S);
    if (r.S_upper) std::printf("%.17g", *r.S_upper);
    std::printf(",%lld,%ld,%.6g,%d,%.3g,%ld,%ld,%.3g,", static_cast<long long>(r.argmax_position),
                r.evaluations, seconds, r.S_upper_scope, r.cert_rel_err, r.starts,
                r.starts_at_budget, r.stationarity);
    if (std::isfinite(S_budget_check)) std::printf("%.17g", S_budget_check);
    std::printf("\n");
  } else {
    std::printf("trial %lld: S = %.6g", trial, r.S);
    if (r.S_upper) {
      std::printf("  S_upper = %.6g%s", *r.S_upper,
                  r.S_upper_scope == 2 ? " (examined positions only)" : "");
    }
    if (std::isfinite(S_budget_check)) std::printf("  S_budget_check = %.6g", S_budget_check);
    std::printf(
        "  (i* = %lld, |Delta*| = %.4g, cert %.1e, starts = %ld (%ld at budget), evaluations = "
        "%ld, %.2f s)\n",
        static_cast<long long>(r.argmax_position), r.witness.norm(), r.cert_rel_err, r.starts,
        r.starts_at_budget, r.evaluations, seconds);
  }
  std::fflush(stdout);
}

void print_words_row(const std::string& format, long long trial, const MultiWordResult& r,
                     double seconds) {
  // csv: "0;3" (one field); text: "{0, 3}".
  const char* separator = format == "csv" ? ";" : ", ";
  std::string set;
  for (const Index i : r.argmax_set) set += (set.empty() ? "" : separator) + std::to_string(i);
  if (format == "csv") {
    std::printf("%lld,%lld,%.17g,", trial, static_cast<long long>(r.words), r.S);
    if (r.S_upper) std::printf("%.17g", *r.S_upper);
    std::printf(",%s,%ld,%.6g,%d,%.3g,%ld,%ld\n", set.c_str(), r.evaluations, seconds,
                r.S_upper_scope, r.cert_rel_err, r.starts, r.starts_at_budget);
  } else {
    std::printf("trial %lld: S_%lld = %.6g", trial, static_cast<long long>(r.words), r.S);
    if (r.S_upper) std::printf("  S_upper = %.6g (examined sets only)", *r.S_upper);
    std::printf(
        "  (M* = {%s}, |Delta*| = %.4g, cert %.1e, %zu sets, starts = %ld (%ld at budget), "
        "evaluations = %ld, %.2f s)\n",
        set.c_str(), r.witness.norm(), r.cert_rel_err, r.sets.size(), r.starts, r.starts_at_budget,
        r.evaluations, seconds);
  }
  std::fflush(stdout);
}

/// `wordsens ws --words m` with m ≥ 2: S_m per trial (estimators/multi_word.hpp).
int run_words(const TrialOptions& a, const ModelSpec& spec, const MultiWordOptions& options) {
  const auto seed = static_cast<std::uint32_t>(a.seed);
  if (a.format == "csv") std::printf("%s\n", kWordsCsvHeader);
  for (long long trial = 0; trial < a.trials; ++trial) {
    const auto t = static_cast<std::uint32_t>(trial);
    const auto start = std::chrono::steady_clock::now();
    const auto model = make_feature_map(spec, {seed, t});
    const Matrix X = synthetic_sample(seed, spec.n, spec.d, t, 0);
    const MultiWordResult result = estimate_multi_word_sensitivity(*model, X, options, seed, t);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    print_words_row(a.format, trial, result, seconds);
  }
  return kExitOk;
}

}  // namespace

int ws_command(int argc, char** argv) {
  TrialOptions a;
  long long words = 1;
  const po::options_description options = describe(a, words);
  ModelSpec spec;
  StudyConfig study;
  WsOptions ws;
  MultiWordOptions multi;
  try {
    po::variables_map vm;
    if (!parse_command_line(argc, argv, options, vm)) return kExitOk;  // --help
    spec = checked_model_spec(vm, a);
    require_input(words >= 1 && words <= spec.n,
                  "--words must be between 1 and n = " + std::to_string(spec.n));
    if (words >= 2) {
      // --positions names the word sets; the single-word settings take their default.
      if (a.positions == "all") {
        throw InputError(
            "--positions all cannot take --words >= 2 (every m-set of the words): use first, "
            "random:r or greedy");
      }
      TrialOptions single = a;
      single.positions = "first";
      study = checked_search_settings(single);
      require_input(study.search.budget_check < 2, "--budget-check does not apply to --words >= 2");
      study.search.word_sets = WordSetFamily::parse(a.positions);
      multi = multi_word_options(study, words);  // what a study's task with m words runs
      std::vector<Index> first_words(static_cast<std::size_t>(words));
      for (Index j = 0; j < words; ++j) first_words[static_cast<std::size_t>(j)] = j;
      if (!make_feature_map(spec, {0, 0}, first_words)->moves_several_words()) {
        throw InputError(spec.name + (spec.sampling == RfSampling::marginal
                                          ? " with the marginal sampler cannot take --words >= 2 "
                                            "(it draws single word blocks)"
                                          : " cannot take --words >= 2"));
      }
    } else {
      study = checked_search_settings(a);
    }
    ws = ws_options(study);
    // Validates the model name and sizes before any output (e.g. drf layers that do not fit).
    const auto seed0 = static_cast<std::uint32_t>(a.seed);
    if (words == 1) {
      (void)make_feature_map(spec, {seed0, 0}, ws.positions.resolve(spec.n, seed0, 0));
    }
  } catch (const std::exception& e) {  // boost's errors and ours: a usage error
    std::cerr << "wordsens ws: error: " << printable(e.what()) << " (see wordsens ws --help)\n";
    return kExitUsage;
  }
  if (words >= 2) return run_words(a, spec, multi);

  const auto seed = static_cast<std::uint32_t>(a.seed);
  if (a.format == "csv") std::printf("%s\n", kCsvHeader);
  for (long long trial = 0; trial < a.trials; ++trial) {
    const auto t = static_cast<std::uint32_t>(trial);
    const auto start = std::chrono::steady_clock::now();
    // The estimator resolves the same positions from (seed, t); the marginal rf needs them.
    const auto model = make_feature_map(spec, {seed, t}, ws.positions.resolve(spec.n, seed, t));
    const Matrix X = synthetic_sample(seed, spec.n, spec.d, t, 0);
    const WsResult result = estimate_word_sensitivity(*model, X, ws, seed, t);
    require_certified("S", result.S, result.cert_rel_err);
    double S_budget_check = std::numeric_limits<double>::quiet_NaN();
    if (study.search.budget_check >= 2 &&
        trial == 0) {  // the driver's rule: trial 0 of a grid point
      const WsResult check =
          recheck_with_more_budget(*model, X, ws, study.search.budget_check, result, seed, t);
      require_certified("S of the budget check", check.S, check.cert_rel_err);
      S_budget_check = check.S;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    print_row(a.format, trial, result, seconds, S_budget_check);
  }
  return kExitOk;
}

}  // namespace wordsens::cli
