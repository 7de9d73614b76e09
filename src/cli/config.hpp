#pragma once
// Options of `wordsens run`: an INI file plus `--key=value` overrides (the command line wins).
// Every INI key is also a command-line option. Parsing resolves and validates everything that
// can be checked without touching a file, so bad input fails with one line and exit code 2
// before the results file is opened.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/key_format.hpp"
#include "core/errors.hpp"
#include "data/data_source.hpp"
#include "driver/run_options.hpp"

namespace wordsens::cli {

/// Parses argv of `wordsens run` (argv[0] is "run"). Throws InputError (one line).
/// `read_encoder`: read the trained models' encoder weights (`wordsens config` only resolves the
/// study's keys, without them).
[[nodiscard]] RunOptions parse_run_options(int argc, char** argv, bool read_encoder = true);

/// `wordsens run --help`: every option with its default and meaning.
[[nodiscard]] std::string run_help_text();

/// docs/CONFIG.md: every key of `wordsens run` with its type, default, example and meaning, in
/// Markdown, generated from the keys' declarations.
[[nodiscard]] std::string config_reference();

/// Each key's type and example, as declared (config_reference's columns).
[[nodiscard]] KeyFormats run_key_formats();

/// The data source named by `data` (config_data_source.cpp: the one switch between sources),
/// checked against every one of `tasks` (e.g. enough long-enough texts, finite tokens) and, for
/// a file, holding in memory just the sequences they use. Throws InputError for an unusable
/// source.
[[nodiscard]] std::unique_ptr<DataSource> make_data_source(const StudyConfig& study,
                                                           const std::vector<TaskSpec>& tasks);

/// Reads the trained models' encoder layer into study.encoder (config_encoder.cpp) when a model
/// of the study needs it. Throws InputError (one line) for an encoder that cannot be read.
void load_encoder(StudyConfig& study);

/// Throws InputError (one line) unless an embeddings file `attribute` (the file's root attributes
/// as text, "" when absent) holds what the study's trained models take: the states of layer
/// ℓ − 1 of the same weights (its embedding_weights_sha256), in LayerNorm coordinates
/// (coordinates = "normalised"). Nothing without a trained model.
void check_encoder_data(const StudyConfig& study, const std::string& path,
                        const std::function<std::string(const std::string&)>& attribute);

/// The files the run reads: the data source's (none for synthetic data) and the trained
/// models' weights file.
[[nodiscard]] std::vector<std::string> input_file_paths(const StudyConfig& study);

/// The fingerprint of every input file, one line each: "<data> size=<bytes> mtime=<UTC>
/// content=<hash of the datasets used>" and "encoder:<weights file> size=… mtime=…
/// content=sha256:<hex>" (io::RunProvenance::input_fingerprints); "" for synthetic data without
/// a trained model. Reads each file whole. Throws InputError when a file cannot be read.
[[nodiscard]] std::string input_fingerprints(const StudyConfig& study);

}  // namespace wordsens::cli
