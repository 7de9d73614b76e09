#pragma once
// Standard output as part of a command's result: `wordsens info f.h5 > report.txt` on a full
// disk, or with stdout closed (`>&-`), must not exit 0 having written nothing.
#include <string_view>

namespace wordsens::cli {

/// Call first thing in main. A closed standard descriptor (0, 1, 2) is reopened on a device, so
/// that no file the command opens later (a results file, a lock) gets descriptor 1 or 2 and
/// receives what is printed: stdin and stderr on /dev/null, stdout on /dev/full, so that
/// printing to a closed stdout still fails and finish_standard_output reports it. Then routes
/// stdout and std::cout through one stream that records why a write to descriptor 1 fails.
void keep_standard_descriptors_open();

/// Call last thing in main, with the command's exit code: flushes standard output and, when a
/// write to it failed (now or earlier: a full disk, a closed descriptor, a reader that has
/// gone), prints one line "wordsens <command>: error: cannot write standard output: <why>" on
/// stderr and turns exit code 0 into 1. Other codes are returned as they are (the command has
/// already said what went wrong first).
[[nodiscard]] int finish_standard_output(std::string_view command, int exit_code);

}  // namespace wordsens::cli
