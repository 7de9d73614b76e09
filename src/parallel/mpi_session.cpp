#include "parallel/mpi_session.hpp"

#include <mpi.h>

#include <stdexcept>
#include <vector>

namespace wordsens::parallel {

MpiSession::MpiSession(int* argc, char*** argv) {
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
