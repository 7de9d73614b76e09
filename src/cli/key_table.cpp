#include "cli/key_table.hpp"

#include <boost/any.hpp>

#include <algorithm>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "study/study_settings.hpp"

namespace wordsens::cli {

namespace po = boost::program_options;

namespace {

// "output" of "output,o".
std::string long_name(const char* name) {
  const std::string spelled(name);
  return spelled.substr(0, spelled.find(','));
}

}  // namespace

bool KeyTable::takes(const std::string& key) const {
  return subset_ == nullptr || subset_->keys.count(key) != 0;
}

bool KeyTable::requires_value(const std::string& key) const {
  return subset_ != nullptr && std::find(subset_->required.begin(), subset_->required.end(), key) !=
                                   subset_->required.end();
}

const char* KeyTable::meaning_of(const std::string& key, const char* declared) const {
  if (subset_ == nullptr) return declared;
  const auto own = subset_->meanings.find(key);
  return own == subset_->meanings.end() ? declared : own->second.c_str();
}

KeyTable& KeyTable::operator()(const char* name, const po::value_semantic* value, KeyFormat format,
                               const char* meaning) {
  std::unique_ptr<const po::value_semantic> owned(value);  // freed when left out
  const std::string key = long_name(name);
  if (!takes(key)) return *this;
  group_.add_options()(name, owned.release(), meaning_of(key, meaning));
  if (formats_ != nullptr) (*formats_)[key] = std::move(format);
  return *this;
}

KeyTable& KeyTable::operator()(const char* name, std::string* target,
                               const std::string& default_text, KeyFormat format,
                               const char* meaning) {
  auto* value = po::value(target);
  if (!requires_value(long_name(name))) value->default_value(default_text);
  return (*this)(name, value, std::move(format), meaning);
}

po::typed_value<std::string>* switch_value(std::string* target) {
  return po::value(target)->implicit_value("true", "")->value_name("[=true|false]");
}

KeyTable& KeyTable::operator()(const char* name, std::string* target) {
  const SettingDescription& d = setting_description(name);
  if (d.is_switch)
    return (*this)(name, switch_value(target), {d.type, d.example}, d.meaning.c_str());
  return (*this)(name, target, d.default_text, {d.type, d.example}, d.meaning.c_str());
}

namespace {

// A table cell: '|' would end the cell, a line break the row.
std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += "<br>";
    } else {
      out += c;
    }
  }
  return out;
}

// Inline code of one or more lines (each line its own code span).
std::string code_cell(const std::string& text) {
  std::string out, line;
  std::istringstream lines(text);
  while (std::getline(lines, line)) {
    if (!out.empty()) out += "<br>";
    out += "`" + cell(line) + "`";
  }
  return out;
}

// The default as the file or the command line would write it ("" shows as empty; a switch, which
// has no default, is false; a key without one says so).
std::string default_text(const po::option_description& option) {
  boost::any value;
  if (!option.semantic()->apply_default(value)) {
    return option.format_parameter().find("true|false") != std::string::npos ? "`false`" : "(none)";
  }
  if (const auto* text = boost::any_cast<std::string>(&value)) {
    return text->empty() ? "(empty)" : "`" + cell(*text) + "`";
  }
  if (const auto* flag = boost::any_cast<bool>(&value)) return *flag ? "`true`" : "`false`";
  throw std::logic_error("key reference: the default of " + option.long_name() +
                         " is neither text nor a switch");
}

}  // namespace

std::string key_reference_table(const po::options_description& group, const KeyFormats& formats) {
  std::ostringstream out;
  out << "| key | type | default | example | meaning |\n|---|---|---|---|---|\n";
  for (const auto& option : group.options()) {
    const auto found = formats.find(option->long_name());
    if (found == formats.end() || found->second.type.empty() || found->second.example.empty()) {
      throw std::logic_error("key reference: " + option->long_name() +
                             " has no type or example in its declaration");
    }
    out << "| `" << option->long_name() << "` | " << cell(found->second.type) << " | "
        << default_text(*option) << " | " << code_cell(found->second.example) << " | "
        << cell(option->description()) << " |\n";
  }
  return out.str();
}

std::string key_reference_page(
    const std::vector<std::pair<std::string, po::options_description>>& groups,
    const KeyFormats& formats, std::size_t max_config_mib) {
  std::ostringstream out;
  out << R"(# Configuration reference

Every key of `wordsens run`, generated from the keys' declarations in the source (a test
fails when this file differs; `build/ci/tests/docs/config_reference > docs/CONFIG.md`
writes it again). The study's design and its outputs are in [METHOD.md](METHOD.md).

A configuration is a text file of `key = value` lines, at most )"
      << max_config_mib << R"( MiB. The keys are the
long option names below; `#` starts a comment, and so does `;` at the start of a line; there
are no `[sections]` (a line `[study]` is refused); spaces around a value are dropped. Every
key except `help` and `config` may be written in the file or on the command line as
`--key=value`, and the command line wins. A switch takes `true` or `false` in the file, and
is given alone (`--dry-run`) or as `--dry-run=true|false` on the command line. A grid is a
comma list (`10,20,50`) or a range `lo:hi:logM` (M points spaced evenly in log), `lo:hi:linM`
or `lo:hi:stepS`. An example of more than one line shows the keys it needs beside it.

The study's keys make up the configuration that a results file stores and that a resume
must match; the run's keys do not.
)";
  for (const auto& [caption, keys] : groups) {
    out << "\n## " << caption << "\n\n" << key_reference_table(keys, formats);
  }
  return out.str();
}

}  // namespace wordsens::cli
