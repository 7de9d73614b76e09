#!/usr/bin/python3
"""Records of two builds are never mixed without a trace. A build is the root attributes
software_version, git_sha and build (another build need not reproduce a record to the last bit).
Another build is simulated by editing them in a copy with h5py.

- A resume by another build is refused (exit 2, one line naming the differing attribute and the
  build to resume with) and leaves the file unchanged; it used to run the remaining tasks
  silently, leaving records of a build the file does not name.
- `merge` of files of different builds is refused (exit 2) unless --allow-mixed-builds; then the
  merged file lists every build with the tasks it computed (attribute `builds`, `info` shows it).
  It used to keep one build's name.
- A merged file names the build of its records (its inputs'), not the merging binary's.
- A damaged list of builds is damage (exit 1) for `info` and `info --check` alike.

usage: provenance.py WORDSENS CASE
"""
import json
import os
import re
import shutil
import sys

from faults_lib import PY, check, digest, h5py_edit, main

ATTRIBUTES = ("software_version", "git_sha", "build")
OTHER = {"software_version": "0.0.1-other", "git_sha": "0123456789abcdef",
         "build": "-march=other; Eigen 0.0 own kernels; GNU 1.0; Release"}


def set_text(name, value):
    """h5py code storing a string attribute as a writer of format 1.5 does: fixed-length UTF-8
    (a variable-length one is itself damage since 1.5)."""
    data = value.encode()
    return (f"f.attrs.create({name!r}, np.array({data!r}), "
            f"dtype=h5py.string_dtype('utf-8', {len(data)}))")


def attrs(case, path, *names):
    code = ("import h5py, json\n"
            f"f = h5py.File({path!r}, 'r', libver='latest', swmr=True)\n"
            "def text(v):\n"
            "    return v.decode() if isinstance(v, bytes) else str(v)\n"
            f"print(json.dumps({{n: text(f.attrs[n]) if n in f.attrs else None "
            f"for n in {list(names)!r}}}))")
    res = case.run([PY, "-c", code])
    check(res.rc == 0, f"reading attributes failed\n{res}")
    return json.loads(res.out)


def partial_run(case, config, name):
    """A file with some tasks done and some not (a wall time of 0: exit 3 after the first)."""
    out = case.path(name)
    res = case.ws("run", config, "--output", out, "--walltime", "1e-9", "--progress", "60")
    check(res.rc == 3, f"the partial run did not checkpoint\n{res}")
    return out


def resume_by_another_build(case):
    config = case.small_config()
    _, reference = case.reference(config)
    for name in ATTRIBUTES:
        out = partial_run(case, config, f"partial_{name}.h5")
        h5py_edit(out, set_text(name, OTHER[name]))
        before = digest(out)
        res = case.ws("run", config, "--output", out, "--progress", "60")
        line = case.expect_error(res, 2, out, "another build", name, OTHER[name],
                                 "--overwrite")
        check("resume it with wordsens" in line, f"the message does not say which build: {line}")
        check(digest(out) == before, f"{name}: the refused resume changed the file")
    # The same build resumes as before.
    out = partial_run(case, config, "partial_same.h5")
    res = case.ws("run", config, "--output", out, "--progress", "60")
    check(res.rc == 0, f"a resume by the same build failed\n{res}")
    case.same_records(out, reference)


def done_tasks(case, path):
    code = ("import h5py\n"
            f"f = h5py.File({path!r}, 'r', libver='latest', swmr=True)\n"
            "t = f['tasks']\n"
            "print(','.join(str(i) for i, d in zip(t['task_id'][:], t['done'][:]) if d))")
    res = case.run([PY, "-c", code])
    check(res.rc == 0, f"reading the task table failed\n{res}")
    return [int(x) for x in res.out.strip().split(",") if x]


def ranges(ids):
    parts, i = [], 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        parts.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return ",".join(parts)


def merge_of_two_builds(case):
    config = case.small_config()
    _, reference = case.reference(config)
    a, b = case.shards(config)
    h5py_edit(b, "\n".join(set_text(n, OTHER[n]) for n in ATTRIBUTES))
    ours = attrs(case, a, *ATTRIBUTES)
    merged = case.path("merged.h5")
    res = case.ws("merge", a, b, "-o", merged)
    case.expect_error(res, 2, "different builds", a, b, "git_sha", "--allow-mixed-builds")
    check(not os.path.exists(merged), "a refused merge left an output")
    # Asked: merged, and every build is listed with the tasks it computed.
    res = case.ws("merge", a, b, "-o", merged, "--allow-mixed-builds")
    check(res.rc == 0, f"--allow-mixed-builds\n{res}")
    case.same_records(merged, reference)
    stored = attrs(case, merged, *ATTRIBUTES, "builds")
    check(all(stored[n] == ours[n] for n in ATTRIBUTES), f"root build not the first input's: "
          f"{stored}")
    lines = [line.split("\t") for line in (stored["builds"] or "").splitlines()]
    expected = [[f"software_version={ours['software_version']}", f"git_sha={ours['git_sha']}",
                 f"build={ours['build']}", f"tasks={ranges(done_tasks(case, a))}"],
                [f"software_version={OTHER['software_version']}",
                 f"git_sha={OTHER['git_sha']}", f"build={OTHER['build']}",
                 f"tasks={ranges(done_tasks(case, b))}"]]
    check(lines == expected, f"attribute builds: {lines} != {expected}")
    res = case.ws("info", merged)
    check(res.rc == 0 and "builds:        2 (records of several builds)" in res.out,
          f"info does not show the builds\n{res}")
    check(re.search(rf"wordsens {re.escape(OTHER['software_version'])} \(git "
                    rf"{OTHER['git_sha']}, build .*\): \d+ tasks", res.out), f"{res.out}")
    # A mixed file merged again needs the option again.
    again = case.path("again.h5")
    res = case.ws("merge", merged, "-o", again)
    case.expect_error(res, 2, merged, "several builds", "--allow-mixed-builds")
    # A list of builds that is not one is damage, for info and info --check alike.
    broken = case.path("broken.h5")
    shutil.copyfile(merged, broken)
    h5py_edit(broken, set_text("builds", "software_version=1\tgit_sha=2"))
    case.expect_error(case.ws("info", broken), 1, "damaged", "attribute builds has 2 fields")
    res = case.ws("info", "--check", broken)
    check(res.rc == 1 and "problem:  line 1 of attribute builds has 2 fields" in res.out,
          f"info --check\n{res}")


def merge_names_the_inputs_build(case):
    """Shards of one other build, merged by this binary: the output names their build."""
    config = case.small_config()
    a, b = case.shards(config)
    for path in (a, b):
        h5py_edit(path, "\n".join(set_text(n, OTHER[n]) for n in ATTRIBUTES))
    merged = case.path("merged.h5")
    res = case.ws("merge", a, b, "-o", merged)
    check(res.rc == 0, f"shards of one build\n{res}")
    stored = attrs(case, merged, *ATTRIBUTES, "builds")
    check(all(stored[n] == OTHER[n] for n in ATTRIBUTES), f"the merged file names {stored}")
    check(stored["builds"] is None, f"one build needs no attribute builds: {stored}")


CASES = {f.__name__: f for f in (resume_by_another_build, merge_of_two_builds,
                                 merge_names_the_inputs_build)}

if __name__ == "__main__":
    sys.exit(main(CASES))
