// `wordsens`: thin dispatcher to the sub-commands.
#include <csignal>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string_view>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/standard_streams.hpp"
#include "core/errors.hpp"
#include "core/memory_reuse.hpp"
#include "core/printable.hpp"
#include "wordsens/version.hpp"

namespace {

void print_usage(std::ostream& out) {
  out << "wordsens " << wordsens::version::software << " (" << wordsens::version::git_sha
      << ")\n"
         "Word sensitivity of random attention vs random features (Bombari & Mondelli, ICML "
         "2024).\n\n"
         "usage: wordsens <command> [options]   (wordsens <command> --help for its options)\n\n"
         "commands:\n"
         "  run CONFIG   the MPI Monte Carlo study: grid × models × trials → HDF5 results\n"
         "  merge        merge results files of job-array shards\n"
         "  info FILE    what a results file holds and how complete it is\n"
         "  calibrate    time a short study here: the cost model's rates for --dry-run\n"
         "  config       a study's configuration as its results file stores it (no run, no "
         "inputs read)\n"
         "  ws           word-sensitivity estimates, one line per trial (no MPI, no results file)\n"
         "  gen          trained-head generalization after a one-word change (no MPI, no results "
         "file)\n"
         "  version      print the software version and git sha\n";
}

// The command's exit code; its errors are one line on stderr. The one mapping of exceptions to
// exit codes (docs/COMMANDS.md "Exit codes"): InputError 2, anything else (a damaged file, a failed
// computation or write) 1.
int dispatch(std::string_view command, int argc, char** argv) {
  using namespace wordsens::cli;
  try {
    if (command == "ws") return ws_command(argc, argv);
    if (command == "gen") return gen_command(argc, argv);
    if (command == "run") return run_command(argc, argv);
    if (command == "merge") return merge_command(argc, argv);
    if (command == "info") return info_command(argc, argv);
    if (command == "calibrate") return calibrate_command(argc, argv);
    if (command == "config") return config_command(argc, argv);
    if (command == "version" || command == "--version") {
      std::cout << "wordsens " << wordsens::version::software << " " << wordsens::version::git_sha
                << "\nbuild: " << wordsens::version::build << "\n";
      return kExitOk;
    }
    if (command == "help" || command == "--help" || command == "-h") {
      print_usage(std::cout);
      return kExitOk;
    }
  } catch (const wordsens::InputError& e) {  // bad input, whichever layer found it
    std::cerr << "wordsens " << wordsens::printable(command)
              << ": error: " << wordsens::printable(e.what()) << "\n";
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << "wordsens " << wordsens::printable(command) << ": error: out of memory\n";
    return kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << "wordsens " << wordsens::printable(command)
              << ": error: " << wordsens::printable(e.what()) << "\n";
    return kExitFailure;
  }
  std::cerr << "wordsens: unknown command '" << wordsens::printable(command)
            << "' (try wordsens --help)\n";
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace wordsens::cli;
  // Before anything opens a file: a closed stdout or stderr must not hand its descriptor to one.
  keep_standard_descriptors_open();
  if (argc < 2) {
    print_usage(std::cerr);
    return kExitUsage;
  }
  // A file-size limit (ulimit -f) must fail a write with EFBIG, reported as one line, rather
  // than kill the process with SIGXFSZ in the middle of a write.
  std::signal(SIGXFSZ, SIG_IGN);
  wordsens::reuse_freed_memory();  // before the first allocation of any size that matters
  const std::string_view command = argv[1];
  // Each command sees its own name as argv[0], like a separate program.
  const int code = dispatch(command, argc - 1, argv + 1);
  // What a command prints on stdout is its result: a failed write fails the command.
  return finish_standard_output(command, code);
}
