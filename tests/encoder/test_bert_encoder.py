"""The numpy forward pass (analysis/datasets/bert_encoder.py) against the closed formula of
layer 0 and against PyTorch (Debian's python3-torch, an independent implementation loaded with the
same weights): per piece, per layer, on a tiny random encoder and, when the venv has it, on
all-MiniLM-L6-v2 with random and real texts; and the real model's sentence embedding behaves as
the model is known to (paraphrases closer than unrelated sentences)."""
import numpy as np
import pytest

import bert_encoder as be
from conftest import real_model_dir, write_tiny_encoder

torch = pytest.importorskip("torch", reason="Debian's python3-torch (jobs/install_deps.sh)")
RNG = np.random.default_rng(11)
REAL = real_model_dir()
real = pytest.mark.skipif(REAL is None, reason="the model package is not installed in this venv "
                          "(bash jobs/install_encoder.sh)")


def t64(a):
    return torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64))


def torch_layer(layer: be.Layer):
    """nn.TransformerEncoderLayer (post-LN, exact GELU, no dropout) with `layer`'s weights."""
    d, inter = layer.W_Q.shape[0], layer.W_1.shape[0]
    m = torch.nn.TransformerEncoderLayer(d, layer.heads, inter, dropout=0.0, activation="gelu",
                                         layer_norm_eps=layer.norm1.eps, batch_first=True,
                                         norm_first=False).double().eval()
    with torch.no_grad():
        m.self_attn.in_proj_weight.copy_(t64(np.concatenate([layer.W_Q, layer.W_K, layer.W_V])))
        m.self_attn.in_proj_bias.copy_(t64(np.concatenate([layer.b_Q, layer.b_K, layer.b_V])))
        m.self_attn.out_proj.weight.copy_(t64(layer.W_O))
        m.self_attn.out_proj.bias.copy_(t64(layer.b_O))
        m.linear1.weight.copy_(t64(layer.W_1))
        m.linear1.bias.copy_(t64(layer.b_1))
        m.linear2.weight.copy_(t64(layer.W_2))
        m.linear2.bias.copy_(t64(layer.b_2))
        for norm, ours in ((m.norm1, layer.norm1), (m.norm2, layer.norm2)):
            norm.weight.copy_(t64(ours.gamma))
            norm.bias.copy_(t64(ours.beta))
    return m


def torch_attention(layer: be.Layer, X):
    """torch.nn.functional.multi_head_attention_forward: MHA(X), and its per-head weights."""
    x = t64(X).unsqueeze(1)  # (n, batch 1, d)
    out, weights = torch.nn.functional.multi_head_attention_forward(
        x, x, x, X.shape[1], layer.heads,
        t64(np.concatenate([layer.W_Q, layer.W_K, layer.W_V])),
        t64(np.concatenate([layer.b_Q, layer.b_K, layer.b_V])), None, None, False, 0.0,
        t64(layer.W_O), t64(layer.b_O), training=False, need_weights=True,
        average_attn_weights=False)
    return out[:, 0].numpy(), weights[0].numpy()


def torch_embeddings(emb: be.Embeddings, ids):
    n = len(ids)
    x = t64(emb.word)[torch.as_tensor(ids)] + t64(emb.position)[:n] + t64(emb.token_type)[0]
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), t64(emb.norm.gamma),
                                          t64(emb.norm.beta), emb.norm.eps).numpy()


def closed_layer0(emb: be.Embeddings, ids):
    """LN(E_word[t_i] + E_pos[i] + E_type[0]) token by token, with plain Python sums."""
    rows = []
    for i, t in enumerate(ids):
        x = [float(a + b + c) for a, b, c in zip(emb.word[t], emb.position[i], emb.token_type[0])]
        mean = sum(x) / len(x)
        var = sum((v - mean) ** 2 for v in x) / len(x)
        rows.append([(v - mean) / (var + emb.norm.eps) ** 0.5 * g + b
                     for v, g, b in zip(x, emb.norm.gamma, emb.norm.beta)])
    return np.asarray(rows)


def check_encoder(enc, ids, tol):
    """Every layer of the windows `ids` against PyTorch, fed the same inputs; returns the
    largest difference seen."""
    H = be.embedding_layer(enc.embeddings, ids)
    worst = np.abs(H - torch_embeddings(enc.embeddings, ids)).max()
    for layer in enc.layers:
        ours_mha = be.multi_head_attention(layer, H)
        theirs_mha, theirs_p = torch_attention(layer, H)
        worst = max(worst, np.abs(ours_mha - theirs_mha).max(),
                    np.abs(be.attention_probabilities(layer, H) - theirs_p).max())
        with torch.no_grad():
            theirs = torch_layer(layer)(t64(H)[None])[0].numpy()
        ours = be.encoder_layer(layer, H)
        worst = max(worst, np.abs(ours - theirs).max())
        H = ours
    assert worst < tol, worst
    return worst


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return be.read_encoder(write_tiny_encoder(tmp_path_factory.mktemp("enc") / "tiny", layers=3))


