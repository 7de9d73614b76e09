#include "study/record_invariants.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>
#include <span>

namespace wordsens {
namespace {

// clang-format off
const std::array<RecordInvariant, 10> kInvariants{{
    {"upper_bound_and_scope", "/ws", "S_upper is NaN where S_upper_scope is 0 (no bound) and "
     "finite where it is 1 or 2"},
    {"scope_of_the_search", "/ws", "S_upper_scope is 1 (every position) only with one changed "
     "word; 2 with one changed word only under rf-sampling = marginal, with fewer examined "
     "positions than n; 0 wherever config_text says upper-bound = false"},
    {"starts", "/ws", "starts >= 1 and starts_at_budget <= starts"},
    {"one_word_positions", "/ws", "one changed word: examined holds at least one position, "
     "strictly ascending, and position_S one value per examined position; argmax_set is "
     "{argmax_position}; examined_sets and set_S are empty"},
    {"one_word_best", "/ws", "one changed word: argmax_position is an examined position, "
     "position_S there equals S, and no position_S exceeds S (by more than 1e-12 relative: each "
     "position divides by its own evaluation of ‖φ(X)‖)"},
    {"several_words_sets", "/ws", "m >= 2 changed words: argmax_position is -1, examined and "
     "position_S are empty, stationarity and S_budget_check NaN; argmax_set holds m distinct "
     "positions, set_S at least one value, examined_sets m distinct positions per value of set_S"},
    {"several_words_best", "/ws", "m >= 2 changed words: S is the largest set_S, and argmax_set "
     "is an examined set whose set_S equals S"},
    {"witness_length", "/ws, /gen", "witness_length is m·d (/gen: d) when the root attribute "
     "save_witness is 1, and 0 when it is 0"},
    {"gen_rows", "/gen", "a done task has one row per training mode and Δ objective of "
     "config_text's training and objective keys, each pair once"},
    {"gen_seconds", "/gen", "the rows of one task hold the same seconds (its wall time)"},
}};
// clang-format on

// How far a position's S may exceed the record's: each position's S divides by its own group's
// evaluation of ‖φ(X)‖, which may differ from the winner's in the last bits.
constexpr double kPositionTolerance = 1e-12;

std::string number(double value) {
  if (std::isnan(value)) return "nan";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string list(const std::vector<std::int64_t>& values) {
  std::string text = "{";
  for (std::size_t i = 0; i < values.size() && i < 8; ++i) {
    text += (i > 0 ? ", " : "") + std::to_string(values[i]);
  }
  return text + (values.size() > 8 ? ", …}" : "}");
}

// Whether `values` are m = `size` positions of a text of n words, all different.
bool distinct_positions(std::span<const std::int64_t> values, std::int64_t n) {
  std::set<std::int64_t> seen;
  for (const auto v : values) {
    if (v < 0 || v >= n || !seen.insert(v).second) return false;
  }
  return true;
}

void scope_rules(const WsRecord& r, const RecordContext& c, std::vector<BrokenInvariant>& out) {
  const int scope = r.S_upper_scope;
  if ((scope == 0) != std::isnan(r.S_upper) || (scope != 0 && !std::isfinite(r.S_upper))) {
    out.push_back({"upper_bound_and_scope",
                   "S_upper " + number(r.S_upper) + ", S_upper_scope " + std::to_string(scope)});
  }
  std::string why;
  if (scope == 1 && c.words >= 2) {
    why = "scope 1 with m = " + std::to_string(c.words) + " changed words";
  } else if (scope == 2 && c.words == 1 && !c.marginal_sampler) {
    why = "scope 2 with one changed word, without rf-sampling = marginal";
  } else if (scope == 2 && c.words == 1 && static_cast<std::int64_t>(r.examined.size()) >= c.n) {
    why = "scope 2 with every one of the n = " + std::to_string(c.n) + " positions examined";
  } else if (scope != 0 && !c.upper_bound) {
    why = "scope " + std::to_string(scope) + " under upper-bound = false";
  }
  if (!why.empty()) out.push_back({"scope_of_the_search", why});
}

void one_word_rules(const WsRecord& r, const RecordContext& c, std::vector<BrokenInvariant>& out) {
  const auto& examined = r.examined;
  std::string why;
  if (examined.empty()) {
    why = "no examined position";
  } else if (r.position_S.size() != examined.size()) {
    why = std::to_string(examined.size()) + " examined positions, " +
          std::to_string(r.position_S.size()) + " values of position_S";
  } else if (std::adjacent_find(examined.begin(), examined.end(), std::greater_equal<>()) !=
             examined.end()) {
    why = "examined " + list(examined) + " is not strictly ascending";
  } else if (c.word_set_columns && r.argmax_set != std::vector<std::int64_t>{r.argmax_position}) {
    why = "argmax_set " + list(r.argmax_set) + ", argmax_position " +
          std::to_string(r.argmax_position);
  } else if (c.word_set_columns && (!r.examined_sets.empty() || !r.set_S.empty())) {
    why = std::to_string(r.examined_sets.size()) + " values of examined_sets, " +
          std::to_string(r.set_S.size()) + " of set_S";
  }
  if (!why.empty()) {
    out.push_back({"one_word_positions", why});
    return;  // the best S is looked for among the examined positions
  }
  const auto at = std::find(examined.begin(), examined.end(), r.argmax_position);
  const double top = *std::max_element(r.position_S.begin(), r.position_S.end());
  if (at == examined.end()) {
    why = "argmax_position " + std::to_string(r.argmax_position) + " is not examined";
  } else if (const double there = r.position_S[static_cast<std::size_t>(at - examined.begin())];
             !(there == r.S)) {
    why = "S " + number(r.S) + ", position_S " + number(there) + " at argmax_position " +
          std::to_string(r.argmax_position);
  } else if (!(top <= r.S * (1.0 + kPositionTolerance))) {
    why = "S " + number(r.S) + ", largest position_S " + number(top);
  }
  if (!why.empty()) out.push_back({"one_word_best", why});
}

void several_words_rules(const WsRecord& r, const RecordContext& c,
                         std::vector<BrokenInvariant>& out) {
  const std::int64_t m = c.words;
  const auto sets = static_cast<std::int64_t>(r.set_S.size());
  std::string why;
  if (r.argmax_position != -1) {
    why = "argmax_position " + std::to_string(r.argmax_position);
  } else if (!r.examined.empty() || !r.position_S.empty()) {
    why = std::to_string(r.examined.size()) + " examined positions, " +
          std::to_string(r.position_S.size()) + " values of position_S";
  } else if (c.evidence_columns && (!std::isnan(r.stationarity) || !std::isnan(r.S_budget_check))) {
    why = "stationarity " + number(r.stationarity) + ", S_budget_check " + number(r.S_budget_check);
  } else if (static_cast<std::int64_t>(r.argmax_set.size()) != m ||
             !distinct_positions(r.argmax_set, c.n)) {
    why = "argmax_set " + list(r.argmax_set) + " for m = " + std::to_string(m);
  } else if (sets == 0 || static_cast<std::int64_t>(r.examined_sets.size()) != m * sets) {
    why = std::to_string(r.examined_sets.size()) + " values of examined_sets for " +
          std::to_string(sets) + " values of set_S, m = " + std::to_string(m);
  } else {
    for (std::int64_t s = 0; s < sets && why.empty(); ++s) {
      if (!distinct_positions(
              std::span(r.examined_sets)
                  .subspan(static_cast<std::size_t>(s * m), static_cast<std::size_t>(m)),
              c.n)) {
        why = "examined set " + std::to_string(s) + " does not hold m distinct positions";
      }
    }
  }
  if (!why.empty()) {
    out.push_back({"several_words_sets", why});
    return;
  }
  const double top = *std::max_element(r.set_S.begin(), r.set_S.end());
  bool attained = false;
  for (std::int64_t s = 0; s < sets && !attained; ++s) {
    const auto set = r.examined_sets.begin() + s * m;
    attained = r.set_S[static_cast<std::size_t>(s)] == r.S &&
               std::equal(set, set + m, r.argmax_set.begin());
  }
  if (!(top == r.S)) {
    why = "S " + number(r.S) + ", largest set_S " + number(top);
  } else if (!attained) {
    why = "argmax_set " + list(r.argmax_set) + " is no examined set whose set_S is S";
  }
  if (!why.empty()) out.push_back({"several_words_best", why});
}

void witness_rule(std::int64_t length, std::int64_t expected, const RecordContext& c,
                  std::vector<BrokenInvariant>& out) {
  const std::int64_t wanted = c.save_witness ? expected : 0;
  if (length != wanted) {
    out.push_back({"witness_length", "witness_length " + std::to_string(length) + ", " +
                                         std::to_string(wanted) + " with save_witness " +
                                         (c.save_witness ? "1" : "0")});
  }
}

}  // namespace

std::span<const RecordInvariant> record_invariants() { return kInvariants; }

std::string record_invariants_markdown() {
  std::string text =
      "| invariant | table | what every record of a done task holds |\n|---|---|---|\n";
  for (const RecordInvariant& rule : kInvariants) {
    text += std::string("| `") + rule.id + "` | " + rule.table + " | " + rule.text + " |\n";
  }
  return text;
}

std::vector<BrokenInvariant> broken_invariants(const WsRecord& record, std::int64_t witness_length,
                                               const RecordContext& context) {
  std::vector<BrokenInvariant> out;
  if (context.evidence_columns) {
    scope_rules(record, context, out);
    if (!(record.starts >= 1 && record.starts_at_budget <= record.starts)) {
      out.push_back({"starts", "starts " + std::to_string(record.starts) + ", starts_at_budget " +
                                   std::to_string(record.starts_at_budget)});
    }
  }
  if (context.words == 1 && context.position_columns) one_word_rules(record, context, out);
  if (context.words >= 2 && context.word_set_columns) several_words_rules(record, context, out);
  witness_rule(witness_length, context.words * context.d, context, out);
  return out;
}

std::vector<BrokenInvariant> broken_invariants(
    std::span<const std::pair<GenRecord, std::int64_t>> rows,
    const std::vector<std::pair<std::uint8_t, std::uint8_t>>& keys, const RecordContext& context) {
  std::vector<BrokenInvariant> out;
  if (!keys.empty()) {
    std::set<std::pair<std::uint8_t, std::uint8_t>> have;
    for (const auto& [row, length] : rows) have.insert({row.training, row.objective});
    const std::set<std::pair<std::uint8_t, std::uint8_t>> want(keys.begin(), keys.end());
    if (rows.size() != want.size() || have != want) {
      out.push_back({"gen_rows", std::to_string(rows.size()) + " rows, " +
                                     std::to_string(want.size()) +
                                     " pairs of training and "
                                     "objective configured"});
    }
  }
  for (const auto& [row, length] : rows) {
    if (!(row.seconds == rows.front().first.seconds)) {
      out.push_back({"gen_seconds", "seconds " + number(rows.front().first.seconds) + " and " +
                                        number(row.seconds)});
      break;
    }
  }
  for (const auto& [row, length] : rows) {
    const std::size_t before = out.size();
    witness_rule(length, context.d, context, out);
    if (out.size() > before) break;
  }
  return out;
}

}  // namespace wordsens
