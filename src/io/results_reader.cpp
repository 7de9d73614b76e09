// The read side of the results file: read_results and check_results (the damage rules first),
// and the differences between two configurations or two inputs' fingerprints.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <unordered_set>
#include <variant>

#include "io/format/build_provenance.hpp"
#include "io/format/contents.hpp"
#include "io/format/layout.hpp"
#include "io/format/schema.hpp"
#include "io/h5/h5.hpp"
#include "io/integrity/integrity.hpp"
#include "io/results_file.hpp"

namespace wordsens::io {

namespace c = schema::col;

std::vector<std::string> differing_config_keys(const std::string& a, const std::string& b,
                                               const std::vector<std::string>& ignored) {
  const auto left = detail::parse_config(a);
  const auto right = detail::parse_config(b);
  const std::set<std::string> skip(ignored.begin(), ignored.end());
  std::set<std::string> keys;
  for (const auto& [key, value] : left) {
    const auto other = right.find(key);
    if (other == right.end() || other->second != value) keys.insert(key);
  }
  for (const auto& [key, value] : right) {
    if (left.find(key) == left.end()) keys.insert(key);
  }
  std::vector<std::string> result;
  for (const auto& key : keys) {
    // An ignored key also matches inside an INI section ("run.shard" for "shard").
    const auto dot = key.rfind('.');
    const bool ignore =
        skip.count(key) != 0 || (dot != std::string::npos && skip.count(key.substr(dot + 1)) != 0);
    if (!ignore) result.push_back(key);
  }
  return result;
}

FileContents read_results(const std::string& path) { return read_results(path, ReadOptions{}); }

FileContents read_results(const std::string& path, const ReadOptions& options) {
  const h5::Handle file = detail::open_checked(path, h5::Access::read);
  try {
    // The done flags first: the check and the reads below open the record columns later, and
    // a SWMR reader keeps the extents it has seen (a live writer may commit tasks meanwhile).
    const auto done = h5::read_all<std::uint8_t>(
        h5::open_dataset(h5::open_group(file, schema::kTasks), schema::col::kDone));
    detail::require_consistent(path, detail::diagnose(file));
    return detail::read_contents(file, options, &done);
  } catch (const InputError&) {
    throw;
  } catch (const DamagedFileError&) {
    throw;
  } catch (const h5::Error& e) {
    throw detail::damaged_file(path, e.what());
  } catch (const std::invalid_argument& e) {  // an attribute that is not what it must be
    throw detail::damaged_file(path, e.what());
  } catch (const std::exception& e) {
    throw std::runtime_error("reading " + path + ": " + e.what());
  }
}

Diagnosis check_results(const std::string& path) {
  const h5::Handle file = detail::open_checked(path, h5::Access::read);
  return detail::diagnose(file);
}

namespace {

// "key value" fields of a fingerprint line after its first word: size=…, mtime=…, content=….
std::map<std::string, std::map<std::string, std::string>> parse_fingerprints(
    const std::string& text) {
  std::map<std::string, std::map<std::string, std::string>> inputs;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string input, word;
    if (!(words >> input)) continue;
    auto& fields = inputs[input];
    while (words >> word) {
      const auto equals = word.find('=');
      if (equals != std::string::npos) fields[word.substr(0, equals)] = word.substr(equals + 1);
    }
  }
  return inputs;
}

}  // namespace

std::vector<std::string> differing_inputs(const std::string& stored, const std::string& current) {
  const auto before = parse_fingerprints(stored);
  const auto now = parse_fingerprints(current);
  std::vector<std::string> changes;
  const auto field = [](const std::map<std::string, std::string>& fields, const char* key) {
    const auto found = fields.find(key);
    return found == fields.end() ? std::string("?") : found->second;
  };
  for (const auto& [input, fields] : before) {
    const auto other = now.find(input);
    if (other == now.end()) {
      changes.push_back(input + " is no longer an input");
      continue;
    }
    if (field(fields, "content") == field(other->second, "content")) continue;
    std::string change = input + " changed: content " + field(fields, "content") + " -> " +
                         field(other->second, "content");
    for (const char* key : {"size", "mtime"}) {
      if (field(fields, key) != field(other->second, key)) {
        change +=
            ", " + std::string(key) + " " + field(fields, key) + " -> " + field(other->second, key);
      }
    }
    changes.push_back(change);
  }
  for (const auto& [input, fields] : now) {
    if (before.find(input) == before.end()) changes.push_back(input + " was not an input before");
  }
  return changes;
}

}  // namespace wordsens::io
