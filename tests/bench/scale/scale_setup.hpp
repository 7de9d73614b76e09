#pragma once
// The simulations of one configuration file: its tasks as `wordsens run CONFIG` plans them, each
// with its time from recorded timings or the cost model.
#include <string>
#include <vector>

#include "scale/simulation.hpp"

namespace wordsens::scale {

/// The timed run of `config_path` on `ranks` ranks into `output`: task times from `timings_csv`
/// (tests/fixtures/task_timings), or from the cost model when it is empty; compression 1.
/// Throws what parsing the configuration or reading the timings throws.
[[nodiscard]] Simulation timed_simulation(const std::string& config_path,
                                          const std::string& timings_csv, int ranks,
                                          const std::string& output);

/// The throughput run: the same grid points with trials enough for at least `min_tasks` tasks
/// (records of the same shape), every task computing in no time (compression 0), so that rank 0
/// is never waiting for work.
[[nodiscard]] Simulation throughput_simulation(const std::string& config_path, int ranks,
                                               std::size_t min_tasks, const std::string& output);

/// The compression of a timed run: enough for the last task to end after about `target_wall`
/// seconds (the run lasts at least its longest task and the tasks' total over the ranks), but
/// never so much that rank 0, which stores `root_tasks_per_second` at most, is loaded beyond
/// `max_load` of that by the compressed tasks (or by the real ones where they load it more):
/// compressing time multiplies the rate at which tasks finish, and a rank 0 loaded by the
/// compression alone would show queueing that the real run never has. At least 1.
[[nodiscard]] double compression_for(const std::vector<double>& seconds, int ranks,
                                     double target_wall, double root_tasks_per_second,
                                     double max_load);

/// The rate at which tasks finish when `ranks` ranks compute them: min(ranks, tasks) / the mean
/// task seconds (tasks / second).
[[nodiscard]] double finishing_rate(const std::vector<double>& seconds, int ranks);

}  // namespace wordsens::scale
