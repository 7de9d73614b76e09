"""tests/failure_summary.py, which jobs/test_all.sh runs when ctest fails, names the failing
checks inside each failed entry last, where a log cut to its tail still shows them. The log it
reads is written here by ctest itself, on a small project with a passing entry, a pytest-like
failure and a crash."""
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

SCRIPT = os.path.join(ROOT, "tests", "failure_summary.py")
PROJECT = """\
cmake_minimum_required(VERSION 3.25)
project(summary NONE)
enable_testing()
add_test(NAME passes COMMAND sh -c "echo FAILED is only a word here")
add_test(NAME pytest_like COMMAND sh -c "printf '..F\\\\nFAILED test_a.py::test_b - \
AssertionError: x\\\\nERROR test_c.py::test_d - OSError\\\\n1 failed\\\\n'; exit 1")
add_test(NAME crashes COMMAND sh -c "echo one; echo two; echo Segmentation fault; exit 139")
"""


def summary_of(build) -> list:
    p = subprocess.run([sys.executable, SCRIPT, str(build)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


@pytest.mark.skipif(not shutil.which("ctest"), reason="needs cmake's ctest")
def test_the_failed_checks_of_each_failed_entry_are_named(tmp_path):
    (tmp_path / "CMakeLists.txt").write_text(PROJECT)
    build = tmp_path / "b"
    subprocess.run(["cmake", "-S", str(tmp_path), "-B", str(build)], check=True,
                   capture_output=True, timeout=120)
    p = subprocess.run(["ctest"], cwd=build, capture_output=True, text=True, timeout=120)
    assert p.returncode != 0
    assert summary_of(build) == [
        "What failed inside the failed entries (from ctest's LastTest.log):",
        "pytest_like:",
        "  FAILED test_a.py::test_b - AssertionError: x",
        "  ERROR test_c.py::test_d - OSError",
        "crashes:",  # no check line: the end of its output
        "  one", "  two", "  Segmentation fault"]
    # Once every entry passes, nothing is printed.
    p = subprocess.run(["ctest", "-R", "^passes$"], cwd=build, capture_output=True, timeout=120)
    assert p.returncode == 0
    assert summary_of(build) == []


def test_no_log_is_no_summary_and_no_failure(tmp_path):
    assert summary_of(tmp_path) == []
