#include "io/files/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <utility>

#include "core/errors.hpp"

namespace wordsens::io {

namespace {

// Locks the whole file behind `fd`. An open-file-description lock (F_OFD_SETLK) is independent
// of the flock HDF5 takes itself when HDF5_USE_FILE_LOCKING forces its locking on, so the two
// never collide; flock is the fallback where OFD locks are missing. Returns 0 (locked, or a file
// system without locks: best effort, like HDF5's own) or -1 when another process holds it.
int lock_fd(int fd) {
  int error = 0;
#ifdef F_OFD_SETLK
  struct flock whole {};
  whole.l_type = F_WRLCK;
  whole.l_whence = SEEK_SET;  // l_start = l_len = 0: the whole file, however long it grows
  if (::fcntl(fd, F_OFD_SETLK, &whole) == 0) return 0;
  error = errno;
  if (error == EINVAL) error = ::flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno;
#else
  error = ::flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno;
#endif
  return error == EWOULDBLOCK || error == EAGAIN || error == EACCES ? -1 : 0;
}

// Opens `path` and locks it. Returns the descriptor, -1 when another process holds the lock,
// or -2 when the file cannot be opened.
int try_lock(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return -2;
  if (lock_fd(fd) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::string holder_text(const std::string& lock_path) {
  const int fd = ::open(lock_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buffer[256] = {};
  const ssize_t size = ::read(fd, buffer, sizeof buffer - 1);
  ::close(fd);
  std::string text(buffer, size > 0 ? static_cast<std::size_t>(size) : 0);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  for (char& ch : text) {
    if (ch == '\n') ch = ' ';
  }
  return text;
}

// The holder writes its identity right after taking the lock, so a writer refused in between
// finds the file empty: wait up to 0.2 s for the text before naming the lock file instead.
std::string holder_text_when_written(const std::string& lock_path) {
  std::string text = holder_text(lock_path);
  for (int wait = 0; text.empty() && wait < 40; ++wait) {
    const struct timespec pause { 0, 5'000'000 };
    ::nanosleep(&pause, nullptr);
    text = holder_text(lock_path);
  }
  return text;
}

std::string my_identity() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char since[32];
  std::strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return "pid " + std::to_string(::getpid()) + " on host " + host + " since " + since + "\n";
}

}  // namespace

FileLock::FileLock(const std::string& path) {
  const int fd = try_lock(path);
  if (fd == -1) {
    throw InputError(path + " is being written by another live process (its lock is held)");
  }
  if (fd == -2) throw InputError("cannot open " + path + " for writing");
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
  if (fd_ >= 0) ::close(fd_);  // closing the (only) descriptor releases the lock
}

bool FileLock::held_elsewhere(const std::string& path) {
  const int fd = try_lock(path);
  if (fd >= 0) ::close(fd);
  return fd == -1;
}

std::string WriterLock::lock_path(const std::string& output) { return output + ".lock"; }

WriterLock WriterLock::acquire(const std::string& output) {
  const std::string path = lock_path(output);
  // A releasing holder unlinks the file while it still holds the lock, so a lock taken on a
  // descriptor whose file is no longer the one at `path` is worthless: take it again.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      throw InputError("cannot create the lock file " + path + ": " + std::strerror(errno));
    }
    if (lock_fd(fd) != 0) {
      ::close(fd);
      const std::string holder = holder_text_when_written(path);
      throw InputError(output + " is being written by another process (" +
                       (holder.empty() ? std::string("its lock ") + path + " is held" : holder) +
                       "); wait for it to end or stop it first");
    }
    struct stat opened {};
    struct stat current {};
    if (::fstat(fd, &opened) == 0 && ::stat(path.c_str(), &current) == 0 &&
        opened.st_dev == current.st_dev && opened.st_ino == current.st_ino) {
      const std::string identity = my_identity();
      if (::ftruncate(fd, 0) == 0) {
        // The text is only a courtesy for the message above; the lock is what counts.
        [[maybe_unused]] const ssize_t written = ::pwrite(fd, identity.data(), identity.size(), 0);
      }
      WriterLock lock;
      lock.fd_ = fd;
      lock.path_ = path;
      return lock;
    }
    ::close(fd);
  }
  throw InputError("cannot take the lock " + path + " (it keeps being replaced)");
}

WriterLock::WriterLock(WriterLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

WriterLock& WriterLock::operator=(WriterLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

WriterLock::~WriterLock() { release(); }

void WriterLock::release() noexcept {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // while still holding the lock (see acquire)
  ::close(fd_);
  fd_ = -1;
}

}  // namespace wordsens::io
