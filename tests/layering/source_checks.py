"""What the source checks of this folder share: a self-test that builds small source trees and
expects each bad one to give exactly one violation naming its file, and the command line
(SRC_DIR, or --self-test) with its exit codes."""
import os
import re
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


def folder_order_violations(layer_dir, layer, rank, script):
    """The includes of a layer's subfolders that do not point downward: each file of folder F
    (under layer_dir, "" for the layer's own files) may include `"<layer>/G/…"` only for G = F or
    rank[G] < rank[F]; a folder, or an included folder, missing from `rank` is a violation too,
    so that a new one is placed in the order on purpose. `script` names the order's file."""
    include = re.compile(r'^\s*#\s*include\s+"' + re.escape(layer) +
                         r'/(?:([a-z_0-9]+)/)?[^"]+"', re.M)
    found = []
    for here, _dirs, files in os.walk(layer_dir):
        folder = os.path.relpath(here, layer_dir)
        folder = "" if folder == "." else folder
        for name in sorted(files):
            if not name.endswith((".hpp", ".cpp")):
                continue
            where = os.path.join(layer, folder, name)
            if folder not in rank:
                found.append(f"{where}: folder {layer}/{folder}/ is not in the order of {script}")
                continue
            with open(os.path.join(here, name), encoding="utf-8") as source:
                text = source.read()
            for match in include.finditer(text):
                target = match.group(1) or ""
                line = text.count("\n", 0, match.start()) + 1
                if target not in rank:
                    found.append(f"{where}:{line}: includes {layer}/{target}/, which is not in "
                                 "the order")
                elif target != folder and rank[target] >= rank[folder]:
                    found.append(f"{where}:{line}: {layer}/{folder or '*.cpp'} must not include "
                                 f"{layer}/{target or '*.hpp'} ({match.group(0).strip()})")
    return found
