#pragma once
// The command line as every command of wordsens reads it: the same option syntax, the same
// refusals and the same one-line errors for `run`, `ws` and `gen`.
#include <boost/program_options.hpp>

#include <exception>
#include <string>

namespace wordsens::cli {

/// Stores argv (argv[0] is the command) into `vm`. No prefix guessing: `--N` and `--n` are
/// different options, and a typo is an error. `--key=` with nothing after is the empty value of
/// a key that takes one (its own check then names it), refused for a switch. An old spelling
/// names the new one. Throws InputError with one line starting with the option as written
/// ("--bogus: unknown option (wordsens <command> --help lists them)").
void store_command_line(int argc, char** argv,
                        const boost::program_options::options_description& described,
                        const boost::program_options::positional_options_description& positional,
                        const std::string& command, boost::program_options::variables_map& vm);

/// Prints a usage error of `wordsens <command>` on stderr, one line ending with a pointer to its
/// --help unless the message names it already, and returns the exit code of bad input.
int report_usage_error(const std::string& command, const std::exception& error);

}  // namespace wordsens::cli
