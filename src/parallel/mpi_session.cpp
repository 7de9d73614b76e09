#include "parallel/mpi_session.hpp"

#include <mpi.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include <stdexcept>
#include <vector>

namespace wordsens::parallel {

namespace {

// Open MPI puts each rank in its own process group; when mpirun is killed with SIGKILL (node
// failure, `kill -9`), a rank can survive as an orphan and keep appending to the results file
// while a rerun resumes it. A rank started by a launcher therefore dies with its parent.
void die_with_launcher() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr) return;  // singleton: no launcher
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) std::_Exit(137);  // the launcher died before prctl took effect
}

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  die_with_launcher();
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
