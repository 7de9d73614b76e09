#include "cli/key_table.hpp"

#include <boost/any.hpp>

#include <sstream>
#include <stdexcept>

namespace wordsens::cli {

namespace po = boost::program_options;

KeyTable& KeyTable::operator()(const char* name, const po::value_semantic* value, KeyFormat format,
                               const char* meaning) {
  group_.add_options()(name, value, meaning);
  if (formats_ != nullptr) {
    const std::string spelled(name);
    (*formats_)[spelled.substr(0, spelled.find(','))] = std::move(format);
  }
  return *this;
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
    return option.semantic()->max_tokens() == 0 ||
                   option.format_parameter().find("true|false") != std::string::npos
               ? "`false`"
               : "(none)";
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

}  // namespace wordsens::cli
