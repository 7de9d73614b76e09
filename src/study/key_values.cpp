#include "study/key_values.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <system_error>

#include "core/errors.hpp"

namespace wordsens {

void throw_bad_value(const std::string& key, const std::string& text, const std::string& expected) {
  throw InputError(key + " = '" + text + "': expected " + expected);
}

long long parse_integer_value(const std::string& key, const std::string& text, long long lo,
                              long long hi, const std::string& expected) {
  long long value = 0;
  const char* end = text.data() + text.size();
  // std::from_chars takes an optional '-' and digits only: no '+', no spaces, no base prefix.
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < lo || value > hi) {
    throw_bad_value(key, text,
                    expected.empty()
                        ? "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]"
                        : expected);
  }
  return value;
}

double parse_real_value(const std::string& key, const std::string& text, bool (*ok)(double),
                        const std::string& expected) {
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || !ok(value)) {
    throw_bad_value(key, text, expected);
  }
  return value;
}

bool parse_bool_value(const std::string& key, const std::string& text) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "true" || lower == "yes" || lower == "on" || lower == "1") return true;
  if (lower == "false" || lower == "no" || lower == "off" || lower == "0") return false;
  throw_bad_value(key, text, "true or false");
}

}  // namespace wordsens
