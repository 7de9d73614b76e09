#pragma once
// `wordsens <command> …`: each command lives in its own file and parses its own options.
// Return value is the process exit code (see exit_codes.hpp).
namespace wordsens::cli {

int ws_command(int argc,
               char** argv);  // ws_command.cpp: WS estimates without MPI or a results file
int gen_command(int argc, char** argv);        // gen_command.cpp: trained-head generalization
int run_command(int argc, char** argv);        // run_command.cpp: options, checks, then run_study
int merge_command(int argc, char** argv);      // merge_command.cpp: merge shard files
int info_command(int argc, char** argv);       // info_command.cpp: what a results file holds
int calibrate_command(int argc, char** argv);  // calibrate_command.cpp: the cost model's rates
int config_command(int argc, char** argv);     // config_command.cpp: a study's stored settings

}  // namespace wordsens::cli
