"""A trained intent router: load it, and predict an intent or "send to the cloud".

A model folder holds ``heads.npz`` (the softmax and Gaussian heads) and
``manifest.json`` (classes, method, threshold, side-effect floor, validation figures,
the sha256 of the training data and of the encoder it was trained with).

Example, with a folder written by ``edge-agent train`` from intents-only data (the
shipped router is a joint intent + slot model, ``understanding.slu``)::

    >>> model = IntentModel.load(Path("my-router"))  # doctest: +SKIP
    >>> p = model.predict("book me a table for two")  # doctest: +SKIP
    >>> p.intent, p.in_scope  # doctest: +SKIP
    ('book_restaurant', True)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from understanding.intents.errors import IntentModelError
from understanding.intents.heads import GaussianHead, SoftmaxHead, softmax
from understanding.intents.ood import combine

__all__ = ["FORMAT_VERSION", "IntentModel", "IntentPrediction", "features_from_layers"]

FORMAT_VERSION = 1
N_LAYERS = 6
DIM = 384


def features_from_layers(layers: np.ndarray) -> np.ndarray:
    """(n, 6, 384) or (6, 384) layer embeddings -> (n, 2304) or (2304,) head features."""
    arr = np.asarray(layers, dtype=np.float32)
    if arr.shape[-2:] != (N_LAYERS, DIM):
        raise ValueError(f"expected layer embeddings of shape (..., 6, 384), got {arr.shape}")
    return arr.reshape(*arr.shape[:-2], N_LAYERS * DIM)


@dataclass(frozen=True)
class IntentPrediction:
    """What the router decided for one query.

    Attributes:
        intent: The predicted in-scope intent, or the OOS label (``oos``) when the query
            is out of scope (send it to the cloud).
        confidence: The softmax probability of the best in-scope intent.
        in_scope: ``oos_score <= threshold``: keep the query on the device.
        oos_score: The method's out-of-scope score (higher = less like the training data).
        scores: Probability per class (in-scope intents, plus ``oos`` when it was trained
            as a class).
        top_intent: The best in-scope intent even when ``in_scope`` is False.
        side_effect_ok: ``oos_score <= side_effect_threshold``: sure enough to run a tool
            with side effects (a stricter floor, calibrated separately).
    """

    intent: str
    confidence: float
    in_scope: bool
    oos_score: float
    scores: dict[str, float] = field(default_factory=dict)
    top_intent: str = ""
    side_effect_ok: bool = False


@dataclass(frozen=True)
class BatchPrediction:
    """Vectorised predictions for many feature rows (evaluation, benchmarks)."""

    top: np.ndarray  # index into in_scope_classes
    confidence: np.ndarray
    oos_score: np.ndarray
    in_scope: np.ndarray
    side_effect_ok: np.ndarray


class IntentModel:
    """An intent classifier with an out-of-scope threshold, over frozen encoder features."""

    def __init__(
        self,
        *,
        classes: list[str],
        oos_label: str,
        softmax_head: SoftmaxHead,
        gaussian_head: GaussianHead,
        method: dict[str, float],
        stats: dict[str, tuple[float, float]],
        threshold: float,
        side_effect_threshold: float | None = None,
        manifest: dict[str, Any] | None = None,
        encoder: Any = None,
    ) -> None:
        self.classes = classes
        self.oos_label = oos_label
        self.in_scope_classes = [c for c in classes if c != oos_label]
        self.n_in_scope = len(self.in_scope_classes)
        if classes[: self.n_in_scope] != self.in_scope_classes:
            raise IntentModelError("the oos class must come last in the class list")
        self.softmax_head = softmax_head
        self.gaussian_head = gaussian_head
        self.method = dict(method)
        self.stats = dict(stats)
        self.threshold = float(threshold)
        # Models trained before the floor existed: side effects get the lookup threshold.
        self.side_effect_threshold = min(
            self.threshold,
            self.threshold if side_effect_threshold is None else float(side_effect_threshold),
        )
        self.manifest: dict[str, Any] = manifest or {}
        self._encoder = None
        self._precision: str | None = None
        if encoder is not None:
            self._encoder = self._checked(encoder)

    # -- scoring -----------------------------------------------------------------------

    def components(self, features: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Probabilities (n, classes) and every OOS score component for (n, 2304) features."""
        x = np.atleast_2d(np.asarray(features, dtype=np.float32))
        logits = self.softmax_head.logits(x)
        probs = softmax(logits)
        in_logits = logits[:, : self.n_in_scope]
        lse = np.log(np.exp(in_logits - in_logits.max(axis=1, keepdims=True)).sum(axis=1))
        comps = {
            "msp": 1.0 - probs[:, : self.n_in_scope].max(axis=1),
            "energy": -(lse + in_logits.max(axis=1)),
            "maha": self.gaussian_head.min_distance(x[:, (N_LAYERS - 1) * DIM :]),
        }
        return probs, comps

    def predict_features(self, features: np.ndarray) -> BatchPrediction:
        """Decisions for many (n, 2304) feature rows at once."""
        probs, comps = self.components(features)
        score = combine(comps, self.method, self.stats)
        in_probs = probs[:, : self.n_in_scope]
        return BatchPrediction(
            top=in_probs.argmax(axis=1),
            confidence=in_probs.max(axis=1),
            oos_score=score,
            in_scope=score <= self.threshold,
            side_effect_ok=score <= self.side_effect_threshold,
        )

    def predict_embedding(self, vec: np.ndarray) -> IntentPrediction:
        """The decision for one query's layer embeddings ((6, 384) or (2304,) features).

        The device's router calls this when it already ran the encoder for other uses.
        """
        arr = np.asarray(vec, dtype=np.float32)
        features = features_from_layers(arr) if arr.ndim == 2 else arr
        if features.shape != (N_LAYERS * DIM,):
            raise ValueError(f"expected (6, 384) or (2304,), got {arr.shape}")
        probs, comps = self.components(features)
        score = float(combine(comps, self.method, self.stats)[0])
        in_probs = probs[0, : self.n_in_scope]
        best = int(in_probs.argmax())
        in_scope = score <= self.threshold
        top = self.in_scope_classes[best]
        return IntentPrediction(
            intent=top if in_scope else self.oos_label,
            confidence=float(in_probs[best]),
            in_scope=in_scope,
            oos_score=score,
            scores={c: float(p) for c, p in zip(self.classes, probs[0], strict=True)},
            top_intent=top,
            side_effect_ok=in_scope and score <= self.side_effect_threshold,
        )

    def predict(self, text: str) -> IntentPrediction:
        """Encode ``text`` with the INT8 encoder and decide."""
        return self.predict_embedding(self.encoder.embed_layers(text))

    @property
    def encoder(self) -> Any:
        """The encoder, loaded on first use (the package's INT8 model)."""
        if self._encoder is None:
            from understanding.encoder import Encoder

            self._encoder = self._checked(Encoder.load(precision=self._precision or "int8"))
        return self._encoder

    def _checked(self, encoder: Any) -> Any:
        """Refuse an encoder other than the one the heads were trained on.

        Heads over another encoder's features would route at random, silently.
        """
        want = self.manifest.get("encoder", {}).get("sha256")
        if not want or not hasattr(encoder, "manifest"):
            return encoder
        name = self.manifest["encoder"].get("file", "")
        have = encoder.manifest().get("files", {}).get(name, {}).get("sha256")
        if have and have != want:
            raise IntentModelError(
                f"this model was trained with encoder {name} sha256 {want[:12]}…, "
                f"but the loaded encoder's is {have[:12]}…; retrain the model"
            )
        return encoder

    # -- persistence -------------------------------------------------------------------

    def save(self, out_dir: Path) -> None:
        """Write ``heads.npz`` and ``manifest.json`` into ``out_dir`` (created)."""
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        np.savez(
            out_dir / "heads.npz",
            softmax_weight=self.softmax_head.weight,
            softmax_bias=self.softmax_head.bias,
            gaussian_means=self.gaussian_head.means,
            gaussian_precision=self.gaussian_head.precision,
        )
        manifest = dict(self.manifest)
        manifest.update(
            {
                "format_version": FORMAT_VERSION,
                "classes": self.classes,
                "oos_label": self.oos_label,
                "method": self.method,
                "score_stats": {k: list(v) for k, v in self.stats.items()},
                "threshold": self.threshold,
                "side_effect_threshold": self.side_effect_threshold,
                "features": "layer_embeddings (6 x 384), concatenated",
            }
        )
        (out_dir / "manifest.json").write_text(
            json.dumps(manifest, indent=2, sort_keys=False) + "\n", encoding="utf-8"
        )
        self.manifest = manifest

    @classmethod
    def load(
        cls, model_dir: Path, *, encoder: Any = None, precision: str | None = None
    ) -> IntentModel:
        """Load a model folder written by :meth:`save` (``edge-agent train``).

        Args:
            model_dir: The folder.
            encoder: An :class:`understanding.encoder.Encoder` to share; default: the
                package's INT8 encoder, loaded on first :meth:`predict`.
            precision: Load the package's encoder at this precision instead (``"fp32"``
                for the FP32-vs-INT8 benchmark; the heads were trained on INT8 features).

        Raises:
            IntentModelError: A file is missing or the manifest does not match the heads.
        """
        model_dir = Path(model_dir)
        manifest_path = model_dir / "manifest.json"
        heads_path = model_dir / "heads.npz"
        for path in (manifest_path, heads_path):
            if not path.is_file():
                raise IntentModelError(f"{path}: not found (is {model_dir} a trained model?)")
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            with np.load(heads_path) as heads:
                softmax_head = SoftmaxHead(heads["softmax_weight"], heads["softmax_bias"])
                gaussian_head = GaussianHead(heads["gaussian_means"], heads["gaussian_precision"])
            if manifest.get("format_version") != FORMAT_VERSION:
                raise IntentModelError(
                    f"{manifest_path}: format_version {manifest.get('format_version')!r}, "
                    f"expected {FORMAT_VERSION}"
                )
            classes = list(manifest["classes"])
            model = cls(
                classes=classes,
                oos_label=str(manifest["oos_label"]),
                softmax_head=softmax_head,
                gaussian_head=gaussian_head,
                method={str(k): float(v) for k, v in manifest["method"].items()},
                stats={
                    str(k): (float(v[0]), float(v[1])) for k, v in manifest["score_stats"].items()
                },
                threshold=float(manifest["threshold"]),
                side_effect_threshold=(
                    None
                    if manifest.get("side_effect_threshold") is None
                    else float(manifest["side_effect_threshold"])
                ),
                manifest=manifest,
                encoder=encoder,
            )
            model._precision = precision
        except IntentModelError:
            raise
        except (KeyError, ValueError, TypeError, OSError) as exc:
            raise IntentModelError(f"{model_dir}: unreadable model ({exc})") from exc
        if softmax_head.weight.shape[1] != len(classes):
            raise IntentModelError(
                f"{model_dir}: heads have {softmax_head.weight.shape[1]} classes, "
                f"manifest lists {len(classes)}"
            )
        return model
