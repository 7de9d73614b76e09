"""Every HDF5 name the reader uses, in one place, mirroring analysis/FORMAT.md.

The C++ writer defines the groups and attributes once in src/io/format/schema.hpp and the record
columns in src/study/record_fields.cpp. The reader does not need a list of columns: it reads
every 1-D dataset of a table (each carries its `unit` and `meaning` attributes), so a column
added by a newer writer appears without a change here. The column tuples below are what the
test fixtures write.
"""

FILETYPE = "wordsens-results"
SUPPORTED_MAJOR = 1  # the reader understands format_version [1, *]
# From format 1.5 on, every dataset has Fletcher-32 checksums, the string attributes are
# fixed-length, the root holds task_table_crc32, and the reader applies every damage rule of
# `wordsens info --check` (damage.py); older files are read without these guarantees.
CHECKED_MINOR = 5
# From format 1.6 on, every row of /ws, /gen and /witness has a checksum (FORMAT.md, "Row
# checksums"): chunks are one page, and a page zeroed with its Fletcher-32 checksum reads back.
ROW_CRC_MINOR = 6
ROW_CRC32 = "row_crc32"
# From format 1.7 on, /models records the traits of the models the task table runs (catalogue.py).
MODELS_MINOR = 7
# From format 1.8 on, /tasks/heads holds H per task (a grid axis of mhraf and block); before, a
# study's multi-head models ran the one `heads` of its configuration text.
HEADS_MINOR = 8
# From format 1.9 on, /tasks/k holds block's MLP width (the mlp-width grid); before, block's k
# was 0 and its MLP BLOCK_WIDTH_FACTOR·d wide.
MLP_WIDTH_MINOR = 9
# From format 1.10 on, /models holds every trait of the writing catalogue's rows (multi_head,
# width, encoder besides the four of 1.7); catalogue.py fills them for older files.
ALL_TRAITS_MINOR = 10
# From format 1.11 on, /config holds config_text's keys typed (stored_config.py).
CONFIG_MINOR = 11
BLOCK_WIDTH_FACTOR = 4

# Attributes of every dataset (format 1.2 on): its unit and a one-line meaning.
ATTR_UNIT = "unit"
ATTR_MEANING = "meaning"

# Root attributes.
ATTR_FILETYPE = "filetype"
ATTR_FORMAT_VERSION = "format_version"
ATTR_CONFIG_TEXT = "config_text"
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
GROUP_MODELS = "models"
GROUP_CONFIG = "config"  # a group of attributes (format 1.11)
MODEL_COLUMNS = ("model", "attention", "deep", "marginal_sampler", "min_total_sphere_starts")
MODEL_COLUMNS_1_10 = ("multi_head", "width", "encoder")  # format 1.10 on

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
JOIN_COLUMNS = ("point_id", "model", "n", "d", "k", "N", "layers", "heads", "words", "trial")

# Integer codes of enumerations stored as numbers (src/study/record_fields.cpp names them).
EXPERIMENTS = {0: "ws", 1: "gen"}
TRAININGS = {0: "finetune", 1: "retrain"}
OBJECTIVES = {0: "loss", 1: "align"}
# What S_upper bounds: nothing, the supremum over all n positions, or over the examined ones.
SCOPES = {0: "none", 1: "all", 2: "examined"}

