"""The shipped ONNX encoder: shapes, determinism, tokens, manifest, errors."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from edge_agent.errors import ModelFilesError
from understanding.encoder import DEFAULT_MODEL_DIR, Encoder

# The FP32 reference is not shipped: scripts/build_encoder.sh --fp32-only builds it here.
FP32_DIR = Path(__file__).resolve().parents[2] / "build" / "encoder-fp32"

SENTENCES = [
    "turn on the kitchen light",
    "what's the weather in paris tomorrow",
    "explain how vaccines train the immune system",
]


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    return Encoder.load()


def test_embed_is_a_unit_float32_vector(encoder: Encoder) -> None:
    vec = encoder.embed("set a timer for ten minutes")
    assert vec.shape == (384,)
    assert vec.dtype == np.float32
    assert abs(float(np.linalg.norm(vec)) - 1.0) < 1e-4


def test_embed_is_cached_read_only_and_deterministic(encoder: Encoder) -> None:
    first = encoder.embed("cache me")
    assert encoder.embed("cache me") is first
    assert not first.flags.writeable
    fresh = Encoder.load(cache_size=0)
    np.testing.assert_array_equal(fresh.embed("cache me"), first)


def test_embed_many_equals_one_at_a_time(encoder: Encoder) -> None:
    many = encoder.embed_many(SENTENCES)
    assert many.shape == (3, 384)
    for row, text in zip(many, SENTENCES, strict=True):
        np.testing.assert_array_equal(row, encoder.embed(text))
    assert encoder.embed_many([]).shape == (0, 384)


def test_layer_embeddings_end_with_the_sentence_embedding(encoder: Encoder) -> None:
    layers = encoder.embed_layers("lock the front door")
    assert layers.shape == (6, 384)
    np.testing.assert_allclose(np.linalg.norm(layers, axis=1), 1.0, atol=1e-4)
    np.testing.assert_allclose(layers[-1], encoder.embed("lock the front door"), atol=1e-6)
    assert encoder.embed_layers_many(SENTENCES).shape == (3, 6, 384)


def test_similar_queries_are_closer_than_unrelated_ones(encoder: Encoder) -> None:
    a = encoder.embed("switch the lights off")
    b = encoder.embed("turn off the lamp")
    c = encoder.embed("who wrote the brothers karamazov")
    assert float(a @ b) > float(a @ c) + 0.2


def test_encode_tokens_offsets_point_into_the_text(encoder: Encoder) -> None:
    text = "Turn on the Lights, please!"
    tokens, offsets, hidden = encoder.encode_tokens(text)
    assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]"
    assert hidden.shape == (len(tokens), 384)
    assert len(offsets) == len(tokens)
    assert text[offsets[4][0] : offsets[4][1]].lower() == tokens[4] == "lights"


def test_long_text_is_truncated_to_128_tokens(encoder: Encoder) -> None:
    tokens, _, hidden = encoder.encode_tokens("word " * 400)
    assert len(tokens) == 128
    assert hidden.shape == (128, 384)


@pytest.mark.skipif(
    not (FP32_DIR / "model_fp32.onnx").is_file(),
    reason="the FP32 reference is not built (scripts/build_encoder.sh --fp32-only)",
)
def test_int8_stays_close_to_fp32(encoder: Encoder) -> None:
    fp32 = Encoder.load(FP32_DIR, precision="fp32")
    for text in SENTENCES:
        assert float(encoder.embed(text) @ fp32.embed(text)) > 0.97


def test_manifest_matches_the_shipped_files() -> None:
    manifest = json.loads((DEFAULT_MODEL_DIR / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["verification"]["int8_vs_fp32_cosine_mean"] >= 0.99
    assert set(manifest["files"]) == {"model_int8.onnx", "tokenizer.json"}
    assert not (DEFAULT_MODEL_DIR / "model_fp32.onnx").exists()  # the reference ships apart
    for name, info in manifest["files"].items():
        data = (DEFAULT_MODEL_DIR / name).read_bytes()
        assert len(data) == info["bytes"]
        assert hashlib.sha256(data).hexdigest() == info["sha256"]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"precision": "int4"}, ValueError, "precision"),
        ({"threads": 0}, ValueError, "threads"),
        ({"model_dir": Path("/nonexistent/encoder")}, ModelFilesError, "not found"),
    ],
)
def test_load_errors(kwargs: dict[str, object], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        Encoder.load(**kwargs)  # type: ignore[arg-type]


def test_load_rejects_a_corrupt_model(tmp_path: Path) -> None:
    (tmp_path / "model_int8.onnx").write_bytes(b"not an onnx file")
    (tmp_path / "tokenizer.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ModelFilesError, match="cannot load"):
        Encoder.load(tmp_path)


def test_embed_many_refuses_a_single_string(encoder: Encoder) -> None:
    with pytest.raises(TypeError, match="one string"):
        encoder.embed_many("not a list")


def test_the_cache_survives_concurrent_use() -> None:
    from concurrent.futures import ThreadPoolExecutor

    shared = Encoder.load(cache_size=2)
    texts = [f"query number {i % 5}" for i in range(60)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        vectors = list(pool.map(shared.embed, texts))
    for text, vec in zip(texts, vectors, strict=True):
        np.testing.assert_array_equal(vec, shared.embed(text))
