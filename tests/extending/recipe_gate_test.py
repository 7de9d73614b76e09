#!/usr/bin/env python3
"""recipe_gate.py on a made-up source tree, with add_a_model.py replaced by a stand-in that
records its calls: the test runs when no hash is recorded, is skipped (77) on the recorded
hash, runs again when any recipe file changes (not when another file does), always runs with
WORDSENS_FULL_TESTS=1, and passes its exit code on."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import recipe_gate  # noqa: E402

STAND_IN = """import sys
with open(__file__ + ".calls", "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\\n")
sys.exit(int(open(__file__ + ".code").read()))
"""


def main() -> int:
    work = tempfile.mkdtemp(prefix="recipe_gate_test.")
    try:
        gate_dir = os.path.join(work, "gate")
        source = os.path.join(work, "source")
        os.makedirs(gate_dir)
        shutil.copy(os.path.join(HERE, "recipe_gate.py"), gate_dir)
        stand_in = os.path.join(gate_dir, "add_a_model.py")
        with open(stand_in, "w") as f:
            f.write(STAND_IN)
        for pattern in recipe_gate.RECIPE:
            rel = pattern.replace("*", "one")
            os.makedirs(os.path.dirname(os.path.join(source, rel)), exist_ok=True)
            with open(os.path.join(source, rel), "w") as f:
                f.write(f"{rel}\n")
        with open(os.path.join(source, "elsewhere.cpp"), "w") as f:
            f.write("int x;\n")

        def gate(*extra, full=False, code=0):
            with open(stand_in + ".code", "w") as f:
                f.write(str(code))
            calls = stand_in + ".calls"
            before = open(calls).read().count("\n") if os.path.exists(calls) else 0
            env = dict(os.environ)
            env.pop("WORDSENS_FULL_TESTS", None)
            if full:
                env["WORDSENS_FULL_TESTS"] = "1"
            p = subprocess.run([sys.executable, os.path.join(gate_dir, "recipe_gate.py"),
                                source, *(extra or (os.path.join(work, "out"),))],
                               env=env, capture_output=True, text=True, timeout=60)
            after = open(calls).read().count("\n") if os.path.exists(calls) else 0
            return p.returncode, after - before, p.stdout

        def check(what, got, want):
            if got != want:
                sys.exit(f"recipe_gate_test: {what}: got {got}, want {want}")

        code, ran, out = gate()
        check("no recorded hash", (code, ran), (0, 1))
        check("asks to record", "--record" in out, True)
        check("record", gate("--record")[0], 0)
        check("recorded hash", gate()[:2], (77, 0))
        check("a failing test's code", gate(full=True, code=3)[:2], (3, 1))
        check("WORDSENS_FULL_TESTS=1", gate(full=True)[:2], (0, 1))
        with open(os.path.join(source, "elsewhere.cpp"), "a") as f:
            f.write("int y;\n")
        check("a file outside the recipe", gate()[:2], (77, 0))
        recipe_file = os.path.join(source, "src/models/registry.cpp")
        original = open(recipe_file).read()
        with open(recipe_file, "a") as f:
            f.write("// changed\n")
        check("a recipe file changed", gate()[:2], (0, 1))
        with open(recipe_file, "w") as f:
            f.write(original)
        check("changed back", gate()[:2], (77, 0))
        os.remove(os.path.join(source, "docs/EXTENDING.md"))
        check("a recipe file gone", gate()[0] not in (0, 77), True)
        print("recipe_gate_test: skip on the recorded hash, run on a change or when asked: ok")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
