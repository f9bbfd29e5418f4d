"""The trained joint model as the device loads it: exported to ONNX with its heads,
quantised to INT8 with the weights in a mapped file, and checked against FP32."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from understanding.slu.batches import Encoded
from understanding.slu.decode import allowed_transitions, with_learned
from understanding.slu.model import WEIGHTS_FILE, decode
from understanding.slu.validation import Outputs

__all__ = ["export_onnx", "externalize_weights", "int8_agreement", "quantize"]


def export_onnx(net: Any, path: Path) -> None:
    """The network with its three heads as an FP32 ONNX graph (dynamic batch and length)."""
    import torch

    ids = torch.tensor([[101, 7592, 2088, 102], [101, 2129, 2024, 102]], dtype=torch.int64)
    # The tracer warns that shapes become constants of the trace; the sequence length
    # stays dynamic (dynamic_axes) and the INT8/FP32 check on validation data runs after.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            net,
            (ids, torch.ones_like(ids)),
            str(path),
            input_names=["input_ids", "attention_mask"],
            output_names=["intent_logits", "slot_logits", "word_intent_logits"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "sequence"},
                "attention_mask": {0: "batch", 1: "sequence"},
                "intent_logits": {0: "batch"},
                "slot_logits": {0: "batch", 1: "sequence"},
                "word_intent_logits": {0: "batch", 1: "sequence"},
            },
            opset_version=17,
            do_constant_folding=True,
            dynamo=False,
        )


def quantize(fp32: Path, int8: Path, tmp: Path) -> None:
    """Dynamic per-channel INT8 quantisation, the weights then moved to a mapped file."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.quantization.shape_inference import quant_pre_process

    pre = tmp / "pre.onnx"
    with contextlib.chdir(tmp):
        quant_pre_process(str(fp32.resolve()), str(pre), skip_symbolic_shape=False)
    quantize_dynamic(str(pre), str(int8), per_channel=True, weight_type=QuantType.QInt8)
    externalize_weights(int8)


def externalize_weights(model: Path) -> None:
    """Move the weights of ``model`` out of the graph into ``WEIGHTS_FILE`` beside it
    (ONNX external data), which onnxruntime maps instead of copying onto the heap: the
    device's `edge-agent ask` peaks ~19 MB lower (docs/edge.md). Idempotent."""
    import onnx

    proto = onnx.load(str(model))  # with its external data, if it has some already
    (model.parent / WEIGHTS_FILE).unlink(missing_ok=True)  # onnx appends to the file
    onnx.save_model(
        proto,
        str(model),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location=WEIGHTS_FILE,
        size_threshold=1024,
    )


def int8_agreement(
    fp32: Path,
    int8: Path,
    rows: Sequence[Encoded],
    tags: list[str],
    learned: tuple[np.ndarray, np.ndarray],
) -> tuple[dict[str, float], list[Outputs]]:
    """How often the INT8 model decides as the FP32 one (intents, every word's tag)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    sessions = [
        ort.InferenceSession(str(p), opts, providers=["CPUExecutionProvider"]) for p in (fp32, int8)
    ]
    transitions = with_learned(allowed_transitions(tags), learned)
    same_intents = same_tags = words = 0
    int8_out = []
    for r in rows:
        ids = r.ids[None, :]
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        decoded = []
        for k, session in enumerate(sessions):
            a, s, w = session.run(None, feeds)
            if k == 1:
                int8_out.append((a[0], s[0], w[0]))
            decoded.append(decode(a[0], s[0], w[0], r.first, tags, transitions))
        same_intents += sorted(decoded[0].intents) == sorted(decoded[1].intents)
        same_tags += sum(x == y for x, y in zip(decoded[0].tags, decoded[1].tags, strict=True))
        words += len(decoded[0].tags)
    n = max(1, len(rows))
    return {
        "n": len(rows),
        "intents_same": round(same_intents / n, 4),
        "word_tags_same": round(same_tags / max(1, words), 4),
    }, int8_out
