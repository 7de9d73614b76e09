// `wordsens gen`: trained-head generalization after a one-word change on synthetic
// texts, one line per trial, without MPI or files. Trial t uses task id t: its own weights,
// texts, labels and optimiser starts, so each line is reproducible on its own.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/trial_options.hpp"
#include "core/errors.hpp"
#include "core/printable.hpp"
#include "data/synthetic.hpp"
#include "estimators/trained_head.hpp"
#include "estimators/word_sensitivity.hpp"
#include "models/shared/feature_map.hpp"

namespace wordsens::cli {
namespace {

namespace po = boost::program_options;

struct GenArgs : TrialOptions {
  std::string training, objective;
  long long N = 0;
};

po::options_description describe(GenArgs& a) {
  po::options_description o(
      "usage: wordsens gen --model M --n N --d D [--k 1.0D] --N NTRAIN --training T "
      "--objective O [options]\n\n"
      "Trains a minimum-norm head on NTRAIN synthetic texts (labels sign(<vec(X), w>)), fits\n"
      "the new text X (finetune or retrain), then searches a one-word change X^i(Delta),\n"
      "|Delta| <= sqrt(d), whose true label is -y. Trial t uses task id t (weights, texts,\n"
      "starts). Columns: t0 = phi(X)'theta*, t1 = phi(X)'theta (= y), D0 / D1 = the same at\n"
      "the changed text, E = (D1 + y)^2, cond_K = cond(PhiPhi'), seconds of the trial, and\n"
      "cert_rel_err, D1 recomputed from scratch against the search's value (the trial fails\n"
      "with exit code 1 above 1e-9).\n\n"
      "options");
  o.add_options()("help,h", "print this help and exit");
  add_trial_options(o, a, "word positions searched: all | first | random:m",
                    /*ws_options=*/false);
  o.add_options()  //
      ("N", po::value(&a.N),
       "training-set size (required, 1 <= N < p, p the feature dimension)")  //
      ("training", po::value(&a.training),
       "how the head learns (X, y) (required): finetune|retrain")  //
      ("objective", po::value(&a.objective),
       "what the Delta search minimises (required): loss ((D1 + y)^2) | align (feature "
       "alignment)");
  return o;
}

void print_row(std::ostream& out, const std::string& format, long long trial, const GenResult& r,
               double seconds) {
  if (format == "csv") {
    out << trial << ',' << std::setprecision(17) << r.t0 << ',' << r.t1 << ',' << r.D0 << ','
        << r.D1 << ',' << r.E << ',' << r.cond_K << ',' << std::setprecision(6) << seconds << ','
        << std::setprecision(3) << r.cert_rel_err << '\n';
    return;
  }
  out << "trial " << trial << std::setprecision(6) << ": t0 = " << r.t0 << "  t1 = " << r.t1
      << "  D0 = " << r.D0 << "  D1 = " << r.D1 << "  E = " << r.E << "  cond_K = " << r.cond_K
      << "  (i* = " << r.position << ", |Delta*| = " << r.delta.norm()
      << ", evaluations = " << r.evaluations << ", " << std::setprecision(3) << seconds << " s)\n";
}

}  // namespace

int gen_command(int argc, char** argv) {
  GenArgs a;
  const po::options_description options = describe(a);
  ModelSpec spec;
  GenOptions gen;
  try {
    po::variables_map vm;
    if (!parse_command_line(argc, argv, options, vm)) return kExitOk;  // --help
    spec = checked_model_spec(vm, a);
    for (const char* name : {"N", "training", "objective"}) {
      require_input(vm.count(name) > 0, std::string("missing required option --") + name);
    }
    require_input(a.N >= 1, "--N must be at least 1");
    StudyConfig study = checked_search_settings(a);
    study.search.trainings = {parse_training(a.training)};
    study.search.objectives = {parse_objective(a.objective)};
    gen = gen_options(study);
    // Validates the name and sizes before any work (p is known without weights; the full
    // sampler's probe draws nothing).
    ModelSpec probe_spec = spec;
    probe_spec.sampling = RfSampling::full;
    const auto probe = make_feature_map(probe_spec, {static_cast<std::uint32_t>(a.seed), 0});
    if (a.N >= probe->feature_dim()) {
      throw InputError("N ≥ p (N = " + std::to_string(a.N) +
                       ", p = " + std::to_string(probe->feature_dim()) +
                       "): the min-norm head needs fewer samples than features");
    }
  } catch (const std::exception& e) {  // boost's errors and ours: a usage error
    std::cerr << "wordsens gen: error: " << printable(e.what()) << " (see wordsens gen --help)\n";
    return kExitUsage;
  }

  const auto seed = static_cast<std::uint32_t>(a.seed);
  if (a.format == "csv") std::cout << "trial,t0,t1,D0,D1,E,cond_K,seconds,cert_rel_err\n";
  for (long long trial = 0; trial < a.trials; ++trial) {
    const auto t = static_cast<std::uint32_t>(trial);
    const auto start = std::chrono::steady_clock::now();
    const GenProblem problem = synthetic_gen_problem(seed, spec.n, spec.d, a.N, t);
    const auto model = make_gen_feature_map(spec, {seed, t}, problem, gen.positions);
    const auto results = evaluate_generalization(*model, problem, gen, seed, t);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    require_certified("D1", results.front().D1, results.front().cert_rel_err);
    print_row(std::cout, a.format, trial, results.front(), seconds);
    std::cout.flush();
  }
  return kExitOk;
}

}  // namespace wordsens::cli
