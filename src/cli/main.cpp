// `wordsens`: thin dispatcher to the sub-commands.
#include <csignal>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string_view>

#include "cli/commands.hpp"
#include "cli/config.hpp"
#include "cli/exit_codes.hpp"
#include "core/memory_reuse.hpp"
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
         "  ws           word-sensitivity estimates, one line per trial (no MPI, no files)\n"
         "  gen          trained-head generalization after a one-word change (no MPI, no files)\n"
         "  version      print the software version and git sha\n";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace wordsens::cli;
  if (argc < 2) {
    print_usage(std::cerr);
    return kExitUsage;
  }
  // A file-size limit (ulimit -f) must fail a write with EFBIG, reported as one line, rather
  // than kill the process with SIGXFSZ in the middle of a write.
  std::signal(SIGXFSZ, SIG_IGN);
  wordsens::reuse_freed_memory();  // before the first allocation of any size that matters
  install_task_planner();
  const std::string_view command = argv[1];
  // Each command sees its own name as argv[0], like a separate program.
  const int sub_argc = argc - 1;
  char** sub_argv = argv + 1;
  try {
    if (command == "ws") return ws_command(sub_argc, sub_argv);
    if (command == "gen") return gen_command(sub_argc, sub_argv);
    if (command == "run") return run_command(sub_argc, sub_argv);
    if (command == "merge") return merge_command(sub_argc, sub_argv);
    if (command == "info") return info_command(sub_argc, sub_argv);
    if (command == "version" || command == "--version") {
      std::cout << "wordsens " << wordsens::version::software << " " << wordsens::version::git_sha
                << "\nbuild: " << wordsens::version::build << "\n";
      return kExitOk;
    }
    if (command == "help" || command == "--help" || command == "-h") {
      print_usage(std::cout);
      return kExitOk;
    }
  } catch (const std::bad_alloc&) {
    std::cerr << "wordsens " << command << ": error: out of memory\n";
    return kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << "wordsens " << command << ": error: " << e.what() << "\n";
    return kExitFailure;
  }
  std::cerr << "wordsens: unknown command '" << command << "' (try wordsens --help)\n";
  return kExitUsage;
}
