#pragma once
// What `wordsens run` is asked to do: the study (everything that determines the results) and how
// to run it (output file, shard, wall time, progress). The command line fills it
// (cli/config.hpp) and run_study (driver/run_study.hpp) carries it out.
#include <string>

#include "study/shard.hpp"
#include "study/study.hpp"

namespace wordsens {

struct RunOptions {
  StudyConfig study;
  std::string output = "results.h5";
  bool overwrite = false;
  double walltime = 0;  // seconds; 0: none
  double progress_interval = 10;
  double memory_per_rank = 0;  // bytes a rank may use (memory-per-rank); 0: this node's (auto)
  Shard shard;
  std::string command_line;  // argv joined by spaces (provenance)
  // The command line's own: they do not reach run_study.
  std::string config_path;  // "" when no INI file was given
  bool dry_run = false;
  std::string plan_format = "table";  // how --dry-run prints (cli/plan_export.hpp)
  std::string calibration = "auto";   // what --dry-run prices with (cli/calibration_file.hpp)
  bool help = false;
};

/// The canonical configuration text stored in the file and compared on resume: the study's
/// keys, plus `shard = i/N` for a sharded run (merge ignores it, see io/format/schema.hpp
/// kShardKeys). Leaves out what may change between resumes: output, overwrite, dry-run, format,
/// calibration, walltime, progress, memory-per-rank.
[[nodiscard]] std::string config_text(const RunOptions& options);

}  // namespace wordsens
