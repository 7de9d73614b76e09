#!/usr/bin/env python3
"""The COST of each long ctest entry, as data: tests/costs.tsv holds the seconds each entry took
in one run of the whole suite, with where and when it was measured; tests/CMakeLists.txt gives
every entry its row's COST (ctest starts the long ones first and balances the two cores by it).

    bash jobs/test_all.sh | tee suite.log
    tests/measured_costs.py suite.log > tests/costs.tsv     # rows for the entries of >= 10 s

The host line says what the times are worth elsewhere: they scale with the machine (a host
without AVX-512 took 2 to 4 times as long), but their ratios, which are all ctest uses, hold.
"""
import datetime
import platform
import re
import subprocess
import sys

PASSED = re.compile(r"Test +#\d+: ([A-Za-z0-9_]+) \.+ +Passed +([0-9.]+) sec")
LONG = 10.0  # seconds: the shorter entries are left to ctest's own order


def cpu() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return platform.machine()
    name = re.search(r"^model name\s*:\s*(.+)$", text, re.M)
    wide = " with AVX-512" if re.search(r"^flags\s*:.*\bavx512f\b", text, re.M) else ""
    return (name.group(1).strip() if name else platform.machine()) + wide


def main(argv) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8", errors="replace") as f:
        times = {m.group(1): float(m.group(2)) for m in PASSED.finditer(f.read())}
    if not times:
        print(f"measured_costs: no passed ctest entry in {argv[1]}", file=sys.stderr)
        return 1
    try:
        sha = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        sha = "unknown"
    print(f"# seconds of each ctest entry of at least {LONG:.0f} s in one run of "
          f"`bash jobs/test_all.sh` (ctest -j2, the rest of the suite beside it): "
          f"{cpu()}, 2 cores, commit {sha}, {datetime.date.today().isoformat()}; "
          "written by tests/measured_costs.py")
    print("test\tseconds")
    for name, seconds in sorted(times.items(), key=lambda kv: (-kv[1], kv[0])):
        if seconds >= LONG:
            print(f"{name}\t{max(1, round(seconds))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
