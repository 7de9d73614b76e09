#include "io/files/file_kind.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace wordsens::io {

std::string file_kind(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "of an unknown type";
}

std::string regular_file_problem(const std::string& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) {
    const int error = errno;
    struct stat link {};
    if (error == ENOENT && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      return "is a symbolic link to a file that does not exist";
    }
    if (error == ENOENT) return "does not exist";
    if (error == ELOOP) {
      return "cannot be resolved (too many levels of symbolic links: a symbolic link loop?)";
    }
    return std::string("cannot be reached (") + std::strerror(error) + ")";
  }
  if (S_ISREG(status.st_mode)) return "";
  if (S_ISDIR(status.st_mode)) return "is a directory";
  return "is not a regular file (" + file_kind(status.st_mode) + ")";
}

}  // namespace wordsens::io
