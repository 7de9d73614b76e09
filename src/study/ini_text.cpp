#include "study/ini_text.hpp"

#include <map>

#include "core/errors.hpp"

namespace wordsens {
namespace {

std::string blank_trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

}  // namespace

std::vector<IniEntry> parse_ini_text(const std::string& text, const std::string& where) {
  std::vector<IniEntry> entries;
  std::map<std::string, int> first_line;  // key → the line that gave it
  std::size_t start = 0;
  for (int number = 1; start < text.size(); ++number) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    const std::string at = where + ":" + std::to_string(number) + ": ";
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    line = blank_trimmed(line);
    if (line.empty() || line[0] == ';') continue;
    if (line.front() == '[') {
      throw InputError(at + "section header '" + line +
                       "': sections are not supported, write the keys without one");
    }
    const auto equals = line.find('=');
    if (equals == std::string::npos) {
      throw InputError(at + "'" + line + "' is not a `key = value` line");
    }
    IniEntry entry{blank_trimmed(line.substr(0, equals)), blank_trimmed(line.substr(equals + 1)),
                   number};
    if (entry.key.empty()) throw InputError(at + "no key before '='");
    const auto [previous, fresh] = first_line.emplace(entry.key, number);
    if (!fresh) {
      throw InputError(at + "key '" + entry.key + "' given twice (also on line " +
                       std::to_string(previous->second) + ")");
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace wordsens
