#!/usr/bin/env python3
"""docs/EXTENDING.md's recipe for a model, followed to the letter by a model kept for this test.

In a copy of the sources (a git repository of its own, so that the change is counted as git
sees it), it adds `bow` (tests/extending/bow/: bag-of-words random features) the way the recipe
says, and nothing else:

  1. the map: its class and its costs, bow.hpp and bow.cpp in a folder of its own,
     src/models/<family>/;
  2. its kind (src/models/shared/model_kind.hpp), its catalogue row (src/models/registry.cpp), its
     analysis pieces, a plot style and a numpy twin
     (analysis/wordsens_analysis/twins/model_pieces.py);
  3. its tests: a case in tests/unit/models/model_cases.hpp and in
     tests/unit/estimators/word_sensitivity_models_test.cpp, its family in the order of
     tests/layering/model_families.py.

Then it checks what the recipe promises: at most 5 files change outside tests/; the copy builds
with warnings as errors; every model-independent check of the model tests passes for bow
(gradients against central differences, the fast evaluator against the from-scratch features,
weights, word sets); the layering checks pass; `wordsens` lists bow, runs it through ws and gen
(one word and two) on 2 ranks, and `info --check` accepts the file; the analysis reads bow's kind
from the file's /models, recomputes its witnesses with its twin and draws it in its own style;
and test_binary.py's catalogue test, which passes, fails once bow's analysis pieces are taken out.

  add_a_model.py SOURCE_DIR WORK_DIR      exit 0 when all of it holds; WORK_DIR is emptied first
                                          and removed after a success (kept after a failure)
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = "bow"
MAX_FILES_OUTSIDE_TESTS = 5
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def fail(message: str) -> None:
    sys.exit(f"add_a_model: {message}")


def _shown(arg: str) -> str:
    """An argument as the log shows it: a script passed inline by its first line."""
    lines = [line for line in arg.splitlines() if line.strip()]
    return arg if len(lines) <= 1 else lines[0][:60] + " …"


def run(cmd, cwd=None, env=None, timeout=3600, check=True) -> subprocess.CompletedProcess:
    print("+", " ".join(_shown(str(c)) for c in cmd), flush=True)
    p = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True,
                       timeout=timeout)
    if check and p.returncode != 0:
        fail(f"{' '.join(str(c) for c in cmd)} exited {p.returncode}:\n"
             f"{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p


def source_files(source: str) -> list:
    """The files git would commit (tracked, and new ones not ignored); outside a git checkout
    (a release archive), every file but the build trees and downloaded packages."""
    inside = run(["git", "-C", source, "rev-parse", "--is-inside-work-tree"], check=False)
    if inside.returncode == 0 and inside.stdout.strip() == "true":
        return run(["git", "-C", source, "ls-files", "-z", "--cached", "--others",
                    "--exclude-standard"]).stdout.split("\0")
    listed = []
    for here, dirs, files in os.walk(source):
        rel_here = os.path.relpath(here, source)
        dirs[:] = [d for d in dirs if d not in (".git", "node_modules", "__pycache__") and
                   not (rel_here == "." and d in ("build", "results", "report"))]
        listed += [os.path.normpath(os.path.join(rel_here, f)) for f in files]
    return listed


def copy_sources(source: str, copy: str) -> None:
    """The sources, into a fresh git repository (git counts what the recipe changes)."""
    if shutil.which("git") is None:
        fail("needs git, to count the files the recipe changes (apt-get install git)")
    for rel in filter(None, source_files(source)):
        src = os.path.join(source, rel)
        if not os.path.lexists(src):  # deleted in the work tree
            continue
        dst = os.path.join(copy, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst, follow_symlinks=False)
    git = ["git", "-C", copy, "-c", "user.name=add_a_model", "-c", "user.email=test@localhost"]
    run(git[:3] + ["init", "-q"])
    run(git + ["add", "-A"])
    run(git + ["commit", "-q", "-m", "the sources before the model"])


def edit(copy: str, rel: str, pattern: str, replacement: str) -> None:
    """Replaces the one match of `pattern` in `rel`: the place the recipe names. A missing place
    means the recipe (docs/EXTENDING.md) and the sources have parted: update both."""
    path = os.path.join(copy, rel)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    new, count = re.subn(pattern, replacement, text, count=1, flags=re.M | re.S)
    if count != 1:
        fail(f"{rel}: the recipe's place /{pattern}/ is not there (docs/EXTENDING.md)")
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)


ROW = r'''\1      // A test's model (tests/extending/bow): rf's traits, no marginal sampler; its ascents
      // are not measured (rf's, which move a first layer alike).
      {.traits = {.kind = ModelKind::bow,
                  .name = "bow",
                  .attention = false,
                  .min_total_sphere_starts = 0,
                  .width = ModelWidth::features},
       .make = [](const ModelSpec& spec, WeightKey key) -> std::unique_ptr<FeatureMap> {
         return std::make_unique<BagOfWordsFeatures>(spec, key);
       },
       .size_problem = any_size,
       .costs = []() -> const ModelCosts& {
         static const BowCosts costs;
         return costs;
       },
       .search = {.ws_evaluations_per_start = 175.0}},
\2'''

TWIN = r'''def _bow_twin(w, act):
    """φ(X) = ϕ(V (x_1 + … + x_n)/√n)."""
    if "V" not in w.arrays or act is None:
        return None
    V = w.arrays["V"]
    return lambda X: act(V @ (X.sum(axis=0) / np.sqrt(X.shape[0])))


\1'''


def follow_the_recipe(copy: str) -> None:
    # 1. The map: its class and its costs in its family's folder.
    family = os.path.join(copy, "src", "models", MODEL)
    os.makedirs(family)
    for name in (f"{MODEL}.hpp", f"{MODEL}.cpp"):
        shutil.copy(os.path.join(HERE, MODEL, name), os.path.join(family, name))
    # 2. Its kind, its catalogue row, its analysis pieces.
    edit(copy, "src/models/shared/model_kind.hpp",
         r"(enum class ModelKind : std::uint8_t \{[^}]*?)(\s*\};)", r"\1, bow\2")
    edit(copy, "src/models/registry.cpp", r'^(#include "models/drf/drf\.hpp")',
         '#include "models/bow/bow.hpp"\n\\1')
    edit(copy, "src/models/registry.cpp",
         r"(std::to_array<CatalogueRow>\(\{\n.*?\n)(  \}\);)", ROW)
    edit(copy, "analysis/wordsens_analysis/twins/model_pieces.py", r"^(PIECES = \{)", TWIN)
    edit(copy, "analysis/wordsens_analysis/twins/model_pieces.py", r"^(PIECES = \{\n.*?\n)(\})",
         '\\1    "bow": ModelPieces(style=dict(color="tab:orange", marker="D"), twin=_bow_twin),\n'
         "\\2")
    # 3. Its tests.
    edit(copy, "tests/unit/models/model_cases.hpp", r"^(  return cases;)",
         '  cases.push_back({"bow", {ModelKind::bow, n, d, k, 1, Activation::relu}});\n'
         '  cases.push_back({"bow_tanh", {ModelKind::bow, n, d, k, 1, Activation::tanh}});\n\\1')
    edit(copy, "tests/unit/estimators/word_sensitivity_models_test.cpp",
         r'(make_spec\("\w+", n, d, k\))\};', r'\1, make_spec("bow", n, d, k)};')
    edit(copy, "tests/layering/model_families.py", r'("attention": 2, )', r'\1"bow": 2, ')


def files_changed_outside_tests(copy: str) -> list:
    status = run(["git", "-C", copy, "status", "--porcelain", "--untracked-files=all"]).stdout
    changed = [line[3:] for line in status.splitlines() if line.strip()]
    return [path for path in changed if not path.startswith("tests/")]


def build(copy: str) -> str:
    build_dir = os.path.join(copy, "build")
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    # -O1: the copy is built to check that the recipe compiles, links and works, not for speed
    # (its study is tiny); at -O3 the build of the whole library took most of the test's time.
    run(["cmake", "-S", copy, "-B", build_dir, *generator, "-DCMAKE_BUILD_TYPE=Release",
         "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG", "-DWORDSENS_WERROR=ON",
         "-DWORDSENS_BUILD_TESTS=ON"])
    run(["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 2), "--target", "wordsens",
         "extending_model_checks"])
    return build_dir


def mpi_env() -> dict:
    env = dict(os.environ)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", MPLBACKEND="Agg",
               PYTHONDONTWRITEBYTECODE="1")
    return env


STUDY = f"""experiments = ws,gen
models = rf,{MODEL}
gen-models = rf,{MODEL}
n = 4,8
d = 4
gen-n = 4
gen-d = 8
k = 1.0D
N = 6
words = 1,2
trials = 2
max-evals = 40
"""

READ_BACK = f"""
import sys
import numpy as np
import pandas as pd
from wordsens_analysis.reader import read_results
from wordsens_analysis.twins import CHECK_COLUMNS, check_witnesses, model_pieces
res = read_results(sys.argv[1])
row = res.models.set_index("model").loc["{MODEL}"]
assert (int(row["attention"]), int(row["deep"]), int(row["marginal_sampler"])) == (0, 0, 0), row
assert (int(row["multi_head"]), int(row["width"]), int(row["encoder"])) == (0, 1, 0), row
assert res.catalogue.has_feature_width("{MODEL}") and not res.catalogue.is_attention("{MODEL}")
assert res.catalogue.traits("{MODEL}").width == "features"
for table in (res.ws, res.gen):
    assert (table["model"] == "{MODEL}").any(), "no {MODEL} records"
