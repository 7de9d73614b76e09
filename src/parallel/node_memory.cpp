#include "parallel/node_memory.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

namespace wordsens::parallel {
namespace {

constexpr double kKiB = 1024.0;

// The value of `key:` in a /proc file of "key: value kB" lines (bytes), or nothing.
std::optional<double> proc_field(const char* path, const std::string& key) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(key.size() + 1));
    double value = 0;
    std::string unit;
    if (fields >> value) {
      fields >> unit;
      return unit == "kB" ? value * kKiB : value;
    }
  }
  return std::nullopt;
}

// The first number of a file (a cgroup's "max" or a missing file: nothing).
std::optional<double> number_in(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word)) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(word.c_str(), &end);
  if (end == word.c_str() || *end != '\0') return std::nullopt;
  return value;
}

// `key value` of a cgroup's memory.stat.
std::optional<double> stat_field(const std::filesystem::path& path, const std::string& key) {
  std::ifstream in(path);
  std::string name;
  double value = 0;
  while (in >> name >> value) {
    if (name == key) return value;
  }
  return std::nullopt;
}

// The memory this process's control group leaves for new allocations: its limit less what it
// uses, page cache that can be dropped not counted as used (cgroup v2 walks up to the root, the
// least room of every level; v1 reads its memory controller's group). Nothing without a limit.
std::optional<double> cgroup_room() {
  std::ifstream in("/proc/self/cgroup");
  std::optional<double> room;
  const auto consider = [&](std::optional<double> limit, std::optional<double> used,
                            std::optional<double> cache) {
    // v1 reports "no limit" as a number near 2^63.
    if (!limit || *limit >= 1e18) return;
    const double left = *limit - std::max(0.0, used.value_or(0) - cache.value_or(0));
    room = std::min(room.value_or(left), left);
  };
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (controllers.empty()) {  // v2: "0::/path"
      const std::filesystem::path root = "/sys/fs/cgroup";
      std::filesystem::path dir = root / std::filesystem::path(path).relative_path();
      if (!std::filesystem::exists(dir / "memory.max")) dir = root;  // a namespace's own root
      for (; dir.string().size() >= root.string().size(); dir = dir.parent_path()) {
        consider(number_in(dir / "memory.max"), number_in(dir / "memory.current"),
                 stat_field(dir / "memory.stat", "inactive_file"));
        if (dir == root) break;
      }
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      const std::filesystem::path root = "/sys/fs/cgroup/memory";
      std::filesystem::path dir = root / std::filesystem::path(path).relative_path();
      if (!std::filesystem::exists(dir / "memory.limit_in_bytes")) dir = root;
      consider(number_in(dir / "memory.limit_in_bytes"), number_in(dir / "memory.usage_in_bytes"),
               stat_field(dir / "memory.stat", "total_inactive_file"));
    }
  }
  return room;
}

// What an address-space limit (ulimit -v, prlimit --as) leaves this process: each rank has its
// own. Nothing without one.
std::optional<double> address_space_room() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  const double used = proc_field("/proc/self/status", "VmSize").value_or(0);
  return std::max(0.0, static_cast<double>(limit.rlim_cur) - used);
}

// The first number of an environment variable ("2(x3),1" gives 2), or nothing.
std::optional<int> leading_number(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  char* end = nullptr;
  const long number = std::strtol(value, &end, 10);
  if (end == value || number < 1 || number > 1000000) return std::nullopt;
  return static_cast<int>(number);
}

}  // namespace

int ranks_on_this_node() {
  // Open MPI's mpirun, MPICH's hydra, then Slurm's step (srun) or job.
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
                           "SLURM_STEP_TASKS_PER_NODE", "SLURM_NTASKS_PER_NODE"}) {
    if (const auto ranks = leading_number(name)) return *ranks;
  }
  return 1;
}

bool first_rank_on_this_node() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}) {
    if (const char* value = std::getenv(name)) return std::string(value) == "0";
  }
  return true;
}

std::optional<NodeMemory> memory_per_rank() {
  const auto available = proc_field("/proc/meminfo", "MemAvailable");
  if (!available) return std::nullopt;
  const int ranks = ranks_on_this_node();
  NodeMemory m;
  double node = *available;
  m.how = format_bytes(*available) + " available on this machine";
  if (const auto room = cgroup_room(); room && *room < node) {
    node = *room;
    m.how += ", " + format_bytes(*room) + " left by its control group";
  }
  m.per_rank = node / ranks;
  m.how += ranks == 1 ? ", for 1 rank on this node"
                      : ", shared by " + std::to_string(ranks) + " ranks on this node";
  if (const auto room = address_space_room(); room && *room < m.per_rank) {
    m.per_rank = *room;
    m.how += "; an address-space limit (ulimit -v) leaves a rank " + format_bytes(*room);
  }
  return m;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 5) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : (bytes < 10 ? "%.1f %s" : "%.0f %s"),
                bytes, units[unit]);
  return text;
}

std::optional<double> parse_bytes(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(value) || value < 0) return std::nullopt;
  std::string unit(end);
  for (const char* suffix : {"iB", "B"}) {
    const std::string s(suffix);
    if (unit.size() >= s.size() && unit.compare(unit.size() - s.size(), s.size(), s) == 0) {
      unit.resize(unit.size() - s.size());
      break;
    }
  }
  const std::string units = "KMGT";
  if (unit.empty()) return value;
  if (unit.size() != 1) return std::nullopt;
  const auto power =
      units.find(static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0]))));
  if (power == std::string::npos) return std::nullopt;
  return value * std::pow(1024.0, static_cast<double>(power + 1));
}

}  // namespace wordsens::parallel
