#include "parallel/mpi_session.hpp"

#include <mpi.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <stdexcept>

namespace wordsens::parallel {

void die_with_launcher() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr) return;  // singleton: no launcher
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Orphans are re-parented to init: the launcher died before prctl took effect.
  if (getppid() == 1) std::_Exit(137);
}

namespace {

bool under_a_launcher() {
  // mpirun sets OMPI_COMM_WORLD_SIZE; srun sets PMIX_RANK (pmix) or PMI_RANK (pmi2).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  // Without mpirun or srun, Open MPI starts a singleton by forking an `orted` server that binds
  // itself to a core; on a fully loaded machine that fork was seen to hang in sched_setaffinity
  // for minutes (and to outlive its process). A singleton needs no server (no dynamic processes
  // here), so run it isolated; the parameter only affects singletons, and a value the user set
  // wins.
  setenv("OMPI_MCA_ess_singleton_isolated", "1", /*overwrite=*/0);
  if (!under_a_launcher()) session_directory_ = SessionDirectory::create();
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  if (provided < MPI_THREAD_FUNNELED) {
    finalize();
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
  session_directory_.remove();
}

int MpiSession::broadcast(int value) const {
  MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return value;
}

std::optional<Message> MpiSession::try_receive(int source) const {
  int flag = 0;
  MPI_Status status;
  MPI_Iprobe(source == kAnySource ? MPI_ANY_SOURCE : source, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
             &status);
  if (!flag) return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  Message m;
  m.source = status.MPI_SOURCE;
  m.tag = status.MPI_TAG;
  m.bytes.resize(static_cast<std::size_t>(count));
  MPI_Recv(m.bytes.data(), count, MPI_BYTE, m.source, m.tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return m;
}

void MpiSession::send(int dest, int tag, const std::vector<std::uint8_t>& bytes) const {
  MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, dest, tag, MPI_COMM_WORLD);
}

}  // namespace wordsens::parallel