checks = pd.DataFrame(check_witnesses(res.witnesses), columns=CHECK_COLUMNS)
mine = checks[checks["model"] == "{MODEL}"]
assert len(mine) > 0 and (mine["rel_diff"] <= 1e-9).all(), checks
assert model_pieces.style("{MODEL}") is not model_pieces.UNKNOWN_STYLE
print("{MODEL}: /models read, records", int((res.ws["model"] == "{MODEL}").sum()),
      "ws and", int((res.gen["model"] == "{MODEL}").sum()), "gen, witnesses", len(mine),
      "recomputed, worst relative difference", float(mine["rel_diff"].max()))
"""


def check_the_model(copy: str, build_dir: str) -> None:
    env = mpi_env()
    binary = os.path.join(build_dir, "src", "wordsens")
    checks = run([os.path.join(build_dir, "tests", "extending", "extending_model_checks")],
                 env=env, timeout=1800)
    ran = re.findall(rf"^\[       OK \] \S*{MODEL}\S*", checks.stdout, re.M)
    if len(ran) < 8:
        fail(f"only {len(ran)} of the model checks ran for {MODEL}:\n{checks.stdout[-3000:]}")
    print(f"{len(ran)} model checks passed for {MODEL}")
    for script, tree in (("model_families.py", "src/models"), ("model_name_lookups.py", "src")):
        run([PYTHON, os.path.join(copy, "tests", "layering", script), os.path.join(copy, tree)])

    refusal = run([binary, "run", "--models", "no_such_model", "--dry-run"], env=env,
                  check=False)
    if refusal.returncode != 2 or f",{MODEL})" not in refusal.stderr:
        fail(f"wordsens does not list {MODEL} among its models: {refusal.stderr}")
    work = os.path.join(copy, "study")
    os.makedirs(work)
    with open(os.path.join(work, "bow.ini"), "w", encoding="utf-8") as f:
        f.write(STUDY)
    out = os.path.join(work, "bow.h5")
    run(["mpirun", "-n", "2", binary, "run", "bow.ini", "--output", out, "--save-witness"],
        cwd=work, env=env, timeout=900)
    run([binary, "info", out, "--check"], env=env)
    env_analysis = dict(env, PYTHONPATH=os.path.join(copy, "analysis"))
    print(run([PYTHON, "-c", READ_BACK, out], env=env_analysis).stdout.strip())
    report = os.path.join(work, "report")
    run([PYTHON, os.path.join(copy, "analysis", "wordsens-report"), out, "-o", report],
        env=env_analysis, timeout=900)
    figures = [f for f in os.listdir(report) if f.endswith(".png")]
    if not figures:
        fail("the report drew no figure")

    # The catalogue test passes with bow's pieces, and fails without them.
    catalogue_test = [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                      os.path.join(copy, "tests", "python", "test_binary.py"),
                      "-k", "catalogue_has_its_analysis_pieces"]
    env_test = dict(env, WORDSENS_BIN=binary)
    run(catalogue_test, cwd=os.path.join(copy, "tests", "python"), env=env_test, timeout=900)
    pieces = os.path.join(copy, "analysis", "wordsens_analysis", "twins", "model_pieces.py")
    with open(pieces, encoding="utf-8") as f:
        kept = f.read()
    with open(pieces, "w", encoding="utf-8") as f:
        f.write(re.sub(rf'^    "{MODEL}": ModelPieces\(.*\n', "", kept, flags=re.M))
    without = run(catalogue_test, cwd=os.path.join(copy, "tests", "python"), env=env_test,
                  timeout=900, check=False)
    with open(pieces, "w", encoding="utf-8") as f:
        f.write(kept)
    if without.returncode == 0 or "a model without its analysis pieces" not in without.stdout:
        fail("the catalogue test passed for a model without its analysis pieces:\n"
             f"{without.stdout[-2000:]}")


def main(argv) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    source, work = (os.path.abspath(a) for a in argv[1:])
    shutil.rmtree(work, ignore_errors=True)
    copy = os.path.join(work, "sources")
    os.makedirs(copy)
    copy_sources(source, copy)
    follow_the_recipe(copy)
    outside = files_changed_outside_tests(copy)
    print(f"files added or changed outside tests/ ({len(outside)}):", *outside, sep="\n  ")
    if len(outside) > MAX_FILES_OUTSIDE_TESTS:
        fail(f"adding a model touched {len(outside)} files outside tests/, more than "
             f"{MAX_FILES_OUTSIDE_TESTS}")
    build_dir = build(copy)
    check_the_model(copy, build_dir)
    shutil.rmtree(work)
    print(f"add_a_model: {MODEL} added in {len(outside)} files outside tests/, built, checked, "
          "run, read and drawn")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
