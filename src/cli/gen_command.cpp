// `wordsens gen`: trained-head generalization after a one-word change at one grid point, one
// line per trial, without MPI or a results file. It takes run's keys (one value each) and runs
// trial t as task t of that one-point study (cli/one_point.hpp): its own weights, texts, labels and
// optimiser starts, the same as `wordsens run` with the same keys.
#include <iomanip>
#include <iostream>
#include <string>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/one_point.hpp"
#include "core/errors.hpp"

namespace wordsens::cli {
namespace {

const std::string kUsage =
    "usage: wordsens gen --model M --n N --d D [--k 1.0D] --N NTRAIN --training T "
    "--objective O [options]\n\n"
    "Trains a minimum-norm head on NTRAIN texts (synthetic ones labelled sign(<vec(X), w>), or\n"
    "an embeddings file's with its labels), fits the new text X (finetune or retrain), then\n"
    "searches a one-word change X^i(Delta), |Delta| <= sqrt(d), whose true label is -y.\n"
    "The options are the keys of wordsens run (the same spellings, defaults and checks), one\n"
    "value each: trial t is task t of the study of that one grid point (its weights, texts and\n"
    "starts).\n"
    "Columns: t0 = phi(X)'theta*, t1 = phi(X)'theta (= y), D0 / D1 = the same at the changed\n"
    "text, E = (D1 + y)^2, cond_K = cond(PhiPhi'), seconds of the trial, and cert_rel_err, D1\n"
    "recomputed from scratch against the search's value (the trial fails with exit code 1 above\n"
    "1e-9).\n\n"
    "options";

// The keys of run that gen takes; those without a default are grids or lists in run, one value
// that gen cannot guess here.
KeySubset gen_keys() {
  return {{"n", "d", "k", "mlp-width", "layers", "activation", "heads", "mask", "rf-sampling",
           "trials", "seed", "positions", "N", "training", "objective", "data"},
          {"n", "d", "N", "training", "objective"},
          {}};
}

void print_row(std::ostream& out, const std::string& format, const TaskSpec& task,
               const GenRecord& r) {
  if (format == "csv") {
    out << task.trial << ',' << std::setprecision(17) << r.t0 << ',' << r.t1 << ',' << r.D0 << ','
        << r.D1 << ',' << r.E << ',' << r.cond_K << ',' << std::setprecision(6) << r.seconds << ','
        << std::setprecision(3) << r.cert_rel_err << '\n';
    return;
  }
  out << "trial " << task.trial << std::setprecision(6) << ": t0 = " << r.t0 << "  t1 = " << r.t1
      << "  D0 = " << r.D0 << "  D1 = " << r.D1 << "  E = " << r.E << "  cond_K = " << r.cond_K
      << "  (i* = " << r.position << ", |Delta*| = " << witness_norm(r.witness)
      << ", evaluations = " << r.evaluations << ", " << std::setprecision(3) << r.seconds
      << " s)\n";
}

}  // namespace

int gen_command(int argc, char** argv) {
  OnePointCommand command("gen", Experiment::gen, gen_keys(), kUsage,
                          /*ws_search_options=*/false);
  OnePointStudy study;
  try {
    if (!command.parse(argc, argv)) return kExitOk;  // --help
    study = plan_one_point(command.study());
  } catch (const InputError& e) {
    return report_usage_error("gen", e);
  }
  const std::string format = command.format();
  if (format == "csv") std::cout << "trial,t0,t1,D0,D1,E,cond_K,seconds,cert_rel_err\n";
  run_trials(study, [&](const TaskSpec& task, const TaskOutput& out) {
    print_row(std::cout, format, task, out.gen.front());
    std::cout.flush();
  });
  return kExitOk;
}

}  // namespace wordsens::cli
