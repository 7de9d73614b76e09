#pragma once
// The memory a rank of this run may use, read before MPI starts so that a plan whose largest
// task cannot fit is refused before any file is written: the machine's available memory
// (MemAvailable), or less where a control group (Slurm's job, a container) or an address-space
// limit (ulimit -v) caps it, shared by the ranks the launcher starts on this node.
#include <cstdint>
#include <optional>
#include <string>

namespace wordsens::parallel {

/// The ranks the launcher starts on this node (its environment: Open MPI's, MPICH's, Slurm's);
/// 1 without a launcher.
[[nodiscard]] int ranks_on_this_node();

/// Whether this process is the first rank the launcher starts on this node (its local rank is 0;
/// true without a launcher).
[[nodiscard]] bool first_rank_on_this_node();

/// What a rank may use, and where the number comes from.
struct NodeMemory {
  double per_rank = 0;  // bytes
  /// One line: "23.1 GiB available on this machine, shared by 2 ranks on this node".
  std::string how;
};

/// This node's memory per rank; nothing when no source can be read (not Linux).
[[nodiscard]] std::optional<NodeMemory> memory_per_rank();

/// `bytes` for people: "1.5 GiB", "730 MiB", "12 KiB".
[[nodiscard]] std::string format_bytes(double bytes);

/// "4G", "512M", "1.5T", "2000000" (bytes): K, M, G and T are powers of 1024, as Slurm's --mem
/// counts (an optional trailing "iB" or "B" is accepted). Nothing for another text.
[[nodiscard]] std::optional<double> parse_bytes(const std::string& text);

}  // namespace wordsens::parallel
