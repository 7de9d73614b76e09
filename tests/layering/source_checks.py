"""What the source checks of this folder share: a self-test that builds small source trees and
expects each bad one to give exactly one violation naming its file, and the command line
(SRC_DIR, or --self-test) with its exit codes."""
import os
import sys
import tempfile


def write_tree(root, files):
    """Writes {relative path: text} under root."""
    for path, body in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), "w", encoding="utf-8") as out:
            out.write(body)


def self_test(name, violations, cases, fine, caught):
    """0 when `fine` alone gives no violation and `fine` plus each case exactly one, naming the
    case's file; else 1 with a line saying which did not."""
    for path, text in cases.items():
        with tempfile.TemporaryDirectory() as tmp:
            write_tree(tmp, {**fine, path: text})
            got = violations(tmp)
            if len(got) != 1 or path not in got[0]:
                print(f"self-test: {path} gave {got}, expected one violation")
                return 1
    with tempfile.TemporaryDirectory() as tmp:
        write_tree(tmp, fine)
        if violations(tmp):
            print(f"self-test: a clean tree gave {violations(tmp)}")
            return 1
    print(f"{name} self-test: each of {len(cases)} kinds of {caught} is caught")
    return 0


def main(argv, doc, violations, run_self_test, clean):
    """`script SRC_DIR`: a line per violation and exit 1 (or `clean` and 0); `script --self-test`;
    anything else: the usage line of `doc` and exit 2."""
    if argv[1:] == ["--self-test"]:
        return run_self_test()
    if len(argv) != 2:
        print(doc.strip().splitlines()[-2].strip(), file=sys.stderr)
        return 2
    found = violations(argv[1])
    for line in found:
        print(line)
    if not found:
        print(clean)
    return 1 if found else 0
