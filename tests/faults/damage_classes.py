#!/usr/bin/python3
"""One case per kind of damage a hostile probe found: a damaged file is refused, fast, with one
line, by every reader (wordsens info, info --check, a resume, merge, the analysis reader and
wordsens-report), and no reader hangs, spins or dies of a signal.

usage: damage_classes.py WORDSENS CASE
"""
import os
import shutil
import signal
import subprocess
import sys
import time

from faults_lib import DAMAGED, PY, check, digest, flip_byte, h5py_edit, main

ANALYSIS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "analysis")
BOUND = 10  # seconds: every command gives up within this on a damaged file


def _clean(case):
    config = case.small_config()
    good, reference = case.reference(config)
    return config, good, reference


REPORT_BOUND = 60  # wordsens-report: its start-up (pandas, matplotlib) on a loaded machine


def read_with_python(paths):
    """The analysis reader (read_results, what wordsens-report runs) on each path, in one
    process: [(exit code the report would give: 0, 1 damaged, 2 other; message; seconds)]."""
    code = ("import sys, time, warnings\n"
            f"sys.path.insert(0, {ANALYSIS!r})\n"
            "warnings.simplefilter('ignore')\n"
            "from wordsens_analysis.reader import read_results, ResultsFileError, DamagedFileError\n"
            "for p in sys.argv[1:]:\n"
            "    t, rc, text = time.monotonic(), 0, ''\n"
            "    try:\n"
            "        read_results(p)\n"
            "    except ResultsFileError as e:\n"
            "        rc, text = (1 if isinstance(e, DamagedFileError) else 2), str(e)\n"
            "    print(rc, time.monotonic() - t, text.replace(chr(10), ' '), flush=True)\n")
    p = subprocess.run([PY, "-c", code, *paths], capture_output=True, text=True,
                       timeout=60 + len(paths) * BOUND)
    check(p.returncode == 0, f"the reader died: {p.returncode} {p.stderr[-2000:]}")
    answers = []
    for line in p.stdout.splitlines():
        rc, seconds, *text = line.split(" ", 2)
        answers.append((int(rc), text[0] if text else "", float(seconds)))
    check(len(answers) == len(paths), f"{len(answers)} of {len(paths)} read:\n{p.stdout}")
    return answers


def _python_refuses(paths, words=""):
    for path, (rc, text, seconds) in zip(paths, read_with_python(paths)):
        check(rc == 1 and DAMAGED in text and words in text and path in text,
              f"read_results on {path}: exit {rc}, {text!r} (wanted '{words}')")
        check(seconds < BOUND, f"read_results on {path} took {seconds:.1f} s")


def _refused_by_all(case, config, path, words="", report=True):
    """info, --check, resume, merge (and the report): exit 1, one line, within BOUND, untouched."""
    before = digest(path)
    for args in (["info", path], ["run", config, "--output", path, "--progress", "60"],
                 ["merge", path, "-o", case.path("merged.h5")]):
        res = case.ws(*args)
        case.expect_error(res, 1, DAMAGED, words)
        check(res.seconds < BOUND, f"{args[0]} took {res.seconds:.1f} s\n{res}")
    check(not os.path.exists(case.path("merged.h5")), "merge wrote an output")
    res = case.ws("info", "--check", path)
    check(res.rc == 1 and "verdict:  DAMAGED" in res.out and words in res.out,
          f"info --check does not list '{words}'\n{res}")
    if report:
        res = case.report(path)
        case.expect_error(res, 1, DAMAGED, words)
        check(res.seconds < REPORT_BOUND, f"the report took {res.seconds:.1f} s\n{res}")
    check(digest(path) == before, "a reader changed the file")


def _chunk_offset(path, dataset):
    """The file offset of the first chunk of a dataset (its raw bytes)."""
    code = ("import h5py, sys\n"
            f"with h5py.File({path!r}, 'r') as f:\n"
            f"    print(f[{dataset!r}].id.get_chunk_info(0).byte_offset)\n")
    p = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=30)
    check(p.returncode == 0, f"no chunk offset for {dataset}: {p.stderr}")
    return int(p.stdout)