# ---- Damage rules (damage.py), as src/io/integrity/consistency.cpp and content_checks.cpp apply them ----
# Every dataset and root attribute a writer of format 1.5 creates, by name. The checks open
# each by its name and never list a group's links or attributes: HDF5 1.10 frees pointers it
# never set when it meets damaged link or attribute storage while listing (h5py then dies of
# SIGSEGV or abort), while a lookup by name fails cleanly.
_STATISTICS = ("mean", "std", "sem", "median", "q05", "q95")
_POINT = ("point_id", "model", "n", "d", "k", "N", "layers", "heads", "words")
_WS_RAGGED = ("witness", "examined", "position_S", "argmax_set", "examined_sets", "set_S")
DATASETS = {
    GROUP_TASKS: TASK_COLUMNS + ("words", "heads"),
    GROUP_WS: ("task_id", "S", "S_upper", "S_upper_scope", "cert_rel_err", "argmax_position",
               "phi_norm", "evaluations", "starts", "starts_at_budget", "stationarity",
               "S_budget_check", "seconds", ROW_CRC32)
    + tuple(f"{r}{suffix}" for r in _WS_RAGGED
            for suffix in (RAGGED_OFFSET, RAGGED_LENGTH, RAGGED_VALUES)),
    GROUP_GEN: GEN_COLUMNS + ("cert_rel_err", "witness_values", ROW_CRC32),
    GROUP_WITNESS: WITNESS_COLUMNS + (WITNESS_VALUES, ROW_CRC32),
    GROUP_SUMMARY_WS: _POINT + ("count",)
    + tuple(f"{q}_{s}" for q in ("S", "S_upper") for s in _STATISTICS),
    GROUP_SUMMARY_GEN: _POINT + ("training", "objective", "count")
    + tuple(f"{q}_{s}" for q in ("E", "D1") for s in _STATISTICS),
    GROUP_MODELS: MODEL_COLUMNS + MODEL_COLUMNS_1_10,
}
ROOT_ATTRS = (ATTR_FILETYPE, ATTR_FORMAT_VERSION, *PROVENANCE_ATTRS, "build", "config_hash",
              "save_witness", "input_fingerprints", "merged_from", "task_table_crc32", "builds")
ATTR_TASK_TABLE_CRC32 = "task_table_crc32"
REQUIRED_ROOT_ATTRS = ("software_version", "git_sha", "created_utc", "command_line", "mpi_ranks",
                       "master_seed", "config_text", "config_hash", "save_witness")
# The bytes task_table_crc32 covers after config_text: each column whole, in this order and type
# (heads where the table has it: every writer from format 1.8 on).
TASK_CRC_COLUMNS = {"task_id": "<u4", "point_id": "<u4", "experiment": "u1", "model": "S16",
                    "n": "<i8", "d": "<i8", "k": "<i8", "N": "<i8", "layers": "<i8",
                    "heads": "<i8", "words": "<i8", "trial": "<u4"}
# Record tables: the key no two rows of done tasks share, the rows a done task has ("one",
# "at least one", "any"), and the experiment of their tasks (-1: either).
RECORD_TABLES = {
    GROUP_WS: {"key": ("task_id",), "rows": "one", "experiment": 0},
    GROUP_GEN: {"key": ("task_id", "training", "objective"), "rows": "at least one",
                "experiment": 1},
    GROUP_WITNESS: {"key": ("task_id", "name"), "rows": "any", "experiment": -1},
}
# The values a record column may hold (study/record_fields.cpp's Valid; FORMAT.md "Valid
# values"); for a ragged column <x>, the rule holds for every element of <x>_values.
VALID = {
    GROUP_WS: {
        "S": "nonnegative", "S_upper": "nonnegative_or_nan", "S_upper_scope": "code_0_2",
        "cert_rel_err": "certified", "argmax_position": "position_or_none",
        "phi_norm": "positive", "evaluations": "count", "starts": "count",
        "starts_at_budget": "count", "stationarity": "nonnegative_or_nan",
        "S_budget_check": "nonnegative_or_nan", "seconds": "nonnegative", "witness": "finite",
        "examined": "position", "position_S": "nonnegative", "argmax_set": "position",
        "examined_sets": "position", "set_S": "nonnegative",
    },
    GROUP_GEN: {
        "training": "code_0_1", "objective": "code_0_1", "t0": "finite", "t1": "finite",
        "D0": "finite", "D1": "finite", "E": "nonnegative", "cond_K": "nonnegative_or_nan",
        "cert_rel_err": "certified", "position": "position", "evaluations": "count",
        "seconds": "nonnegative", "witness": "finite",
    },
}
VALID_TEXT = {"finite": "finite", "nonnegative": "finite, >= 0", "positive": "finite, > 0",
              "certified": "0 <= value <= 1e-9",
              "nonnegative_or_nan": ">= 0 or NaN", "code_0_1": "0 or 1", "code_0_2": "0, 1 or 2",
              "count": ">= 0", "position": "0 <= value < n", "position_or_none": "-1 <= value < n"}
