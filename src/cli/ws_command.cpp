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

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/trial_options.hpp"
#include "data/synthetic.hpp"
#include "estimators/word_sensitivity.hpp"
#include "grid/study.hpp"
#include "models/feature_map.hpp"

namespace wordsens::cli {
namespace {

namespace po = boost::program_options;

constexpr const char* kCsvHeader =
    "trial,S,S_upper,argmax_position,evaluations,seconds,S_upper_scope,cert_rel_err,starts,"
    "starts_at_budget,stationarity,S_budget_check";

struct WsArgs : TrialOptions {
  // The estimator's own defaults, so that the CLI and the driver agree unless told otherwise.
  std::string min_total_sphere_starts =
      min_total_sphere_starts_text(WsOptions{}.min_total_sphere_starts);
  long long sphere_starts = WsOptions{}.sphere_starts, screen_points = WsOptions{}.screen_points,
            near_origin_starts = WsOptions{}.near_origin_starts;
  long long budget_check = 0;
  bool no_guided_start = false, no_upper_bound = false;
};

po::options_description describe(WsArgs& a) {
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
      "then one row per trial (S_upper and S_budget_check empty where undefined).\n\n"
      "options");
  o.add_options()("help,h", "print this help and exit");
  add_trial_options(
      o, a, "word positions examined: all | first | random:m (m distinct random positions)");
  o.add_options()  //
      ("sphere-starts", po::value(&a.sphere_starts)->default_value(a.sphere_starts),
       "ascents per position from the best screened points on the sphere |Delta| = sqrt(d)")  //
      ("min-total-sphere-starts",
       po::value(&a.min_total_sphere_starts)->default_value(a.min_total_sphere_starts),
       "at least this many sphere ascents in all, spread over the examined positions (so "
       "--positions first gets this many; 0: just --sphere-starts per position); auto: 32 for "
       "raf and raf_relu, 0 for rf and drf")  //
      ("screen-points", po::value(&a.screen_points)->default_value(a.screen_points),
       "random sphere points per position screened (value only) to pick the sphere starts")  //
      ("near-origin-starts", po::value(&a.near_origin_starts)->default_value(a.near_origin_starts),
       "ascents per position from 0.1*N(0, I) near the origin")  //
      ("no-guided-start", po::bool_switch(&a.no_guided_start),
       "skip the model-guided start (e.g. raf's W'sum_j x_j direction); default: use it")  //
      ("no-upper-bound", po::bool_switch(&a.no_upper_bound),
       "skip S_upper (for rf it reads all of V once more); default: compute it")  //
      ("budget-check", po::value(&a.budget_check)->default_value(a.budget_check),
       "0: off; f in 2..16: trial 0 also reruns its search with f times the evaluations and the "
       "starts, seeded with the plain search's points (S_budget_check >= S)");
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

}  // namespace

int ws_command(int argc, char** argv) {
  WsArgs a;
  const po::options_description options = describe(a);
  ModelSpec spec;
  WsOptions ws;
  try {
    po::variables_map vm;
    if (!parse_command_line(argc, argv, options, vm)) return kExitOk;  // --help
    spec = checked_model_spec(vm, a);
    require(a.sphere_starts >= 0 && a.sphere_starts <= 100000 && a.screen_points >= 0 &&
                a.screen_points <= 100000 && a.near_origin_starts >= 0 &&
                a.near_origin_starts <= 100000,
            "--sphere-starts, --screen-points and --near-origin-starts must be in 0 .. 100000");
    require(a.sphere_starts + a.near_origin_starts > 0 || !a.no_guided_start,
            "at least one start is needed (sphere, near-origin or guided)");
    require(a.budget_check == 0 || (a.budget_check >= 2 && a.budget_check <= kMaxBudgetCheck),
            "--budget-check must be 0 (off) or in 2 .. " + std::to_string(kMaxBudgetCheck));
    ws.positions = PositionSet::parse(a.positions);
    ws.ascent.max_evaluations = static_cast<int>(a.max_evals);
    ws.sphere_starts = static_cast<int>(a.sphere_starts);
    ws.screen_points = static_cast<int>(a.screen_points);
    ws.min_total_sphere_starts = parse_min_total_sphere_starts(a.min_total_sphere_starts);
    ws.near_origin_starts = static_cast<int>(a.near_origin_starts);
    ws.guided_start = !a.no_guided_start;
    ws.upper_bound = !a.no_upper_bound;
    // Validates the model name and sizes before any output (e.g. drf layers that do not fit).
    const auto seed0 = static_cast<std::uint32_t>(a.seed);
    (void)make_feature_map(spec, {seed0, 0}, ws.positions.resolve(spec.n, seed0, 0));
  } catch (const std::exception& e) {  // boost's errors and ours: a usage error
    std::cerr << "wordsens ws: error: " << e.what() << " (see wordsens ws --help)\n";
    return kExitUsage;
  }

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
    if (a.budget_check >= 2 && trial == 0) {  // the driver's rule: trial 0 of a grid point
      const WsResult check = recheck_with_more_budget(
          *model, X, ws, static_cast<int>(a.budget_check), result, seed, t);
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
