#pragma once
// MPI for the rest of the program, without mpi.h: initialisation (threads: only the main thread
// calls MPI, the compute thread never does, so MPI_THREAD_FUNNELED suffices) and the Transport
// the scheduler and the driver talk through, on MPI_COMM_WORLD.
#include <cstdint>
#include <optional>
#include <vector>

#include "parallel/session_directory.hpp"
#include "parallel/transport.hpp"

namespace wordsens::parallel {

/// Open MPI puts each rank in its own process group; when mpirun is killed with SIGKILL (node
/// failure, `kill -9`), a rank could survive as an orphan and keep appending to the results file
/// while a rerun resumes it. Under an Open MPI launcher this makes the rank die with its parent
/// (Linux PR_SET_PDEATHSIG). Call it first thing, to leave no window after the fork.
void die_with_launcher();

class MpiSession final : public Transport {
 public:
  /// MPI_Init_thread(FUNNELED); throws std::runtime_error when the library cannot provide it.
  MpiSession(int* argc, char*** argv);
  ~MpiSession();  // MPI_Finalize, then removes a singleton's own session directory
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return size_; }
  [[nodiscard]] std::optional<Message> try_receive(int source) const override;
  void send(int dest, int tag, const std::vector<std::uint8_t>& bytes) const override;
  [[nodiscard]] int broadcast(int value) const override;

  /// Finalizes now (idempotent); for exits that bypass destructors.
  void finalize();

 private:
  int rank_ = 0;
  int size_ = 1;
  bool finalized_ = false;
  SessionDirectory session_directory_;  // a singleton's own; none under mpirun or srun
};

}  // namespace wordsens::parallel
