#pragma once
// A directory of a singleton's own for Open MPI's session tree. Isolated singletons all take job
// family 0, so every one on a node builds its tree in the same <tmp>/ompi.<host>.<uid>/jf.0, and
// each removes jf.0 when it ends: a singleton starting while another ends can find jf.0 gone
// between its two mkdir calls and fail in MPI_Init (seen with a dozen runs at once).
#include <string>
#include <utility>

namespace wordsens::parallel {

class SessionDirectory final {
 public:
  /// Under the temporary directory Open MPI would use (TMPDIR, TEMP, TMP or /tmp), creates
  /// wordsens-mpi.<host>.<pid>.XXXXXX and points OMPI_MCA_orte_tmpdir_base at it; first removes
  /// the ones of this host whose process is gone (a run killed before it could clean up). Does
  /// nothing when the user set OMPI_MCA_orte_tmpdir_base, or when the directory cannot be made
  /// (Open MPI then uses its default).
  static SessionDirectory create();
  SessionDirectory() = default;

  /// Removes the directory and what Open MPI left in it; call after MPI_Finalize. Idempotent.
  void remove();

 private:
  explicit SessionDirectory(std::string path) : path_(std::move(path)) {}
  std::string path_;  // empty: none of ours
};

}  // namespace wordsens::parallel
