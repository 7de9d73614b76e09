// `wordsens gen`: trained-head generalization after a one-word change (SPEC §4) on synthetic
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
#include "estimators/trained_head.hpp"
#include "grid/grid_spec.hpp"
#include "models/feature_map.hpp"

namespace wordsens::cli {
namespace {

namespace po = boost::program_options;

struct GenArgs {
  std::string model, k_text = "1.0D", training, objective, positions = "all", format = "text",
                     activation = "relu";
  long long n = 0, d = 0, N = 0, trials = 1, seed = 1, layers = 1, max_evaluations = 300;
};

po::options_description describe(GenArgs& a) {
  std::string models;
  for (const auto& name : known_models()) models += (models.empty() ? "" : "|") + name;
  po::options_description o(
      "usage: wordsens gen --model M --n N --d D [--k 1.0D] --N NTRAIN --training T "
      "--objective O [options]\n\n"
      "Trains a minimum-norm head on NTRAIN synthetic texts (labels sign(<vec(X), w>)), fits\n"
      "the new text X (finetune or retrain), then searches a one-word change X^i(Delta),\n"
      "|Delta| <= sqrt(d), whose true label is -y. Trial t uses task id t (weights, texts,\n"
      "starts). Columns: t0 = phi(X)'theta*, t1 = phi(X)'theta (= y), D0 / D1 = the same at\n"
      "the changed text, E = (D1 + y)^2, cond_K = cond(PhiPhi'), seconds of the trial.\n\n"
      "options");
  o.add_options()                                                         //
      ("help,h", "print this help and exit")                              //
      ("model", po::value(&a.model), ("feature map: " + models).c_str())  //
      ("n", po::value(&a.n), "words per text (>= 1)")                     //
      ("d", po::value(&a.d), "embedding dimension (>= 1)")                //
      ("k", po::value(&a.k_text)->default_value(a.k_text),
       "width of rf/drf: an integer or a multiple of D = n*d such as 1.0D")                 //
      ("N", po::value(&a.N), "training-set size (1 <= N < p, p the feature dimension)")     //
      ("training", po::value(&a.training), "how the head learns (X, y): finetune|retrain")  //
      ("objective", po::value(&a.objective),
       "what the Delta search minimises: loss ((D1 + y)^2) | align (feature alignment)")    //
      ("trials", po::value(&a.trials)->default_value(a.trials), "number of trials (>= 1)")  //
      ("seed", po::value(&a.seed)->default_value(a.seed), "master seed (0 .. 2^32-1)")      //
      ("positions", po::value(&a.positions)->default_value(a.positions),
       "word positions searched: all | first | random:m")                                 //
      ("layers", po::value(&a.layers)->default_value(a.layers), "depth L of drf (>= 1)")  //
      ("activation", po::value(&a.activation)->default_value(a.activation),
       "activation of rf/drf: relu|tanh")  //
      ("max-evals", po::value(&a.max_evaluations)->default_value(a.max_evaluations),
       "objective evaluations per optimiser start (>= 1)")  //
      ("format", po::value(&a.format)->default_value(a.format), "output: text|csv");
  return o;
}

void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument(message);
}

void print_row(std::ostream& out, const std::string& format, long long trial, const GenResult& r,
               double seconds) {
  if (format == "csv") {
    out << trial << ',' << std::setprecision(17) << r.t0 << ',' << r.t1 << ',' << r.D0 << ','
        << r.D1 << ',' << r.E << ',' << r.cond_K << ',' << std::setprecision(6) << seconds << '\n';
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
    po::store(po::command_line_parser(argc, argv).options(options).run(), vm);
    if (vm.count("help")) {
      std::cout << options << "\n";
      return kExitOk;
    }
    po::notify(vm);
    for (const char* name : {"model", "n", "d", "N", "training", "objective"}) {
      require(vm.count(name) > 0, std::string("missing required option --") + name);
    }
    require(a.n >= 1 && a.d >= 1, "--n and --d must be at least 1");
    require(a.n * a.d <= std::numeric_limits<std::int32_t>::max(), "n*d is too large");
    require(a.N >= 1, "--N must be at least 1");
    require(a.trials >= 1 && a.trials <= std::numeric_limits<std::uint32_t>::max(),
            "--trials must be at least 1");
    require(a.seed >= 0 && a.seed <= std::numeric_limits<std::uint32_t>::max(),
            "--seed must be in 0 .. 2^32-1");
    require(a.layers >= 1 && a.layers <= 1000, "--layers must be in 1 .. 1000");
    require(a.max_evaluations >= 1 && a.max_evaluations <= 1000000000,
            "--max-evals must be at least 1");
    require(a.format == "text" || a.format == "csv", "--format must be text or csv");
    require(a.activation == "relu" || a.activation == "tanh", "--activation must be relu or tanh");
    const auto k_items = parse_k_grid(a.k_text, std::numeric_limits<std::int32_t>::max());
    require(k_items.size() == 1, "--k takes one width, e.g. 2560 or 1.0D");

    spec.name = a.model;
    spec.n = a.n;
    spec.d = a.d;
    spec.k = k_items.front().resolve(a.n, a.d);
    spec.layers = static_cast<int>(a.layers);
    spec.activation = a.activation == "tanh" ? Activation::tanh : Activation::relu;
    gen.trainings = {parse_training(a.training)};
    gen.objectives = {parse_objective(a.objective)};
    gen.positions = PositionSet::parse(a.positions);
    gen.ascent.max_evaluations = static_cast<int>(a.max_evaluations);
    // Validates the name and sizes before any work (p is known without weights).
    const auto probe = make_feature_map(spec, {static_cast<std::uint32_t>(a.seed), 0});
    if (a.N >= probe->feature_dim()) {
      throw std::invalid_argument("N ≥ p (N = " + std::to_string(a.N) +
                                  ", p = " + std::to_string(probe->feature_dim()) +
                                  "): the min-norm head needs fewer samples than features");
    }
  } catch (const std::exception& e) {  // boost's errors and ours: a usage error
    std::cerr << "wordsens gen: error: " << e.what() << " (see wordsens gen --help)\n";
    return kExitUsage;
  }

  const auto seed = static_cast<std::uint32_t>(a.seed);
  if (a.format == "csv") std::cout << "trial,t0,t1,D0,D1,E,cond_K,seconds\n";
  for (long long trial = 0; trial < a.trials; ++trial) {
    const auto t = static_cast<std::uint32_t>(trial);
    const auto start = std::chrono::steady_clock::now();
    const auto model = make_feature_map(spec, {seed, t});
    const GenProblem problem = synthetic_gen_problem(seed, spec.n, spec.d, a.N, t);
    const auto results = evaluate_generalization(*model, problem, gen, seed, t);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    print_row(std::cout, a.format, trial, results.front(), seconds);
    std::cout.flush();
  }
  return kExitOk;
}

}  // namespace wordsens::cli
