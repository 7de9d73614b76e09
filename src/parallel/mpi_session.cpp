#include "parallel/mpi_session.hpp"

#include <mpi.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include <stdexcept>
#include <vector>

namespace wordsens::parallel {

void die_with_launcher() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr) return;  // singleton: no launcher
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Orphans are re-parented to init: the launcher died before prctl took effect.
  if (getppid() == 1) std::_Exit(137);
}

MpiSession::MpiSession(int* argc, char*** argv) {
  // Without mpirun or srun, Open MPI starts a singleton by forking an `orted` server that binds
  // itself to a core; on a fully loaded machine that fork was seen to hang in sched_setaffinity
  // for minutes (and to outlive its process). A singleton needs no server (no dynamic processes
  // here), so run it isolated; the parameter only affects singletons, and a value the user set
  // wins.
  setenv("OMPI_MCA_ess_singleton_isolated", "1", /*overwrite=*/0);
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  if (provided < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    throw std::runtime_error("the MPI library does not support MPI_THREAD_FUNNELED");
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() { finalize(); }

void MpiSession::finalize() {
  if (finalized_) return;
  finalized_ = true;
  MPI_Finalize();
}

void MpiSession::barrier() const { MPI_Barrier(MPI_COMM_WORLD); }

int MpiSession::broadcast(int value) const {
  MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return value;
}

std::string MpiSession::broadcast(const std::string& value) const {
  unsigned long long size = value.size();
  MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  std::vector<char> buffer(value.begin(), value.end());
  buffer.resize(size);
  if (size > 0) MPI_Bcast(buffer.data(), static_cast<int>(size), MPI_CHAR, 0, MPI_COMM_WORLD);
  return {buffer.begin(), buffer.end()};
}

}  // namespace wordsens::parallel
