// `wordsens merge a.h5 b.h5 … -o all.h5`: the shards of a job array into one results file
// (io::ResultsFile::merge does the work and the checks).
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/errors.hpp"
#include "core/printable.hpp"
#include "io/results_file.hpp"

namespace wordsens::cli {

namespace po = boost::program_options;

int merge_command(int argc, char** argv) {
  std::vector<std::string> inputs;
  std::string output;
  bool overwrite = false, allow_mixed_builds = false;
  po::options_description visible(
      "usage: wordsens merge A.h5 B.h5 ... -o ALL.h5 [--overwrite] [--allow-mixed-builds]\n\n"
      "Merges results files of the shards of one study (--shard i/N runs of the same\n"
      "configuration) into one file whose records equal those of an unsharded run. Refuses\n"
      "files of different configurations or input data, tasks finished in two inputs, and\n"
      "files computed by different builds (software_version, git_sha, build: records are\n"
      "reproducible to the last bit by one build only) unless --allow-mixed-builds. The output\n"
      "names the build of its records, is written under a temporary name and renamed when\n"
      "complete. Exit codes: 0 done, 2 bad input (missing or foreign file, different\n"
      "configurations, input data or builds, duplicated tasks, an output another process\n"
      "writes), 1 I/O failure (a full disk) or a damaged input.\n\n"
      "options");
  visible.add_options()                                                          //
      ("help,h", "print this help and exit")                                     //
      ("output,o", po::value(&output), "the merged file to write (required)")    //
      ("overwrite", po::bool_switch(&overwrite), "replace OUTPUT if it exists")  //
      ("allow-mixed-builds", po::bool_switch(&allow_mixed_builds),
       "merge files computed by different builds; the output's attribute `builds` lists each "
       "build with the tasks it computed");
  po::options_description all;
  all.add(visible).add_options()("input", po::value(&inputs));
  po::positional_options_description positional;
  positional.add("input", -1);
  try {
    po::variables_map vm;
    store_command_line(argc, argv, all, positional, "merge", vm);
    if (vm.count("help") != 0) {
      std::cout << visible << "\n";
      return kExitOk;
    }
    po::notify(vm);
    if (inputs.empty()) throw InputError("no input files");
    if (output.empty()) throw InputError("the output file is missing (-o ALL.h5)");
    for (const auto& input : inputs) {
      std::error_code error;
      if (std::filesystem::equivalent(input, output, error)) {
        throw InputError("the output " + output + " is also an input");
      }
    }
  } catch (const std::exception& e) {
    return report_usage_error("merge", e);
  }
  std::string command_line;
  for (int i = 0; i < argc; ++i)
    command_line += (i == 0 ? "wordsens " : " ") + std::string(argv[i]);
  // Refused inputs (InputError) and failures reach main's one mapping to exit codes.
  io::ResultsFile::merge(inputs, output, overwrite, command_line, allow_mixed_builds);
  std::cout << "merged " << inputs.size() << " files into " << printable(output) << "\n";
  return kExitOk;
}

}  // namespace wordsens::cli
