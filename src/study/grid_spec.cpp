#include "study/grid_spec.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "core/errors.hpp"

namespace wordsens {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const auto pos = s.find(sep, start);
    parts.push_back(trim(s.substr(start, pos == std::string_view::npos ? pos : pos - start)));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return parts;
}

[[noreturn]] void fail(const std::string& key, std::string_view text, const std::string& why) {
  throw InputError(key + " = '" + std::string(text) + "': " + why);
}

// Strict: the whole string must be a decimal integer (no sign games, no trailing junk).
bool parse_integer(std::string_view s, long long& out) {
  if (s.empty()) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool parse_real(std::string_view s, double& out) {
  if (s.empty()) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(out);
}

// The most points one range item may give (a grid is checked against the task limit later).
constexpr unsigned long long kMaxRangePoints = 100000;

// One comma item of an integer grid: a number or lo:hi:{logM,linM,stepS}.
void expand_item(const std::string& key, std::string_view item, std::vector<long long>& out) {
  if (item.empty()) fail(key, item, "empty item (two commas in a row, or a trailing comma?)");
  const auto parts = split(item, ':');
  long long value = 0;
  if (parts.size() == 1) {
    if (!parse_integer(parts[0], value)) fail(key, item, "not an integer");
    out.push_back(value);
    return;
  }
  if (parts.size() != 3) fail(key, item, "a range is lo:hi:logM, lo:hi:linM or lo:hi:stepS");
  long long lo = 0, hi = 0, count = 0;
  if (!parse_integer(parts[0], lo) || !parse_integer(parts[1], hi)) {
    fail(key, item, "range bounds must be integers");
  }
  if (lo > hi) fail(key, item, "range lower bound exceeds the upper bound");
  const std::string_view how = parts[2];
  std::string_view kind;
  for (const std::string_view prefix : {"log", "lin", "step"}) {
    if (how.substr(0, prefix.size()) == prefix) {
      kind = prefix;
      if (!parse_integer(how.substr(prefix.size()), count) || count < 1) {
        fail(key, item, std::string(prefix) + " needs a positive integer count");
      }
      break;
    }
  }
  if (kind.empty()) fail(key, item, "range kind must be logM, linM or stepS");
  if (kind == "step") {
    // Counted before anything is stored, in unsigned arithmetic: hi − lo and v + step may
    // exceed a long long near its ends.
    const auto span = static_cast<unsigned long long>(hi) - static_cast<unsigned long long>(lo);
    // span / step ≥ the limit already means too many: adding 1 first could wrap to 0.
    if (span / static_cast<unsigned long long>(count) >= kMaxRangePoints) {
      fail(key, item, "too many points");
    }
    const unsigned long long points = span / static_cast<unsigned long long>(count) + 1;
    for (unsigned long long j = 0; j < points; ++j) {
      // lo + j·step ≤ hi; the sum wraps correctly where a signed one could overflow.
      out.push_back(static_cast<long long>(static_cast<unsigned long long>(lo) +
                                           j * static_cast<unsigned long long>(count)));
    }
    return;
  }
  if (count > static_cast<long long>(kMaxRangePoints)) fail(key, item, "too many points");
  if (count == 1) {
    if (lo != hi) fail(key, item, "one point needs lo == hi");
    out.push_back(lo);
    return;
  }
  if (kind == "log" && lo < 1) fail(key, item, "a log range needs lo >= 1");
  for (long long j = 0; j < count; ++j) {
    // Endpoints exactly; interior points rounded to the nearest integer.
    if (j == 0) {
      out.push_back(lo);
    } else if (j == count - 1) {
      out.push_back(hi);
    } else {
      const double t = static_cast<double>(j) / static_cast<double>(count - 1);
      const double v =
          kind == "log"
              ? std::exp(
                    std::log(static_cast<double>(lo)) +
                    t * (std::log(static_cast<double>(hi)) - std::log(static_cast<double>(lo))))
              : static_cast<double>(lo) + t * (static_cast<double>(hi) - static_cast<double>(lo));
      out.push_back(std::llround(v));
    }
  }
}

}  // namespace

