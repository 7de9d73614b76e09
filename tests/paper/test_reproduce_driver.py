"""The steps of the reproduce-the-paper driver (jobs/reproduce/), without the binary: its command
line and refusals, the studies it selects, the options of every run (first batch, a look's
extension, --tiny), the files it writes and the report reads, a --next-batch line as a run, the
--dry-run table's arithmetic, and the lock that refuses a second run. The driver end to end is
test_reproduce_paper.py's and test_pipeline_reliability.py's."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "jobs"))

from reproduce import plans, processes, studies  # noqa: E402
from reproduce.options import HelpAsked, Refused, parse  # noqa: E402

ALL = [s[0] for s in studies.STUDIES]


def options(*argv, installed=False, environ=None):
    return parse([str(a) for a in argv], "/base", installed, environ or {})


# ------------------------------------------------------------------------------ command line
@pytest.mark.parametrize("argv,message", [
    (["--trials", "0"], "--trials must be a positive integer"),
    (["--trials=07"], "--trials must be a positive integer"),
    (["--max-trials", "x"], "--max-trials must be a positive integer"),
    (["--judge-look", "2"], "--judge-look takes a look number and --slurm"),
    (["--slurm", "--judge-look", "0"], "--judge-look takes a look number and --slurm"),
    (["--ranks", "-1"], "--ranks must be a positive integer"),
    (["--slurm-hours", "1h"], "--slurm-hours must be a number"),
    (["--shards", "0"], "--shards must be a positive integer"),
    (["--seed", "4294967296"], "--seed must be an integer in 0 … 4294967295"),
    (["--seed", "-1"], "--seed must be an integer in 0 … 4294967295"),
    (["--results", ""], "--results needs a directory"),
    (["--report="], "--report needs a directory"),
    (["--results", "a\nb"], "--results: a path with a control character"),
    (["--report", "a\x7fb"], "--report: a path with a control character"),
    (["--report", "a\u0085b"], "--report: a path with a control character"),  # C1 too
    (["--trials"], "--trials needs a value"),
    (["--bogus", "--help"], "unknown argument '--bogus' (see --help)"),
    (["--tiny", "--seed", "3", "--update-doc"],
     "not with --tiny --seed (the report directory gets results.md)"),
])
def test_a_bad_command_line_is_refused_with_one_line_naming_it(argv, message):
    with pytest.raises(Refused) as e:
        options(*argv)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_update_doc_is_refused_from_an_installed_copy():
    with pytest.raises(Refused, match="not with an installed copy"):
        options("--update-doc", installed=True)
    assert options("--update-doc").update_doc


def test_help_is_answered_where_it_comes_and_a_value_named_like_an_option_is_a_value():
    with pytest.raises(HelpAsked):
        options("--help", "--bogus")
    assert options("--results", "--help").results == "/base/--help"


def test_values_both_spellings_paths_made_absolute_and_the_judge_steps_arguments():
    o = options("--trials=3", "--only", "regime_map", "--results", "r", "--report=/abs/p",
                "--slurm", "--judge-look", "2", "--judge-look=5")
    assert (o.trials, o.only, o.results, o.report) == ("3", "regime_map", "/base/r", "/abs/p")
    assert o.judge_look == "5"
    # what a judge step runs again: this invocation without its look, with absolute paths
    assert o.judge_arguments == ["--trials=3", "--only", "regime_map", "--results", "r",
                                 "--report=/abs/p", "--slurm", "--results", "/base/r",
                                 "--report", "/abs/p"]


def test_ranks_default_to_two_here_and_to_the_clusters_setting_under_slurm():
    assert options().ranks == "2"
    assert options("--slurm").ranks == "4"
    assert options("--slurm", environ={"WORDSENS_SLURM_RANKS": "16"}).ranks == "16"
    assert options("--slurm", "--ranks", 3, environ={"WORDSENS_SLURM_RANKS": "16"}).ranks == "3"


# ------------------------------------------------------------------------------ studies
def names(selected):
    return [s.name for s in selected]


def test_every_study_by_default_in_the_papers_order_and_another_file_on_a_cluster():
    assert names(studies.select(options())) == ALL
    on_cluster = studies.select(options("--slurm"))
    assert names(on_cluster) == [n if n != "paper_glove_brown" else "glove_brown" for n in ALL]
    assert on_cluster[5].config == "jobs/configs/glove_brown.ini"


@pytest.mark.parametrize("only,slurm,expected", [
    ("multiword,regime_map", False, ["regime_map", "multiword"]),
    ("paper_glove_brown", True, ["glove_brown"]),  # the paper's name reaches the cluster's
    ("glove_brown", True, ["glove_brown"]),
    ("regime_map,", False, ["regime_map"]),        # a trailing comma ends the list
])
def test_only_selects_by_either_name(only, slurm, expected):
    argv = ["--only", only] + (["--slurm"] if slurm else [])
    assert names(studies.select(options(*argv))) == expected


@pytest.mark.parametrize("only,unknown", [("nosuch", "nosuch"), (",", ""),
                                          ("regime_map,,x", "")])
def test_an_unknown_study_is_refused_with_the_list_of_studies(only, unknown):
    with pytest.raises(Refused) as e:
        studies.select(options("--only", only))
    assert f"no study named '{unknown}' (studies: {' '.join(ALL)})" in str(e.value)


def test_update_doc_is_refused_for_a_subset():
    with pytest.raises(Refused, match="not with a subset --only"):
        studies.select(options("--only", "regime_map", "--update-doc"))


# ------------------------------------------------------------------------------ runs
@pytest.mark.parametrize("argv,first,extension", [
    ([], [], []),
    (["--trials", 3, "--seed", 0], ["--trials=3", "--seed=0"], ["--seed=0"]),
    (["--max-trials", 8], ["--max-trials=8"], []),
    (["--tiny"], ["--max-evals=20", "--progress=600", "--n=4,8", "--d=4,8,16", "--trials=1",
                  "--max-trials=1"], ["--max-evals=20", "--progress=600", "--n=4,8",
                                      "--d=4,8,16"]),
    (["--tiny", "--trials", 2, "--max-trials", 4],
     ["--trials=2", "--max-evals=20", "--progress=600", "--n=4,8", "--d=4,8,16",
      "--max-trials=4"], ["--max-evals=20", "--progress=600", "--n=4,8", "--d=4,8,16"]),
    (["--tiny", "--trials", 5], ["--trials=5", "--max-evals=20", "--progress=600", "--n=4,8",
                                 "--d=4,8,16", "--max-trials=5"],
     ["--max-evals=20", "--progress=600", "--n=4,8", "--d=4,8,16"]),
])
def test_the_options_of_a_first_batch_and_of_an_extension(argv, first, extension):
    o = options(*argv)
    runs = studies.Runs(o, studies.select(o))
    assert runs.options("regime_map") == first
    assert runs.options("regime_map", extension=True) == extension


def test_tiny_runs_of_the_real_text_studies_read_the_fixtures():
    runs = studies.Runs(options("--tiny"), [])
    assert f"--data=embeddings:{studies.TINY_EMBEDDINGS}" in runs.options("glove_brown")
    assert f"--data=embeddings:{studies.TINY_WHOLE_EMBEDDINGS}" in runs.options(
        "paper_minilm_brown_l6")


def test_files_of_a_study_its_looks_and_replicates_found_under_any_name(tmp_path):
    res = tmp_path / "r e*s$x[1]"   # names are data: no pattern
    res.mkdir()
    decoy = tmp_path / "r e_s$x1"  # what the name would match as a pattern
    decoy.mkdir()
    for f in ("regime_map.h5", "regime_map.look-2-trials-1-2.h5", "regime_map.seed-7.h5",
              "regime_map.look-3-trials-2-4.h5", "multiword.h5", "regime_mapx.h5"):
        (res / f).write_text("")
        (decoy / f).write_text("")
    (res / "regime_map.look-4-trials-4-8.h5").mkdir()  # not a file
    o = options("--only", "regime_map,paper_ws", "--results", res)
    runs = studies.Runs(o, studies.select(o))
    got = [os.path.basename(f) for f in runs.report_files()]
    assert got == ["paper_ws.h5", "regime_map.h5", "regime_map.look-2-trials-1-2.h5",
                   "regime_map.look-3-trials-2-4.h5", "regime_map.seed-7.h5"]
    assert all(os.path.dirname(f) == str(res) for f in runs.report_files())
    up_to_2 = [os.path.basename(f) for f in runs.files_up_to(2)]
    assert up_to_2 == ["regime_map.h5", "regime_map.look-2-trials-1-2.h5",
                       "regime_map.seed-7.h5"]  # existing files only
    seeded = studies.Runs(options("--seed", 7, "--results", res), [])
    assert seeded.output("multiword") == f"{res}/multiword.seed-7.h5"
    assert seeded.extension_output("multiword", 3, 10, 10) == \
        f"{res}/multiword.seed-7.look-3-trials-10-20.h5"


def test_a_next_batch_line_is_the_run_of_the_look_that_makes_it():
    o = options("--tiny", "--trials", 2, "--max-trials", 8, "--only", "regime_map",
                "--results", "/r")
    runs = studies.Runs(o, studies.select(o))
    x = runs.extension(3, "regime_map\t4\t4\t8\tmodel:raf,n:4;model:raf,n:8\tthm3_raf, x\n")
    assert (x.name, x.first, x.count, x.cap, x.open) == ("regime_map", 4, 4, "8", "thm3_raf, x")
    assert x.config == "jobs/configs/regime_map.ini"
    assert x.output == "/r/regime_map.look-3-trials-4-8.h5"
    assert x.options == ["--max-evals=20", "--progress=600", "--n=4,8", "--d=4,8,16",
                         "--first-trial=4", "--trials=4", "--max-trials=8",
                         "--select=model:raf,n:4;model:raf,n:8"]
    assert runs.extension(2, "multiword\t2\t2\t4\tall\tc").config == ""  # not selected
    assert studies.batch_lines("a\n\n\t\nb\n") == ["a", "b"]


# ------------------------------------------------------------------------------ dry-run table
def test_durations_and_the_scripts_that_build_texts():
    assert [plans.hms(s) for s in (0, 59.9, 60, 3599, 3600, 3660, 90061)] == [
        "0s", "59s", "1m00s", "59m59s", "1h00m", "1h01m", "25h01m"]
    assert plans.prepare_script("x/minilm_brown_l0.h5") == "jobs/prepare_minilm_brown.sh"
    assert plans.prepare_script("x/glove_brown.h5") == "jobs/prepare_glove_brown.sh"


class FakePlanner:
    """Plans given per study; a study's plan at its cap takes `more` seconds longer."""

    def __init__(self, runs, more):
        self.runs, self.more = runs, more

    def missing_texts(self, study):
        return "cache/glove_brown.h5" if study.name.endswith("glove_brown") else ""

    def plan(self, study, opts):
        p = PLANS[study.name]
        return plans.Plan(**{**p.__dict__, "wall_seconds": p.wall_seconds + self.more,
                             "core_seconds": p.core_seconds + 2 * self.more})

    def dry_run(self, study):
        class Done:
            stdout = "(calibrated on this host: /x/cal.tsv)\n"
        return Done()


