"""Every HDF5 name the reader uses, in one place, mirroring analysis/FORMAT.md.

The C++ writer defines the groups and attributes once in src/io/schema.hpp and the record
columns in src/study/record_fields.cpp. The reader does not need a list of columns: it reads
every 1-D dataset of a table (each carries its `unit` and `meaning` attributes), so a column
added by a newer writer appears without a change here. The column tuples below are what the
test fixtures write.
"""

FILETYPE = "wordsens-results"
SUPPORTED_MAJOR = 1  # the reader understands format_version [1, *]

# Root attributes.
ATTR_FILETYPE = "filetype"
ATTR_FORMAT_VERSION = "format_version"
PROVENANCE_ATTRS = (
    "software_version",
    "git_sha",
    "created_utc",
    "command_line",
    "mpi_ranks",
    "master_seed",
    "config_text",
)

# Groups: one 1-D dataset per column, all columns of a group have the same length.
GROUP_TASKS = "tasks"
GROUP_WS = "ws"
GROUP_GEN = "gen"
GROUP_WITNESS = "witness"
GROUP_SUMMARY = "summary"
GROUP_SUMMARY_WS = "summary/ws"
GROUP_SUMMARY_GEN = "summary/gen"

TASK_COLUMNS = ("task_id", "point_id", "experiment", "model", "n", "d", "k", "N", "layers",
                "trial", "done")
WS_COLUMNS = ("task_id", "S", "S_upper", "argmax_position", "phi_norm", "evaluations", "seconds",
              "witness_offset", "witness_length")
GEN_COLUMNS = (
    "task_id", "training", "objective", "t0", "t1", "D0", "D1", "E", "cond_K", "position",
    "evaluations", "seconds", "witness_offset", "witness_length",
)
# Format 1.2 adds these /ws columns (older files lack them: treat them as "not in this file").
WS_EVIDENCE_COLUMNS = ("S_upper_scope", "cert_rel_err", "starts", "starts_at_budget",
                       "stationarity", "S_budget_check")
DONE = "done"

# Flat value arrays live next to the columns but are not columns (their own length): a dataset
# named "values" or "<x>_values". A ragged column <x> of a table is the row columns
# <x>_offset, <x>_length into <x>_values; the reader adds <x> as a column of numpy arrays.
VALUES_SUFFIX = "values"
RAGGED_OFFSET, RAGGED_LENGTH, RAGGED_VALUES = "_offset", "_length", "_values"
RECORD_WITNESS_VALUES = "witness_values"  # Δ* of record r: [witness_offset, +witness_length)

# /witness: a table of named arrays (one row per array) over the flat dataset `values`.
WITNESS_COLUMNS = ("task_id", "name", "position", "rows", "cols", "offset")
WITNESS_VALUES = "values"
WITNESS_DELTA = "delta"  # 1 × d, position = i*
WITNESS_DELTA_WORDS = "delta_words"  # m × d: the moves of the words of argmax_set (format 1.4)
WITNESS_X = "X"          # the sample, n × d (rows already rescaled to norm √d)
WITNESS_W = "W"          # attention weights, d × d

# Task columns joined onto the record tables (ws, gen).
JOIN_COLUMNS = ("point_id", "model", "n", "d", "k", "N", "layers", "words", "trial")

# Integer codes of enumerations stored as numbers (src/study/record_fields.cpp names them).
EXPERIMENTS = {0: "ws", 1: "gen"}
TRAININGS = {0: "finetune", 1: "retrain"}
OBJECTIVES = {0: "loss", 1: "align"}
# What S_upper bounds: nothing, the supremum over all n positions, or over the examined ones.
SCOPES = {0: "none", 1: "all", 2: "examined"}
