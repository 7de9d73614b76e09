// The one place that maps the `data` key to a DataSource. `synthetic` is built in; a source
// that reads a file (`embeddings:<path>`) is added here, next to its validation.
#include <memory>

#include "cli/config.hpp"

namespace wordsens::cli {

std::unique_ptr<DataSource> make_data_source(const StudyConfig& study) {
  if (study.data == "synthetic") return std::make_unique<SyntheticSource>(study.seed);
  if (study.data.rfind("embeddings:", 0) == 0) {
    throw UsageError("data = '" + study.data +
                     "': real-embedding sequences are not wired into `run` in this build");
  }
  throw UsageError("data = '" + study.data + "': expected synthetic or embeddings:<path>");
}

void check_data_source(const StudyConfig& study, const std::vector<TaskSpec>& /*tasks*/) {
  (void)make_data_source(study);
}

}  // namespace wordsens::cli