PLANS = {
    "regime_map": plans.Plan(300, 60, 7200, 3700, 2_500_000_000, 1, 3700, 241, "rank0", 5, 10),
    "paper_glove_brown": plans.Plan(840, 84, 3600, 100, 100_000_000, 3, 40, 840, "tasks", 5, 0),
}
PLANS["glove_brown"] = PLANS["paper_glove_brown"]  # its name on a cluster


def row(out, study):
    return next(line for line in out if line.split()[0] == study)


def test_the_dry_run_table_sums_studies_here_and_takes_the_longest_job_on_a_cluster(capsys):
    for argv, total in ((["--ranks", 300], "predicted 1h03m one study after another on 300 "
                                           "ranks"),
                        (["--slurm", "--ranks", 300, "--slurm-hours", "1.5"],
                         "predicted 1h01m for the longest job (all jobs at once)")):
        o = options(*argv, "--only", "regime_map,paper_glove_brown")
        selected = studies.select(o)
        planner = FakePlanner(studies.Runs(o, selected), more=60)
        plans.print_dry_run(o, selected, PLANS, planner)
        out = capsys.readouterr().out.splitlines()
        assert out[0].startswith("reproduce_paper --dry-run: 2 studies on ")
        texts = row(out, selected[0].name)
        assert "(priced on synthetic texts: cache/glove_brown.h5 is built by " \
               "jobs/prepare_glove_brown.sh)" in texts
        regime = row(out, "regime_map")
        assert "    2.00 " in regime and "   1h01m " in regime and "2.50 GB" in regime
        assert "uses at most 241 ranks (rank 0 storing the records), fewer than the 300 given" \
            in regime
        assert "(+ at most 1m00s if every point needs max-trials = 10)" in regime
        assert f"total: 1140 tasks, 3.00 core-hours, {total}" in out[-3]
        assert out[-2].startswith("trials until decided: the first batches above; at most 1m00s "
                                  "(0.03 core-hours) more on 300 ranks")
        assert "calibrated on this host: /x/cal.tsv;" in out[-1]
    assert "array of 3 shards + merge, 40s per shard" in "\n".join(out)