std::vector<Index> parse_int_grid(const std::string& key, const std::string& text, Index min,
                                  Index max) {
  if (trim(text).empty()) fail(key, text, "empty grid");
  std::vector<long long> values;
  for (const auto item : split(text, ',')) {
    if (item.empty()) fail(key, text, "empty item (two commas in a row, or a trailing comma?)");
    expand_item(key, item, values);
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  std::vector<Index> result;
  for (const long long v : values) {
    if (v < min || v > max) {
      fail(key, text,
           "value " + std::to_string(v) + " out of range [" + std::to_string(min) + ", " +
               std::to_string(max) + "]");
    }
    result.push_back(static_cast<Index>(v));
  }
  return result;
}

std::vector<double> parse_fraction_list(const std::string& key, const std::string& text) {
  std::vector<double> fractions;
  for (const auto item : split(text, ',')) {
    if (item.empty()) fail(key, text, "empty item (two commas in a row, or a trailing comma?)");
    double f = 0;
    if (!parse_real(item, f) || !(f > 0.0) || f > 1.0) {
      fail(key, text, "expected fractions in (0, 1], e.g. 0.1,0.25");
    }
    fractions.push_back(f);
  }
  std::sort(fractions.begin(), fractions.end());
  fractions.erase(std::unique(fractions.begin(), fractions.end()), fractions.end());
  return fractions;
}

Index KItem::resolve(Index n, Index d) const {
  if (!relative) return value;
  return static_cast<Index>(std::round(factor * static_cast<double>(n) * static_cast<double>(d)));
}

std::string KItem::to_string() const {
  return relative ? format_double(factor) + "D" : std::to_string(value);
}

namespace {

// The items of a width grid: `<factor><suffix>` (relative, 0 < factor <= 1e6) or an integer grid
// item; relative ones first (ascending factor), then absolute ones (ascending), deduplicated.
// `Item` is an aggregate {relative, factor, value}.
template <typename Item>
std::vector<Item> parse_width_grid(const std::string& key, const std::string& text,
                                   std::string_view suffixes, const std::string& relative_form,
                                   Index max_width) {
  if (trim(text).empty()) fail(key, text, "empty grid");
  std::vector<Item> relative, absolute;
  for (const auto item : split(text, ',')) {
    if (!item.empty() && suffixes.find(item.back()) != std::string_view::npos) {
      double factor = 0;
      const auto number = trim(item.substr(0, item.size() - 1));
      if (!parse_real(number, factor) || factor <= 0 || factor > 1e6) {
        fail(key, item, "a relative width is " + relative_form);
      }
      relative.push_back({true, factor, 0});
      continue;
    }
    for (const Index v : parse_int_grid(key, std::string(item), 1, max_width)) {
      absolute.push_back({false, 0.0, v});
    }
  }
  std::sort(relative.begin(), relative.end(),
            [](const Item& a, const Item& b) { return a.factor < b.factor; });
  std::sort(absolute.begin(), absolute.end(),
            [](const Item& a, const Item& b) { return a.value < b.value; });
  std::vector<Item> result;
  for (const auto* list : {&relative, &absolute}) {
    for (const auto& k : *list) {
      if (result.empty() || !(result.back() == k)) result.push_back(k);
    }
  }
  return result;
}

template <typename Item>
std::string join_items(const std::vector<Item>& values) {
  std::string out;
  for (const auto& k : values) {
    if (!out.empty()) out += ',';
    out += k.to_string();
  }
  return out;
}

}  // namespace

std::vector<KItem> parse_k_grid(const std::string& text, Index max_k) {
  return parse_width_grid<KItem>("k", text, "Dd", "<factor>D with 0 < factor <= 1e6, e.g. 1.0D",
                                 max_k);
}

Index MlpWidthItem::resolve(Index d) const {
  if (!relative) return value;
  return static_cast<Index>(std::round(factor * static_cast<double>(d)));
}

std::string MlpWidthItem::to_string() const {
  return relative ? format_double(factor) + "d" : std::to_string(value);
}

std::vector<MlpWidthItem> parse_mlp_width_grid(const std::string& text, Index max_width) {
  const std::string key = "mlp-width";
  for (const auto item : split(text, ',')) {
    if (!item.empty() && item.back() == 'D') {
      fail(key, item,
           "the MLP width is a multiple of d (4d) or an integer, not of D = n*d (that is k's "
           "spelling)");
    }
  }
  return parse_width_grid<MlpWidthItem>(key, text, "d", "<factor>d with 0 < factor <= 1e6, e.g. 4d",
                                        max_width);
}

std::vector<std::string> parse_name_list(const std::string& key, const std::string& text,
                                         const std::vector<std::string>& allowed) {
  if (trim(text).empty()) fail(key, text, "empty list");
  std::vector<bool> chosen(allowed.size(), false);
  for (const auto item : split(text, ',')) {
    const auto it = std::find(allowed.begin(), allowed.end(), item);
    if (it == allowed.end()) {
      fail(
          key, text,
          "unknown name '" + std::string(item) + "' (expected one of " + join_names(allowed) + ")");
    }
    chosen[static_cast<std::size_t>(it - allowed.begin())] = true;
  }
  std::vector<std::string> result;
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    if (chosen[i]) result.push_back(allowed[i]);
  }
  return result;
}

std::string join_grid(const std::vector<Index>& values) {
  std::string out;
  for (const Index v : values) {
    if (!out.empty()) out += ',';
    out += std::to_string(v);
  }
  return out;
}

std::string join_grid(const std::vector<KItem>& values) { return join_items(values); }

std::string join_grid(const std::vector<MlpWidthItem>& values) { return join_items(values); }

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& s : names) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::string format_double(double value) {
  char buffer[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

}  // namespace wordsens