# The certification tolerance: a record whose value and its recomputation from scratch differ by
# more (relative) is never written (src/estimators/word_sensitivity.hpp).
CERTIFICATION_TOLERANCE = 1e-9

# The format minor version that added each dataset, table and root attribute that did not exist
# from 1.0 (src/io/format/layout.cpp's since_minor): a file holding one its format_version predates was
# not written by a writer of that version (a newer file relabelled as an older one).
_EVIDENCE = ("S_upper_scope", "cert_rel_err", "starts", "starts_at_budget", "stationarity",
             "S_budget_check")
SINCE_MINOR = {
    "tasks/words": 4, "tasks/heads": 8,
    **{f"ws/{c}": 2 for c in _EVIDENCE},
    **{f"ws/{r}{suffix}": 2 for r in ("examined", "position_S")
       for suffix in (RAGGED_OFFSET, RAGGED_LENGTH, RAGGED_VALUES)},
    **{f"ws/{r}{suffix}": 4 for r in ("argmax_set", "examined_sets", "set_S")
       for suffix in (RAGGED_OFFSET, RAGGED_LENGTH, RAGGED_VALUES)},
    "ws/row_crc32": 6, "gen/cert_rel_err": 2, "gen/row_crc32": 6, "witness/row_crc32": 6,
    "summary/ws/words": 4, "summary/ws/heads": 8, "summary/gen/words": 4, "summary/gen/heads": 8,
    **{f"models/{c}": 7 for c in MODEL_COLUMNS},
    **{f"models/{c}": ALL_TRAITS_MINOR for c in MODEL_COLUMNS_1_10},
}
SINCE_MINOR_TABLES = {GROUP_MODELS: MODELS_MINOR, GROUP_CONFIG: CONFIG_MINOR}
SINCE_MINOR_ATTRS = {"build": 1, "input_fingerprints": 3, "task_table_crc32": 5, "builds": 5}

# The invariants of a record (FORMAT.md "Invariants of a record"; src/study/record_invariants.cpp
# states them, tests/python/test_record_invariants.py compares this list with FORMAT.md): id,
# table, what every record of a done task holds. damage.check_invariants checks them.
RECORD_INVARIANTS = (
    ("upper_bound_and_scope", "/ws", "S_upper is NaN where S_upper_scope is 0 (no bound) and "
     "finite where it is 1 or 2"),
    ("scope_of_the_search", "/ws", "S_upper_scope is 1 (every position) only with one changed "
     "word; 2 with one changed word only under rf-sampling = marginal, with fewer examined "
     "positions than n; 0 wherever config_text says upper-bound = false"),
    ("starts", "/ws", "starts >= 1 and starts_at_budget <= starts"),
    ("one_word_positions", "/ws", "one changed word: examined holds at least one position, "
     "strictly ascending, and position_S one value per examined position; argmax_set is "
     "{argmax_position}; examined_sets and set_S are empty"),
    ("one_word_best", "/ws", "one changed word: argmax_position is an examined position, "
     "position_S there equals S, and no position_S exceeds S (by more than 1e-12 relative: each "
     "position divides by its own evaluation of ‖φ(X)‖)"),
    ("several_words_sets", "/ws", "m >= 2 changed words: argmax_position is -1, examined and "
     "position_S are empty, stationarity and S_budget_check NaN; argmax_set holds m distinct "
     "positions, set_S at least one value, examined_sets m distinct positions per value of set_S"),
    ("several_words_best", "/ws", "m >= 2 changed words: S is the largest set_S, and argmax_set "
     "is an examined set whose set_S equals S"),
    ("witness_length", "/ws, /gen", "witness_length is m·d (/gen: d) when the root attribute "
     "save_witness is 1, and 0 when it is 0"),
    ("gen_rows", "/gen", "a done task has one row per training mode and Δ objective of "
     "config_text's training and objective keys, each pair once"),
    ("gen_seconds", "/gen", "the rows of one task hold the same seconds (its wall time)"),
)
# How far a position's S may exceed the record's S (one_word_best).
POSITION_TOLERANCE = 1e-12
