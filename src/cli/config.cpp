#include "cli/config.hpp"

#include <boost/program_options.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "cli/command_line.hpp"
#include "cli/key_table.hpp"
#include "cli/run_keys.hpp"
#include "io/files/file_kind.hpp"
#include "io/results_file.hpp"
#include "study/config_keys.hpp"
#include "study/ini_text.hpp"

namespace po = boost::program_options;

namespace wordsens::cli {
namespace {

// A configuration is a short text; a larger file is something else given by mistake (a log, a
// data file), and no file is read without bound.
constexpr std::size_t kMaxConfigBytes = std::size_t{1} << 20;

// The entries of a configuration file as boost's parsed options. Refused with one line naming
// `where` and the line, as the study refuses them in a stored configuration text
// (study/config_keys.hpp): an unknown key, an old spelling, a key of the command line only.
// `origin` gets "<where>:<line>" of every key.
po::parsed_options file_options(const std::vector<IniEntry>& entries,
                                const po::options_description& described, const std::string& where,
                                std::map<std::string, std::string>& origin) {
  po::parsed_options parsed(&described);
  for (const IniEntry& entry : entries) {
    check_config_key(entry.key, where + ":" + std::to_string(entry.line) + ": ");
    if (described.find_nothrow(entry.key, /*approx=*/false) == nullptr) {
      throw std::logic_error("configuration key " + entry.key + " is not an option of run");
    }
    po::option option(entry.key, {entry.value});
    option.original_tokens = {entry.key, entry.value};
    parsed.options.push_back(std::move(option));
    origin[entry.key] = where + ":" + std::to_string(entry.line);
  }
  return parsed;
}

// A message that starts with "<key> = " of a key that came from the file, prefixed with the
// file and line that gave it ("quick.ini:7: trials = '0': …").
std::string located(const std::string& message, const std::map<std::string, std::string>& origin) {
  const auto equals = message.find(" = ");
  if (equals == std::string::npos) return message;
  const auto it = origin.find(message.substr(0, equals));
  return it == origin.end() ? message : it->second + ": " + message;
}

// The text of an INI file. Refused with one line: anything but a regular file (a directory, a
// FIFO, a device such as /dev/zero, which would never end), a file larger than
// kMaxConfigBytes, a read error (/proc/self/mem), and text with a control byte (a NUL, an
// escape, DEL) or a byte-order mark after the start, so that no raw or invisible bytes reach an
// error message. A byte-order mark at the start (some editors write one) is dropped.
std::string read_config_file(const std::string& path) {
  const std::string name = "configuration file '" + path + "'";
  // O_NONBLOCK: opening a FIFO that no process writes would wait forever; it is refused below.
  const int descriptor = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (descriptor < 0) throw InputError("cannot read " + name + ": " + std::strerror(errno));
  const auto fail = [&](const std::string& message) {
    ::close(descriptor);
    throw InputError(message);
  };
  struct stat status {};
  if (::fstat(descriptor, &status) != 0) fail("cannot read " + name + ": " + std::strerror(errno));
  if (S_ISDIR(status.st_mode)) fail(name + " is a directory");
  if (!S_ISREG(status.st_mode)) {
    fail(name + " is not a regular file (" + io::file_kind(status.st_mode) + ")");
  }
  // Read until the end rather than trust st_size: files of /proc report 0.
  std::string text;
  char buffer[65536];
  while (true) {
    const ssize_t got = ::read(descriptor, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail("cannot read " + name + ": " + std::strerror(errno));
    if (got == 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    if (text.size() > kMaxConfigBytes) {
      fail(name + " is larger than " + std::to_string(kMaxConfigBytes >> 20) +
           " MiB: not a configuration");
    }
  }
  ::close(descriptor);
  constexpr std::string_view bom = "\xef\xbb\xbf";
  if (text.compare(0, bom.size(), bom) == 0) text.erase(0, bom.size());
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\n') ++line;
    const bool control =
        (byte < 0x20 && byte != '\n' && byte != '\r' && byte != '\t') || byte == 0x7f;
    if (control) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02x", byte);
      throw InputError(name + " is not a text file (byte " + code + (byte == 0x7f ? " (DEL)" : "") +
                       " on line " + std::to_string(line) + ")");
    }
    if (text.compare(i, bom.size(), bom) == 0) {
      throw InputError(name + " has an invisible byte-order mark (U+FEFF) on line " +
                       std::to_string(line) + ": remove it");
    }
  }
  return text;
}

std::string join_argv(int argc, char** argv) {
  std::string s = "wordsens";
  for (int i = 0; i < argc; ++i) s += std::string(" ") + argv[i];
  return s;
}

}  // namespace

std::string run_help_text() {
  RunKeyValues r;
  std::ostringstream out;
  out << "usage: wordsens run [CONFIG.ini | --config=CONFIG.ini] [--key=value …]\n"
         "Runs the study (mpirun -n R for R ranks); rerunning the same command resumes.\n"
         "CONFIG.ini: `key = value` lines, a regular text file of at most "
      << (kMaxConfigBytes >> 20)
      << " MiB (not a pipe or a device);\n"
         "  the keys are the long option names below; # starts a comment (so does ; at the start\n"
         "  of a line); no [sections]; spaces around a value are dropped; a switch (--dry-run)\n"
         "  takes true or false there, and alone or as --dry-run=true|false on the command line.\n"
         "Exit codes: 0 done, 1 failure, 2 bad input, 3 checkpointed (USR1 / walltime), "
         "4 interrupted (TERM/INT).\n\n"
      << describe_run_keys(r);
  return out.str();
}

std::string config_reference() {
  RunKeyValues r;
  KeyFormats formats;
  std::vector<std::pair<std::string, po::options_description>> groups;
  static_cast<void>(describe_run_keys(r, &formats, &groups));
  return key_reference_page(groups, formats, kMaxConfigBytes >> 20);
}

KeyFormats run_key_formats() {
  RunKeyValues r;
  KeyFormats formats;
  static_cast<void>(describe_run_keys(r, &formats));
  return formats;
}

RunOptions parse_run_options(int argc, char** argv, bool read_encoder) {
  RunKeyValues r;
  RunOptions options;
  options.command_line = join_argv(argc, argv);
  // "<file>:<line>" of each key the file gives and the command line does not.
  std::map<std::string, std::string> origin;
  try {
    const auto described = describe_run_keys(r);
    po::positional_options_description positional;
    positional.add("config", 1);
    po::variables_map vm;
    store_command_line(argc, argv, described, positional, "run", vm);
    // --help is answered without reading the file (which may be the problem).
    const bool help = vm.count("help") != 0 && vm["help"].as<bool>();
    if (vm.count("config") && !help) {
      const std::string path = vm["config"].as<std::string>();
      const std::string text = read_config_file(path);
      std::map<std::string, std::string> from_file;
      const auto parsed = file_options(parse_ini_text(text, path), described, path, from_file);
      // The command line wins: store() keeps the values already there.
      for (const auto& [key, at] : from_file) {
        if (vm.count(key) == 0 || vm[key].defaulted()) origin[key] = at;
      }
      po::store(parsed, vm);
    }
    po::notify(vm);
  } catch (const po::error& e) {  // boost's type, from reading the file's values
    throw InputError(e.what());
  }
  options.help = r.help;
  if (options.help) return options;
  options.config_path = r.config;
  try {
    options.study = resolve_study(r.study);
    resolve_run(r, options);
    if (read_encoder) load_encoder(options.study);
  } catch (const InputError& e) {  // the same error, with the file and line of its key
    throw InputError(located(e.what(), origin));
  }
  return options;
}

}  // namespace wordsens::cli