# ------------------------------------------------------------------------------ children
def test_a_child_killed_by_a_signal_gives_the_shells_exit_code():
    assert [processes.exit_code(c) for c in (0, 3, -9, -15)] == [0, 3, 137, 143]
    assert processes.run(["bash", "-c", "kill -TERM $$"]) == 143


def test_a_background_step_reads_no_terminal_and_outlives_a_ctrl_c_to_the_group(tmp_path):
    probe = tmp_path / "probe"
    code = processes.run(["bash", "-c", f"kill -INT $$; readlink /proc/$$/fd/0 > {probe}"],
                         background=True)
    assert code == 0 and probe.read_text().strip() == "/dev/null"


# ------------------------------------------------------------------------------ locks
def test_a_second_lock_of_a_directory_is_refused_naming_the_holder(tmp_path, capsys):
    path = str(tmp_path / ".lock")
    fd = processes.lock(path, "the results directory R")
    try:
        assert os.get_inheritable(fd)  # every child of the run holds it
        assert open(path).read() == f"{os.getpid()}\n"
        with pytest.raises(SystemExit) as e:
            processes.lock(path, "the results directory R")
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert err == (f"reproduce_paper: the results directory R is in use by another run "
                       f"(pid {os.getpid()}, or a process it started): wait for it to end, or "
                       "end it; a rerun then resumes\n")
    finally:
        processes.STATE.lock_fds.remove(fd)
        os.close(fd)
