// The one place that maps the `data` key to a DataSource (the sources are in src/data); a source
// that reads a file (`embeddings:<path>`) is opened here, through the io layer, and checked
// against every task before the run starts.
#include <memory>
#include <string>

#include "cli/config.hpp"
#include "data/embeddings_data_source.hpp"
#include "io/inputs/embeddings_file.hpp"
#include "io/inputs/encoder_weights.hpp"

namespace wordsens::cli {

namespace {

bool is_embeddings(const StudyConfig& study) {
  return study.data.kind == DataSpec::Kind::embeddings;
}

// Opens and validates the file, checks every grid point against it, and reads the sequences the
// tasks use into memory: the computing threads never touch HDF5.
std::unique_ptr<DataSource> embeddings_source(const StudyConfig& study,
                                              const std::vector<TaskSpec>& tasks) {
  const auto file = io::EmbeddingsFile::open(study.data.path);
  check_encoder_data(study, study.data.path,
                     [&file](const std::string& key) { return file.attribute(key); });
  std::vector<TextUse> uses;
  for (const TaskSpec& task : tasks) uses.push_back(text_use(task));
  const EmbeddingsNeeds needs = embeddings_needs(file, study.seed, uses);
  auto table =
      std::make_shared<const EmbeddingsTable>(file.load(needs.sequences, needs.n, needs.d));
  // NaN/Inf or all-zero tokens: refused now (exit 2), not when a task meets them mid-run.
  check_token_values(*table, needs);
  return std::make_unique<EmbeddingsDataSource>(std::move(table), study.seed);
}

}  // namespace

std::unique_ptr<DataSource> make_data_source(const StudyConfig& study,
                                             const std::vector<TaskSpec>& tasks) {
  switch (study.data.kind) {
    case DataSpec::Kind::synthetic:
      return std::make_unique<SyntheticSource>(study.seed);
    case DataSpec::Kind::embeddings:
      return embeddings_source(study, tasks);
  }
  throw InputError("data = '" + study.data.to_string() + "': unknown data source");
}

std::vector<std::string> input_file_paths(const StudyConfig& study) {
  std::vector<std::string> paths;
  if (is_embeddings(study)) paths.push_back(study.data.path);
  if (has_encoder_model(study)) paths.push_back(io::encoder_weights_path(study.encoder_path));
  return paths;
}

std::string input_fingerprints(const StudyConfig& study) {
  std::string lines;
  if (is_embeddings(study)) {
    lines += study.data.to_string() + " " +
             io::EmbeddingsFile::open(study.data.path).fingerprint() + "\n";
  }
  // The trained models' weights, like any input: a changed file is refused on resume.
  if (has_encoder_model(study)) {
    const std::string weights = io::encoder_weights_path(study.encoder_path);
    lines += "encoder:" + weights + " " + io::weights_fingerprint(weights) + "\n";
  }
  return lines;
}

}  // namespace wordsens::cli
