#pragma once
// The values of the configuration's keys (INI lines and command-line options alike), parsed by
// hand rather than by boost's lexical casts (which take `+5`, and on the command line nothing
// else of a number's neighbours), so that every key refuses the same things with the same
// one-line message:
//   `<key> = '<value as written>': expected <what the key takes>`.
// The INI reader trims the spaces around a value; on the command line a value is taken as it is,
// so ` 5` is refused there as everywhere else a number is expected.
#include <string>

namespace wordsens {

/// "<key> = '<text>': expected <expected>" as an InputError.
[[noreturn]] void throw_bad_value(const std::string& key, const std::string& text,
                                  const std::string& expected);

/// A decimal integer in [lo, hi]: digits with an optional leading '-' (no '+', no spaces, no
/// trailing characters). Throws "<key> = '<text>': expected <expected>", by default "an integer
/// in [lo, hi]".
[[nodiscard]] long long parse_integer_value(const std::string& key, const std::string& text,
                                            long long lo, long long hi,
                                            const std::string& expected = "");

/// A finite or infinite decimal number (as std::from_chars reads it: no '+', no spaces) for
/// which `ok` holds; throws "<key> = '<text>': expected <expected>" otherwise (NaN never passes
/// a range check, so `ok` decides about it).
[[nodiscard]] double parse_real_value(const std::string& key, const std::string& text,
                                      bool (*ok)(double), const std::string& expected);

/// true|false (also yes|no, on|off, 1|0 in any case, the spellings boost took before).
[[nodiscard]] bool parse_bool_value(const std::string& key, const std::string& text);

}  // namespace wordsens
