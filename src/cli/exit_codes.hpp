#pragma once
// Documented process exit codes (docs/COMMANDS.md "Exit codes"); job scripts depend on them.
namespace wordsens::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;       // a computation or I/O failed
inline constexpr int kExitUsage = 2;         // bad command line, configuration or input file
inline constexpr int kExitCheckpointed = 3;  // stopped early on USR1 / wall time; rerun resumes
inline constexpr int kExitInterrupted = 4;   // stopped on TERM/INT after flushing; rerun resumes

}  // namespace wordsens::cli
