#include "cli/command_line.hpp"

#include <iostream>

#include "cli/exit_codes.hpp"
#include "cli/renamed_options.hpp"
#include "core/errors.hpp"
#include "core/printable.hpp"
#include "study/key_values.hpp"

namespace po = boost::program_options;

namespace wordsens::cli {
namespace {

// boost's errors of the command line, as one line starting with the option as written.
std::string command_line_error(const po::error& e, const std::string& command,
                               const po::positional_options_description& positional) {
  if (const auto* unknown = dynamic_cast<const po::unknown_option*>(&e)) {
    std::string name = unknown->get_option_name();  // "--bogus=1" as written: the name only
    if (const auto equals = name.find('='); equals != std::string::npos) name.erase(equals);
    return name + ": unknown option (wordsens " + command + " --help lists them)";
  }
  if (const auto* repeated = dynamic_cast<const po::multiple_occurrences*>(&e)) {
    return repeated->get_option_name() + ": given more than once";
  }
  if (const auto* syntax = dynamic_cast<const po::invalid_command_line_syntax*>(&e)) {
    const std::string name = syntax->get_option_name();
    switch (syntax->kind()) {
      case po::invalid_syntax::missing_parameter:
        return name + ": missing value (" + name + "=VALUE)";
      case po::invalid_syntax::extra_parameter:
        return name + ": takes no value";
      case po::invalid_syntax::empty_adjacent_parameter:
        return name + ": empty value after '='";
      default:
        break;
    }
  }
  if (dynamic_cast<const po::too_many_positional_options_error*>(&e) != nullptr) {
    if (command == "run") {
      return "more than one configuration file: give one, as the first argument or "
             "--config=FILE";
    }
    const unsigned allowed = positional.max_total_count();
    return "an argument too many: wordsens " + command + " takes " +
           (allowed == 0 ? std::string("options only (--key value)")
                         : "at most " + std::to_string(allowed) + " besides its options");
  }
  return e.what();
}

// argv as strings, `--key=` of an option that takes a value spelled `--key ""` (boost refuses an
// empty value after '='), so that the key's own check names it ("n = '': empty grid"). A switch
// with `=` and nothing after is refused here.
std::vector<std::string> normalised_arguments(int argc, char** argv,
                                              const po::options_description& described) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.size() > 3 && arg.rfind("--", 0) == 0 && arg.back() == '=' &&
        arg.find('=') == arg.size() - 1) {
      const std::string name = arg.substr(2, arg.size() - 3);
      if (const auto* option = described.find_nothrow(name, /*approx=*/false)) {
        if (option->semantic()->min_tokens() >= 1) {
          if (name == "config") throw_bad_value(name, "", "the path of a configuration file");
          args.push_back("--" + name);
          args.emplace_back();
          continue;
        }
        if (option->semantic()->max_tokens() >= 1) {  // a switch
          throw_bad_value(name, "", "true or false (--" + name + " alone is true)");
        }
      }
    }
    args.push_back(arg);
  }
  return args;
}

}  // namespace

void store_command_line(int argc, char** argv, const po::options_description& described,
                        const po::positional_options_description& positional,
                        const std::string& command, po::variables_map& vm) {
  reject_renamed_options(argc, argv);
  const std::vector<std::string> args = normalised_arguments(argc, argv, described);
  // No prefix guessing: `--N` and `--n` are different keys, and a typo must be an error.
  const auto style =
      po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
  try {
    po::store(
        po::command_line_parser(args).options(described).positional(positional).style(style).run(),
        vm);
  } catch (const po::error& e) {
    throw InputError(command_line_error(e, command, positional));
  }
}

int report_usage_error(const std::string& command, const std::exception& error) {
  const std::string message = printable(error.what());
  const std::string help = "wordsens " + command + " --help";
  std::cerr << "wordsens " << command << ": error: " << message
            << (message.find(help) == std::string::npos ? " (see " + help + ")" : "") << "\n";
  return kExitUsage;
}

}  // namespace wordsens::cli
