#include "study/record_fields.hpp"

#include <array>
#include <cmath>

#include "estimators/word_sensitivity.hpp"

namespace wordsens {
namespace {

using W = WsRecord;
using G = GenRecord;

// clang-format off
const std::array<ScalarField<W>, 13> kWsScalars{{
    {"task_id", "id", "the task (row of /tasks)", Valid::any, &W::task_id},
    {"S", "1", "word sensitivity S_m of the task's m changed words (S = S_1 for one): a "
     "certified lower bound, attained at the witness (M*, Δ*)", Valid::nonnegative, &W::S},
    {"S_upper", "1", "certified upper bound on S over the positions (word sets) S_upper_scope "
     "names; NaN where the model has none", Valid::nonnegative_or_nan, &W::S_upper},
    {"S_upper_scope", "code", "what S_upper bounds: 0 none, 1 the supremum over all n positions, "
     "2 the supremum over the examined positions only", Valid::code_0_2, &W::S_upper_scope, 2},
    {"cert_rel_err", "1", "abs(S recomputed from scratch at the witness − S) / S (the run "
     "fails above 1e-9)", Valid::certified, &W::cert_rel_err, 2},
    {"argmax_position", "position", "i*, the position of the witness word (0-based); -1 for "
     "several changed words (see argmax_set)", Valid::position_or_none, &W::argmax_position},
    {"phi_norm", "1", "‖φ(X)‖ of the unperturbed sample", Valid::positive, &W::phi_norm},
    {"evaluations", "count", "feature-map evaluations spent (screening, ascents, polish; all "
     "positions)", Valid::count, &W::evaluations},
    {"starts", "count", "ascents run, all positions", Valid::count, &W::starts, 2},
    {"starts_at_budget", "count", "ascents stopped by the evaluation budget rather than by "
     "convergence", Valid::count, &W::starts_at_budget, 2},
    {"stationarity", "1", "r·‖projected gradient of f‖ / f at the witness (0 at a KKT point; "
     "r = √d, f = ‖φ(X^i*(Δ*)) − φ(X)‖²); NaN for several changed words", Valid::nonnegative_or_nan, &W::stationarity, 2},
    {"S_budget_check", "1", "S of a rerun with budget-check times the evaluations and starts "
     "(a superset of the search, so ≥ S); NaN where not rerun (one changed word only)",
     Valid::nonnegative_or_nan, &W::S_budget_check, 2},
    {"seconds", "s", "wall time of the task (not reproducible)", Valid::nonnegative, &W::seconds, 0, false},
}};

const std::array<RaggedField<W>, 6> kWsRagged{{
    {"witness", "1", "Δ*, the witness moves of the words of M*, m·d values in argmax_set's order "
     "(with --save-witness)", Valid::finite, &W::witness, 0, true},
    {"examined", "position", "the positions examined, ascending (one changed word; empty "
     "otherwise)", Valid::position, &W::examined, 2},
    {"position_S", "1", "the best S found at each examined position (same order as examined)",
     Valid::nonnegative, &W::position_S, 2},
    {"argmax_set", "position", "M*, the changed words of the witness (m values; {i*} for one)",
     Valid::position, &W::argmax_set, 4},
    {"examined_sets", "position", "several changed words: the word sets examined, m positions "
     "each, one set after another (empty for one word)", Valid::position, &W::examined_sets, 4},
    {"set_S", "1", "several changed words: the best S_m found on each examined set (same order "
     "as examined_sets)", Valid::nonnegative, &W::set_S, 4},
}};

const std::array<ScalarField<G>, 13> kGenScalars{{
    {"task_id", "id", "the task (row of /tasks)", Valid::any, &G::task_id},
    {"training", "code", "0 finetune, 1 retrain", Valid::code_0_1, &G::training},
    {"objective", "code", "Δ objective: 0 loss, 1 align", Valid::code_0_1, &G::objective},
    {"t0", "1", "φ(X)ᵀθ*, the head before training on the new sample", Valid::finite, &G::t0},
    {"t1", "1", "φ(X)ᵀθ, the trained head on the new sample (= y)", Valid::finite, &G::t1},
    {"D0", "1", "φ(X^i(Δ))ᵀθ* at the best Δ found", Valid::finite, &G::D0},
    {"D1", "1", "φ(X^i(Δ))ᵀθ at the best Δ found", Valid::finite, &G::D1},
    {"E", "1", "test error (D1 − y_Δ)² at the best Δ found, y_Δ = −y", Valid::nonnegative, &G::E},
    {"cond_K", "1", "2-norm condition number of the kernel matrix K = ΦΦᵀ", Valid::nonnegative_or_nan, &G::cond_K},
    {"cert_rel_err", "1", "abs(D1 recomputed from scratch − D1 of the search's evaluator) / "
     "max(1, abs(D1)) (the run fails above 1e-9)", Valid::certified, &G::cert_rel_err, 2},
    {"position", "position", "the changed position i (0-based)", Valid::position, &G::position},
    {"evaluations", "count", "feature-map evaluations spent", Valid::count, &G::evaluations},
    {"seconds", "s", "wall time of the task, the same on all its rows (not reproducible)",
     Valid::nonnegative, &G::seconds, 0, false},
}};

const std::array<RaggedField<G>, 1> kGenRagged{{
    {"witness", "1", "Δ*, the best perturbation found (d values; with --save-witness)",
     Valid::finite, &G::witness, 0, true},
}};
// clang-format on

}  // namespace

const RecordSchema<WsRecord>& ws_schema() {
  static const RecordSchema<WsRecord> schema{kWsScalars, kWsRagged};
  return schema;
}

const RecordSchema<GenRecord>& gen_schema() {
  static const RecordSchema<GenRecord> schema{kGenScalars, kGenRagged};
  return schema;
}

bool is_valid(Valid rule, double value, std::int64_t n) {
  switch (rule) {
    case Valid::any:
      return true;
    case Valid::finite:
      return std::isfinite(value);
    case Valid::nonnegative:
      return std::isfinite(value) && value >= 0;
    case Valid::positive:
      return std::isfinite(value) && value > 0;
    case Valid::certified:
      // A record that fails its certification is never written (require_certified).
      return value >= 0 && value <= kCertificationTolerance;
    case Valid::nonnegative_or_nan:
      return std::isnan(value) || value >= 0;
    case Valid::code_0_1:
      return value == 0 || value == 1;
    case Valid::code_0_2:
      return value == 0 || value == 1 || value == 2;
    case Valid::count:
      return value >= 0;
    case Valid::position:
      return value >= 0 && value < static_cast<double>(n);
    case Valid::position_or_none:
      return value >= -1 && value < static_cast<double>(n);
  }
  return false;
}

const char* describe(Valid rule) {
  switch (rule) {
    case Valid::any:
      return "any";
    case Valid::finite:
      return "finite";
    case Valid::nonnegative:
      return "finite, >= 0";
    case Valid::positive:
      return "finite, > 0";
    case Valid::certified:
      return "0 <= value <= 1e-9";
    case Valid::nonnegative_or_nan:
      return ">= 0 or NaN";
    case Valid::code_0_1:
      return "0 or 1";
    case Valid::code_0_2:
      return "0, 1 or 2";
    case Valid::count:
      return ">= 0";
    case Valid::position:
      return "0 <= value < n";
    case Valid::position_or_none:
      return "-1 <= value < n";
  }
  return "?";
}

const char* type_name(FieldType type) {
  switch (type) {
    case FieldType::f64:
      return "float64";
    case FieldType::i64:
      return "int64";
    case FieldType::u32:
      return "uint32";
    case FieldType::u8:
      return "uint8";
  }
  return "?";
}

}  // namespace wordsens
