"""A tiny BERT encoder folder (config.json, model.safetensors) for the trained models' tests of
the binary, written with numpy alone (Debian's python3 has no `safetensors`): the format is an
8-byte little-endian header length, a JSON header {name: {dtype, shape, data_offsets}}, the raw
little-endian float32 tensors. Random weights at a layer's scales (LayerNorm gains near 1)."""
import json
import struct

import numpy as np


def bert_tensors(d, heads, width, layers, seed=0):
    rng = np.random.default_rng(seed)

    def mat(*shape, scale):
        return (rng.normal(size=shape) * scale).astype(np.float32)

    def norm(prefix, out):
        out[prefix + ".weight"] = (1.0 + 0.2 * rng.normal(size=d)).astype(np.float32)
        out[prefix + ".bias"] = (0.2 * rng.normal(size=d)).astype(np.float32)

    t = {}
    norm("embeddings.LayerNorm", t)
    for i in range(layers):
        p = f"encoder.layer.{i}."
        for name in ("query", "key", "value"):
            t[p + f"attention.self.{name}.weight"] = mat(d, d, scale=2.0 / np.sqrt(d))
            t[p + f"attention.self.{name}.bias"] = mat(d, scale=0.3)
        t[p + "attention.output.dense.weight"] = mat(d, d, scale=1.0 / np.sqrt(d))
        t[p + "attention.output.dense.bias"] = mat(d, scale=0.3)
        norm(p + "attention.output.LayerNorm", t)
        t[p + "intermediate.dense.weight"] = mat(width, d, scale=1.0 / np.sqrt(d))
        t[p + "intermediate.dense.bias"] = mat(width, scale=0.3)
        t[p + "output.dense.weight"] = mat(d, width, scale=1.0 / np.sqrt(width))
        t[p + "output.dense.bias"] = mat(d, scale=0.3)
        norm(p + "output.LayerNorm", t)
    return t


def write_safetensors(path, tensors):
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(tensors):
        data = np.ascontiguousarray(tensors[name], dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def write_tiny_encoder(folder, d=3, heads=1, width=6, layers=2, seed=0):
    """The folder, created; `encoder = <folder>` in a configuration reads it."""
    folder.mkdir(parents=True, exist_ok=True)
    config = {"model_type": "bert", "hidden_act": "gelu", "hidden_size": d,
              "num_attention_heads": heads, "intermediate_size": width,
              "num_hidden_layers": layers, "layer_norm_eps": 1e-12}
    (folder / "config.json").write_text(json.dumps(config))
    write_safetensors(folder / "model.safetensors", bert_tensors(d, heads, width, layers, seed))
    return folder
