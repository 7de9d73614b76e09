#include "io/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "io/results_file.hpp"

namespace wordsens::io {

namespace {
// flock on a fresh descriptor; returns the descriptor (locked or on a lock-less file system),
// -1 when another process holds the lock, or -2 when the file cannot be opened.
int try_lock(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -2;
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
  const int error = errno;
  if (error == EWOULDBLOCK) {
    ::close(fd);
    return -1;
  }
  return fd;  // ENOLCK / ENOSYS / EINVAL: no locking here; best effort, like HDF5's own
}
}  // namespace

FileLock::FileLock(const std::string& path) {
  const int fd = try_lock(path);
  if (fd == -1) {
    throw InputError(path + " is being written by another live process (its lock is held)");
  }
  if (fd == -2) throw InputError("cannot open " + path);
  fd_ = fd;
}

FileLock::FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the flock
}

bool FileLock::held_elsewhere(const std::string& path) {
  const int fd = try_lock(path);
  if (fd >= 0) ::close(fd);
  return fd == -1;
}

}  // namespace wordsens::io