def resume_of_damaged_metadata(case):
    """A: a resume of a file with damaged metadata, a cut copy or a zeroed block gives up with one
    line (it slept in HDF5's metadata retry for ever, deaf to TERM); TERM during one ends it."""
    config, good, reference = _clean(case)
    size = os.path.getsize(good)
    damaged, cuts = [], []
    for offset in range(4096, size, size // 60):
        path = case.path(f"flip_{offset}.h5")
        flip_byte(good, path, offset)
        if case.ws("info", path).rc == 1:
            damaged.append(path)
    for cut in (size // 3, size // 2, size - 4096):
        path = case.path(f"cut_{cut}.h5")
        shutil.copyfile(good, path)
        os.truncate(path, cut)
        cuts.append(path)
    check(len(damaged) >= 10, f"only {len(damaged)} damaged copies")
    for path in damaged + cuts:
        res = case.ws("run", config, "--output", path, "--progress", "60")
        check(res.seconds < BOUND, f"resume of {path} took {res.seconds:.1f} s\n{res}")
        if path in cuts and res.rc == 0:
            # A resume extends a cut file with zeros and checks it: a cut through the summaries
            # alone (rewritten by every run) leaves every record, so it may complete the file,
            # but only with the records of the clean run.
            case.same_records(path, reference)
        else:
            case.expect_error(res, 1, DAMAGED)
    # TERM at once and after 0.5 s: the resume ends within seconds (it ignored TERM while it
    # slept in HDF5's metadata retries).
    for delay in (0.05, 0.5):
        path = case.path("term.h5")
        shutil.copyfile(damaged[0], path)
        p = subprocess.Popen([case.wordsens, "run", config, "--output", path, "--progress", "60"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(delay)
        p.send_signal(signal.SIGTERM)
        try:
            code = p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            raise AssertionError(f"TERM after {delay} s did not end a resume of a damaged file")
        # 4: interrupted; 1: refused before the TERM; -15: the TERM came before the process had
        # installed its handlers (its first milliseconds): ended by TERM all the same.
        check(code in (1, 4, -signal.SIGTERM), f"TERM after {delay} s: exit {code}")
    print(f"{len(damaged)} damaged copies refused by resume within {BOUND} s")


def global_heap(case):
    """B: the string attributes live in the checksummed object header, not in HDF5's global heap
    (no checksum; a damaged entry there killed info, resume and the report with SIGSEGV, and a
    zeroed collection spun them at 100 % CPU): a new file has no global heap. A file whose
    strings are variable-length (before format 1.5) has its heap checked before any string is
    read: flips and a zeroed stretch there never kill or hang a reader."""
    config, good, _ = _clean(case)
    with open(good, "rb") as f:
        check(f.read().find(b"GCOL") < 0, "a global heap: string attributes are variable-length")
    old = case.path("old.h5")
    shutil.copyfile(good, old)
    h5py_edit(old, "\n".join([
        "for k in list(f.attrs):",
        "    v = f.attrs[k]",
        "    if isinstance(v, bytes):",
        "        f.attrs[k] = v.decode()",  # h5py writes a str as a variable-length string
        "f.attrs['format_version'] = np.array([1, 4], dtype=np.int32)"]))
    with open(old, "rb") as f:
        heap = f.read().find(b"GCOL")
    check(heap > 0, "h5py wrote no global heap")
    damaged = []
    for delta in (8, 9, 16, 17, 24, 25, 26, 31, 40, 41, 48, 100, 300, 1000):
        damaged.append(case.path(f"heap_{delta}.h5"))
        flip_byte(old, damaged[-1], heap + delta)
    damaged.append(case.path("heap_zeroed.h5"))
    shutil.copyfile(old, damaged[-1])
    with open(damaged[-1], "r+b") as f:
        f.seek(heap + 16 + 40)
        f.write(bytes(4096))
    refused = 0
    for path in damaged:
        for args in (["info", path], ["info", "--check", path]):
            res = case.ws(*args)
            check(res.rc in (0, 1) and res.seconds < BOUND and "Signal" not in res.err,
                  f"{args}: exit {res.rc} after {res.seconds:.1f} s\n{res}")
            refused += res.rc == 1
    for path, (rc, text, seconds) in zip(damaged, read_with_python(damaged)):
        check(rc in (0, 1) and seconds < BOUND, f"read_results on {path}: {rc} {text}")
    res = case.report(damaged[5])  # the size of the first string, as the probe flipped it
    case.expect_error(res, 1, DAMAGED, "global heap")
    print(f"{len(damaged)} damaged global heaps: no crash, {refused} refusals of info/--check")


def report_refuses_what_info_refuses(case):
    """C: wordsens-report refuses (exit 1, one line) every table damage info refuses; it printed
    "integrity checks: all pass" on most of them."""
    import damaged_files
    _, good, _ = _clean(case)
    paths = []
    for name, code, _ in damaged_files.DAMAGES:
        paths.append(case.path(f"{name}.h5"))
        shutil.copyfile(good, paths[-1])
        h5py_edit(paths[-1], code)
        check(case.ws("info", paths[-1]).rc == 1, f"{name}: info accepts it")
    _python_refuses(paths)
    for path in paths[:2]:
        res = case.report(path)
        case.expect_error(res, 1, DAMAGED, path)
    print(f"the analysis reader refuses all {len(paths)} table damages info refuses")


def check_agrees_with_info(case):
    """D: `info --check` and `info` agree on every flipped copy (--check said "consistent" where
    info could not read a column: it did not read every column it promises to check)."""
    _, good, _ = _clean(case)
    size = os.path.getsize(good)
    disagree = []
    refused = 0
    for offset in range(0, size, size // 150):
        path = case.path("flip.h5")
        flip_byte(good, path, offset)
        try:
            info, full = case.ws("info", path), case.ws("info", "--check", path)
        except AssertionError as e:
            raise AssertionError(f"flip at {offset}: {e}") from None
        refused += info.rc == 1
        if info.rc != full.rc:
            disagree.append(f"{offset}: info {info.rc}, --check {full.rc}")
    check(not disagree, f"{len(disagree)} disagreements: {disagree[:5]}")
    print(f"info and --check agree on 150 flips ({refused} refused)")


# (name, h5py edit of /tasks, what the diagnosis names) — every column of the task table.
TASK_EDITS = [
    ("n", "f['tasks/n'][0] = 6"),
    ("model", "f['tasks/model'][0] = b'raf'"),
    ("k", "f['tasks/k'][1] = 7"),
    ("N", "f['tasks/N'][-1] = 9"),
    ("d", "f['tasks/d'][2] = 4"),
    ("layers", "f['tasks/layers'][3] = 3"),
    ("heads", "f['tasks/heads'][0] = 2"),
    ("words", "f['tasks/words'][0] = 2"),
    ("trial", "f['tasks/trial'][0] = 1\nf['tasks/trial'][1] = 0"),
    ("point_id", "f['tasks/point_id'][0] = 5"),
    ("experiment", "f['tasks/experiment'][0] = 1\nf['tasks/experiment'][-1] = 0"),
]


def task_table_against_plan(case):
    """E: a task table edited after the run (any column) is refused by every reader: it filed a
    record under another grid point and the report said "all pass". With its checksum rewritten
    to match, the C++ readers still refuse it (they re-plan config_text)."""
    config, good, _ = _clean(case)
    paths = []
    for column, code in TASK_EDITS:
        paths.append(case.path(f"tasks_{column}.h5"))
        shutil.copyfile(good, paths[-1])
        h5py_edit(paths[-1], code)
        _refused_by_all(case, config, paths[-1], report=column == "n")
        print(f"/tasks/{column} edited: refused by every reader")
    _python_refuses(paths, "task_table_crc32")
    # A model name this wordsens does not know (damage, or a newer writer's model) is named.
    path = case.path("tasks_model_unknown.h5")
    shutil.copyfile(good, path)
    h5py_edit(path, "f['tasks/model'][0] = b'bert'")
    _refused_by_all(case, config, path, "row 0 names an unknown model 'bert'", report=False)
    print("/tasks/model naming an unknown model: refused by every reader, the name given")
    path = case.path("tasks_rehashed.h5")
    shutil.copyfile(good, path)
    h5py_edit(path, "\n".join([
        "import zlib",
        "f['tasks/n'][0] = 6",
        "t = f['tasks']",
        "crc = zlib.crc32(f.attrs['config_text'])",
        "for c, dt in (('task_id', '<u4'), ('point_id', '<u4'), ('experiment', 'u1'),",
        "              ('model', 'S16'), ('n', '<i8'), ('d', '<i8'), ('k', '<i8'), ('N', '<i8'),",
        "              ('layers', '<i8'), ('heads', '<i8'), ('words', '<i8'), ('trial', '<u4')):",
        "    crc = zlib.crc32(t[c][:].astype(dt).tobytes(), crc)",
        "f.attrs.modify('task_table_crc32', np.int64(crc))"]))
    _refused_by_all(case, config, path, "differs from the plan of config_text", report=False)
    print("/tasks/n edited with its checksum rewritten: the C++ readers refuse it (re-plan)")


# (dataset whose first chunk gets one flipped byte)
RECORD_COLUMNS = ["ws/S", "ws/S_upper", "ws/cert_rel_err", "ws/evaluations", "ws/starts",
                  "ws/S_upper_scope", "ws/position_S_values", "ws/position_S_offset",
                  "gen/evaluations", "gen/t1", "gen/E", "gen/task_id", "gen/objective",
                  "tasks/point_id", "tasks/layers", "tasks/done", "summary/ws/S_mean"]


def flipped_record_bytes(case):
    """F: one flipped byte in the values of any dataset (records, task table, summaries) is
    refused by every reader, naming the dataset and its rows; HDF5 did not check raw data, so
    every command accepted it and resumed or merged other numbers."""
    config, good, _ = _clean(case)
    for dataset in RECORD_COLUMNS:
        path = case.path(dataset.replace("/", "_") + ".h5")
        flip_byte(good, path, _chunk_offset(good, dataset) + 5)
        _refused_by_all(case, config, path, "/" + dataset, report=dataset == "ws/S")
        res = case.ws("info", path)
        check(" rows 0-" in res.err, f"{dataset}: the error names no rows\n{res}")
        _python_refuses([path], "/" + dataset)
        check("rows 0-" in read_with_python([path])[0][1], f"{dataset}: Python names no rows")
        print(f"/{dataset}: a flipped byte is refused, rows named")


# (name, h5py edit, what the diagnosis names)
IMPOSSIBLE = [
    ("S_nan", "f['ws/S'][0] = np.nan", "/ws/S holds values outside"),
    ("S_negative", "f['ws/S'][1] = -1", "/ws/S holds values outside"),
    ("E_negative", "f['gen/E'][0] = -3", "/gen/E holds values outside"),
    ("scope_253", "f['ws/S_upper_scope'][0] = 253", "/ws/S_upper_scope holds values outside"),
    ("objective_254", "f['gen/objective'][0] = 254", "/gen/objective holds values outside"),
    ("position_n", "f['gen/position'][0] = 99", "/gen/position holds values outside"),
    ("evaluations_negative", "f['ws/evaluations'][0] = -5", "/ws/evaluations holds values"),
    ("examined_outside", "v = f['ws/examined_values']; v[0] = 1000",
     "/ws/examined_values holds values outside"),
    ("t1_inf", "f['gen/t1'][2] = np.inf", "/gen/t1 holds values outside"),
]


def impossible_values(case):
    """G: a value no run writes (S NaN or negative, E negative, codes out of range, a position
    past n, ...) is damage for every reader; the report said "integrity checks: all pass"."""
    config, good, _ = _clean(case)
    for name, code, words in IMPOSSIBLE:
        path = case.path(f"{name}.h5")
        shutil.copyfile(good, path)
        h5py_edit(path, code)
        _refused_by_all(case, config, path, words, report=name == "S_nan")
        _python_refuses([path], words)
        print(f"{name}: refused ({words})")


# (name, study, h5py edit with every checksum recomputed (craft.py), what the diagnosis names):
# one case at least per invariant of a record (FORMAT.md "Invariants of a record") and per value
# rule it relies on, each the edit of a hostile probe. `clean` is SMALL_INI's study (ws and gen,
# rf and raf, one changed word), `words` one of two changed words (rf, two random word sets).
WS_ONE = "r = int(np.flatnonzero(f['ws/S_upper_scope'][:] == 1)[0])\n"  # an rf row, bound 1
CRAFTED = [
    ("S_times_3", "clean", "v = f['ws/S'][:]; v *= 3; f['ws/S'][:] = v",
     "invariant one_word_best"),
    ("position_S_times_10", "clean",
     "v = f['ws/position_S_values'][:]; f['ws/position_S_values'][:] = v * 10",
     "invariant one_word_best"),
    ("argmax_minus_one", "clean", "f['ws/argmax_position'][0] = -1", "invariant one_word_positions"),
    ("examined_out_of_order", "clean",
     "o = int(f['ws/examined_offset'][0]); v = f['ws/examined_values'][:]\n"
     "v[o], v[o + 1] = v[o + 1], v[o]; f['ws/examined_values'][:] = v",
     "invariant one_word_positions"),
    ("S_upper_nan_in_scope", "clean", WS_ONE + "f['ws/S_upper'][r] = np.nan",
     "invariant upper_bound_and_scope"),
    ("scope_2_full_sampler", "clean", WS_ONE + "f['ws/S_upper_scope'][r] = 2",
     "invariant scope_of_the_search"),
    ("phi_norm_zero", "clean", "f['ws/phi_norm'][0] = 0", "/ws/phi_norm holds values outside"),
    ("starts_at_budget_above_starts", "clean",
     "f['ws/starts_at_budget'][0] = f['ws/starts'][0] + 1", "invariant starts"),
    ("cert_rel_err_half", "clean", "f['gen/cert_rel_err'][0] = 0.5",
     "/gen/cert_rel_err holds values outside"),
    ("gen_row_dropped", "clean",
     "for c in f['gen']:\n"
     "    if not c.endswith('values'): f['gen'][c].resize((f['gen'][c].shape[0] - 1,))",
     "invariant gen_rows"),
    ("gen_seconds_differ", "clean", "f['gen/seconds'][1] = f['gen/seconds'][1] + 1",
     "invariant gen_seconds"),
    ("save_witness_claimed", "clean", "f.attrs['save_witness'] = np.int64(1)",
     "/ws records break the invariant witness_length"),
    ("several_S_times_2", "words", "f['ws/S'][0] = f['ws/S'][0] * 2",
     "invariant several_words_best"),
    ("several_argmax_position", "words", "f['ws/argmax_position'][0] = 0",
     "invariant several_words_sets"),
    ("several_scope_1", "words", "f['ws/S_upper_scope'][0] = 1", "invariant scope_of_the_search"),
    # Relabelled as an older format, whose readers had fewer rules (the report read a 1.4 file
    # without any check): the datasets of the newer format give it away.
    ("relabelled_1_4_negative_S", "clean",
     "f.attrs['format_version'] = np.array([1, 4], dtype=np.int32); f['ws/S'][0] = -1",
     "format_version 1.4, but it holds"),
    ("relabelled_1_6", "clean", "f.attrs['format_version'] = np.array([1, 6], dtype=np.int32)",
     "format_version 1.6, but it holds"),
]


def record_invariants(case):
    """K: a record edited consistently with every checksum (the probe's craft_lib) is refused by
    every reader when it breaks an invariant between its fields: S above or below its positions'
    best, argmax_position -1 on one word, a bound without its scope, scope 2 under the full
    sampler, phi_norm 0, more starts at the budget than starts, a gen task short of a row, a file
    relabelled as an older format. Each was read as good by info, --check and the report."""
    from craft import craft
    config, clean, _ = _clean(case)
    words_config = case.small_config("words.ini", experiments="ws", models="rf", words=2,
                                     word_sets="random:2")
    words, _ = case.reference(words_config, "words.h5")
    studies = {"clean": (config, clean), "words": (words_config, words)}
    for path in (clean, words):
        res = case.ws("info", "--check", path)
        check(res.rc == 0 and "consistent" in res.out, f"a clean file is not consistent\n{res}")
    paths = []
    for name, study, code, named in CRAFTED:
        study_config, source = studies[study]
        paths.append(craft(source, case.path(f"{name}.h5"), code))
        _refused_by_all(case, study_config, paths[-1], named, report=name in (
            "S_times_3", "several_S_times_2", "relabelled_1_4_negative_S"))
        print(f"{name}: refused by info, --check, resume, merge ({named})")
    _python_refuses(paths)
    for path, (_, _, _, named) in zip(paths, CRAFTED):
        _python_refuses([path], named)
    print(f"the analysis reader refuses all {len(paths)} crafted files, naming the rule")


def report_gives_up_fast(case):
    """J: the analysis reader gives up within seconds on damaged metadata (the report needed 44 s
    on one flip): every flipped copy of the first 64 KB is read or refused within the bound."""
    _, good, _ = _clean(case)
    offsets = list(range(0, 65536, 512))
    paths = []
    for offset in offsets:
        paths.append(case.path(f"m{offset}.h5"))
        flip_byte(good, paths[-1], offset)
    answers = read_with_python(paths)
    times = [(path, seconds) for path, (_, _, seconds) in zip(paths, answers)]
    slow = [(path, t) for path, t in times if t > BOUND / 2]
    check(not slow, f"slow: {slow[:5]}")
    worst = max(times, key=lambda x: x[1])
    res = case.report(worst[0])
    check(res.seconds < REPORT_BOUND and "Traceback" not in res.err, f"report\n{res}")
    print(f"{len(paths)} flipped copies read or refused, slowest {worst[1]:.2f} s")


CASES = {f.__name__: f for f in (resume_of_damaged_metadata, global_heap,
                                 report_refuses_what_info_refuses, check_agrees_with_info,
                                 task_table_against_plan, flipped_record_bytes, impossible_values,
                                 record_invariants, report_gives_up_fast)}

if __name__ == "__main__":
    sys.exit(main(CASES))
