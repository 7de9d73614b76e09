#pragma once
// Every name of the results file, defined once (mirrored in analysis/FORMAT.md, which the
// Python reader follows); the columns of /ws and /gen are the record schemas of
// study/record_fields.cpp. Bump kFormatMajor when a reader of the old version would misread a
// new file; bump kFormatMinor for additive changes (new datasets or attributes).
#include <array>
#include <cstddef>

namespace wordsens::io::schema {

inline constexpr const char* kFileType = "wordsens-results";
inline constexpr int kFormatMajor = 1;
inline constexpr int kFormatMinor = 11;
inline constexpr std::array<int, 2> kFormatVersion = {kFormatMajor, kFormatMinor};
// The oldest minor version a run can resume: its tables have every column this version appends
// (1.4 added /tasks/words and three /ws columns) and every dataset has its checksums (1.5), so
// that no record of the file lacks the guarantee. A 1.5 file lacks only row_crc32 (1.6): the
// rows appended to it get none, as its others have none. 1.5 and 1.6 files also lack /models
// (1.7), which describes the task table and is never appended to: they keep their version.
inline constexpr int kResumeMinor = 5;
// The first minor version whose datasets all carry a Fletcher-32 checksum per chunk, whose
// string attributes are fixed-length (none in HDF5's unchecked global heap), and whose root has
// the task table's checksum (attr::kTaskTableCrc32).
inline constexpr int kChecksumMinor = 5;
// The first minor version whose record tables have a checksum per row (col::kRowCrc32): chunks
// are one page from then on, and a page of zeros is a valid chunk; the row checksum sees it.
inline constexpr int kRowCrcMinor = 6;
// The first minor version with the table /models: the traits of the models its tasks run, as the
// catalogue of the writing build gives them (models/registry.cpp), so that a reader needs no
// list of its own.
inline constexpr int kModelsMinor = 7;
// The first minor version with the column /tasks/heads (H as a grid axis). Before it a study had
// one H, its configuration's `heads`, for its multi-head models: readers take it from there.
inline constexpr int kHeadsMinor = 8;
// The first minor version whose /tasks/k holds block's MLP width (the mlp-width grid). Before it
// block's k was 0 and its MLP kBlockWidthFactor·d wide: readers take that width.
inline constexpr int kMlpWidthMinor = 9;
// The first minor version whose /models has every trait of the catalogue's rows: whether a model
// has several heads, what its width is, whether it reads an encoder (before it, 4 of them; readers
// take the others from the traits the models had in the builds that wrote those files).
inline constexpr int kAllTraitsMinor = 10;
// The first minor version with the group /config: each key of config_text as an attribute of its
// own, typed (study/study_settings.hpp), so that a reader needs no parser of the text. config_text
// and its hash stay what resume and merge compare.
inline constexpr int kConfigMinor = 11;

// Root attributes (provenance).
namespace attr {
inline constexpr const char* kFileType = "filetype";
inline constexpr const char* kFormatVersion = "format_version";  // int32[2]: major, minor
inline constexpr const char* kSoftwareVersion = "software_version";
inline constexpr const char* kGitSha = "git_sha";
inline constexpr const char* kBuild = "build";  // -march, BLAS, compiler, build type (format 1.1)
inline constexpr const char* kCreatedUtc = "created_utc";  // ISO 8601, e.g. 2026-11-26T00:10:00Z
inline constexpr const char* kCommandLine = "command_line";
inline constexpr const char* kMpiRanks = "mpi_ranks";        // int64
inline constexpr const char* kMasterSeed = "master_seed";    // int64
inline constexpr const char* kConfigText = "config_text";    // `key = value` lines
inline constexpr const char* kConfigHash = "config_hash";    // FNV-1a 64 of config_text, 16 hex
inline constexpr const char* kSaveWitness = "save_witness";  // int64 0/1
inline constexpr const char* kMergedFrom = "merged_from";    // merge outputs only: input names
// Format 1.3: one line per input file of the run ("" for synthetic data):
// `<data spelling> size=<bytes> mtime=<UTC> content=<hash>`; resume and merge compare content.
inline constexpr const char* kInputFingerprints = "input_fingerprints";
// Format 1.5: CRC-32 (zlib's) of config_text's bytes followed by the task table's columns as
// stored, column after column (task_id, point_id, experiment, model, n, d, k, N, layers, heads
// (format 1.8 on), words, trial; little-endian, model NUL-padded to kModelLength bytes; done is
// not included): every
// reader can tell a task table edited after the run planned it, without the planner. int64.
inline constexpr const char* kTaskTableCrc32 = "task_table_crc32";
// Format 1.5, only in a file holding records of several builds (a merge with
// --allow-mixed-builds): one line per build, `software_version=<v>\tgit_sha=<sha>\tbuild=<b>\t
// tasks=<ids>` (ids as ranges: `0-11,24,30-35`); a done task no line lists was computed by the
// build of the root attributes software_version, git_sha and build.
inline constexpr const char* kBuilds = "builds";
// Attributes of every dataset (format 1.2): its unit and a one-line meaning.
inline constexpr const char* kUnit = "unit";
inline constexpr const char* kMeaning = "meaning";
}  // namespace attr

// Groups.
inline constexpr const char* kTasks = "/tasks";
inline constexpr const char* kWs = "/ws";
inline constexpr const char* kGen = "/gen";
inline constexpr const char* kWitness = "/witness";
inline constexpr const char* kSummary = "/summary";
inline constexpr const char* kSummaryWs = "/summary/ws";
inline constexpr const char* kSummaryGen = "/summary/gen";
inline constexpr const char* kModels = "/models";  // format 1.7
inline constexpr const char* kConfig = "/config";  // format 1.11: config_text typed

// Column names (datasets inside the groups above).
namespace col {
inline constexpr const char* kTaskId = "task_id";         // uint32
inline constexpr const char* kPointId = "point_id";       // uint32
inline constexpr const char* kExperiment = "experiment";  // uint8: 0 ws, 1 gen
inline constexpr const char* kModel = "model";            // fixed string, kModelLength bytes
inline constexpr const char* kN = "n";                    // int64
inline constexpr const char* kD = "d";
inline constexpr const char* kK = "k";
inline constexpr const char* kNTrain = "N";
inline constexpr const char* kLayers = "layers";
inline constexpr const char* kHeads = "heads";  // int64, format 1.8
inline constexpr const char* kWords = "words";  // int64, format 1.4
inline constexpr const char* kTrial = "trial";  // uint32
inline constexpr const char* kDone = "done";    // uint8 0/1

// Quantities the summary tables summarise and the gen keys they group by (the record columns
// themselves are the schemas of study/record_fields.cpp).
inline constexpr const char* kS = "S";
inline constexpr const char* kSUpper = "S_upper";
inline constexpr const char* kE = "E";
inline constexpr const char* kD1 = "D1";
inline constexpr const char* kTraining = "training";    // uint8: 0 finetune, 1 retrain
inline constexpr const char* kObjective = "objective";  // uint8: 0 loss, 1 align
inline constexpr const char* kPosition = "position";

// /witness arrays table.
inline constexpr const char* kName = "name";  // fixed string, kNameLength bytes
inline constexpr const char* kRows = "rows";
inline constexpr const char* kCols = "cols";
inline constexpr const char* kOffset = "offset";
inline constexpr const char* kValues = "values";

// Summaries: count plus <quantity>_<statistic>.
inline constexpr const char* kCount = "count";  // int64
inline constexpr std::array<const char*, 6> kStatistics = {"mean",   "std", "sem",
                                                           "median", "q05", "q95"};
// /models: one row per model of the task table (format 1.7), its name in kModel.
inline constexpr const char* kAttention = "attention";                           // uint8 0/1
inline constexpr const char* kDeep = "deep";                                     // uint8 0/1
inline constexpr const char* kMarginalSampler = "marginal_sampler";              // uint8 0/1
inline constexpr const char* kMinTotalSphereStarts = "min_total_sphere_starts";  // int64
inline constexpr const char* kMultiHead = "multi_head";  // uint8 0/1; format 1.10 on
inline constexpr const char* kWidth = "width";           // uint8 code (ModelWidth); format 1.10 on
inline constexpr const char* kEncoder = "encoder";       // uint8 0/1; format 1.10 on

// zlib CRC-32 of a record row (row_crc.hpp), uint32; format 1.6 on.
inline constexpr const char* kRowCrc32 = "row_crc32";
}  // namespace col

inline constexpr std::size_t kModelLength = 16;  // bytes of /tasks/model, /summary/*/model
inline constexpr std::size_t kNameLength = 32;   // bytes of /witness/name (NUL padded)

// Configuration keys that legitimately differ between the shards of one job array; merge
// ignores them when comparing config_text and drops them from the output's config_text.
inline constexpr std::array<const char*, 2> kShardKeys = {"shard", "output"};

}  // namespace wordsens::io::schema