def test_tiny_layer0_is_the_closed_formula(tiny):
    ids = RNG.integers(0, tiny.embeddings.word.shape[0], size=23)
    np.testing.assert_allclose(be.embedding_layer(tiny.embeddings, ids),
                               closed_layer0(tiny.embeddings, ids), rtol=0, atol=1e-12)


def test_tiny_layers_match_pytorch(tiny):
    for n in (1, 7, 31):
        check_encoder(tiny, RNG.integers(0, tiny.embeddings.word.shape[0], size=n), 1e-12)


def test_batched_equals_one_window_at_a_time(tiny):
    ids = RNG.integers(0, tiny.embeddings.word.shape[0], size=(5, 9))
    batched = be.hidden_states(tiny, ids)
    np.testing.assert_array_equal(be.hidden_state(tiny, ids, 2), batched[2])
    for b in range(5):
        for got, alone in zip(batched, be.hidden_states(tiny, ids[b])):
            np.testing.assert_allclose(got[b], alone, rtol=0, atol=1e-13)


def test_the_comparison_can_fail(tiny):
    """Our layer with b_Q shifted by 0.05 against PyTorch's with the true weights: caught. With
    b_K shifted instead it must agree: a key bias adds the same q·δ to every score of a query,
    which the softmax cancels (the check compares functions, not parameters)."""
    import dataclasses
    layer = tiny.layers[1]
    ids = RNG.integers(0, tiny.embeddings.word.shape[0], size=12)
    H = be.hidden_states(tiny, ids, upto=1)[-1]
    with torch.no_grad():
        theirs = torch_layer(layer)(t64(H)[None])[0].numpy()
    shifted_q = dataclasses.replace(layer, b_Q=layer.b_Q + 0.05)
    shifted_k = dataclasses.replace(layer, b_K=layer.b_K + 0.05 * RNG.normal(size=layer.b_K.shape))
    assert np.abs(be.encoder_layer(shifted_q, H) - theirs).max() > 1e-3
    assert np.abs(be.encoder_layer(shifted_k, H) - theirs).max() < 1e-12


def test_weights_reader_refuses_bad_folders(tmp_path):
    folder = write_tiny_encoder(tmp_path / "t")
    with pytest.raises(be.EncoderError, match="does not match the pinned digest"):
        be.read_encoder(folder, expected_sha256="0" * 64)
    config = (folder / "config.json").read_text()
    (folder / "config.json").write_text(config.replace('"gelu"', '"relu"'))
    with pytest.raises(be.EncoderError, match="hidden_act"):
        be.read_encoder(folder)
    (folder / "config.json").write_text(config.replace('"hidden_size": 16', '"hidden_size": 20'))
    with pytest.raises(be.EncoderError, match="has shape"):
        be.read_encoder(folder)


@pytest.fixture(scope="module")
def minilm():
    return be.read_encoder(REAL, expected_sha256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db")


@real
def test_real_model_layer0_is_the_closed_formula(minilm):
    ids = RNG.integers(1000, 30000, size=12)
    np.testing.assert_allclose(be.embedding_layer(minilm.embeddings, ids),
                               closed_layer0(minilm.embeddings, ids), rtol=0, atol=1e-10)


@real
def test_real_model_matches_pytorch_on_random_and_real_texts(minilm):
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(str(REAL / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    text = ("the fulton county grand jury said friday an investigation of atlanta's recent "
            "primary election produced no evidence that any irregularities took place .")
    real_ids = tok.encode(text.split(), is_pretokenized=True, add_special_tokens=False).ids
    assert len(real_ids) > 20
    for ids in (real_ids, RNG.integers(1000, 30000, size=64)):
        check_encoder(minilm, np.asarray(ids), 1e-5)


@real
def test_real_model_sentence_embedding_knows_paraphrases(minilm):
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(str(REAL / "tokenizer.json"))
    tok.no_padding()

    def embed(s):
        return be.sentence_embedding(minilm, tok.encode(s).ids)  # with [CLS] … [SEP]

    triples = [("A man is eating food.", "A man is eating a piece of bread.",
                "The girl is carrying a baby."),
               ("How old are you?", "What is your age?", "The stock market fell sharply today."),
               ("The cat sits on the mat.", "A cat is sitting on a rug.",
                "Quantum computers use qubits.")]
    for anchor, paraphrase, unrelated in triples:
        a, p, u = embed(anchor), embed(paraphrase), embed(unrelated)
        assert abs(np.linalg.norm(a) - 1) < 1e-12
        assert a @ p > 0.5 > a @ u + 0.2, (anchor, a @ p, a @ u)
