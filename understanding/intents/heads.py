"""Numpy heads over frozen encoder features.

* :class:`SoftmaxHead`: multinomial logistic regression (L2, mini-batch Adam). Trained
  on the six layers' pooled embeddings concatenated (2304 features); out-of-scope
  training examples, when there are any, form one more class (or, labelled -1, are
  negatives whose target is the uniform distribution: outlier exposure).
* :class:`GaussianHead`: class means with one shared, shrunk covariance (the
  Mahalanobis out-of-scope detector of Lee et al. 2018 / Podolskiy et al. 2021), on the
  last layer's sentence embedding.

No scikit-learn or torch: training 15k examples takes tens of seconds on two cores.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["GaussianHead", "SoftmaxHead", "log_softmax", "softmax"]


def softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax, stable for large logits."""
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    out: np.ndarray = e / e.sum(axis=-1, keepdims=True)
    return out


def log_softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise log-softmax."""
    shifted = z - z.max(axis=-1, keepdims=True)
    out: np.ndarray = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return out


@dataclass
class SoftmaxHead:
    """Linear softmax classifier: ``logits = x @ weight + bias``."""

    weight: np.ndarray  # (features, classes)
    bias: np.ndarray  # (classes,)

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Logits for one feature vector (features,) or a batch (n, features)."""
        out: np.ndarray = x @ self.weight + self.bias
        return out

    @classmethod
    def fit(
        cls,
        x: np.ndarray,
        y: np.ndarray,
        n_classes: int,
        *,
        l2: float = 1e-5,
        learning_rate: float = 2e-3,
        batch_size: int = 256,
        min_steps: int = 2400,
        min_epochs: int = 40,
        max_epochs: int = 400,
        seed: int = 0,
        init: SoftmaxHead | None = None,
        on_epoch: Callable[[int, int], None] | None = None,
    ) -> SoftmaxHead:
        """Fit by mini-batch Adam on the cross-entropy plus ``l2 * |W|^2 / 2``.

        The number of epochs grows for small data sets so that every fit takes at least
        ``min_steps`` Adam steps (a 10-intent router of 2,000 examples needs more epochs
        than CLINC150's 15,000).

        Args:
            x: Features (n, d), float32.
            y: Class indices (n,); -1 marks a negative example, trained toward the
                uniform distribution over the classes (outlier exposure, Hendrycks et al.
                2019).
            n_classes: Number of classes.
            init: Start from this head's weights (a warm start, for a refit on more data).
            on_epoch: Called with (epoch, total epochs) after each epoch (progress bars).
        """
        n, d = x.shape
        rng = np.random.default_rng(seed)
        batches = max(1, -(-n // batch_size))
        epochs = int(min(max_epochs, max(min_epochs, -(-min_steps // batches))))
        if init is not None:
            if init.weight.shape != (d, n_classes):
                raise ValueError(f"init head has shape {init.weight.shape}, need {(d, n_classes)}")
            weight = init.weight.astype(np.float32, copy=True)
            bias = init.bias.astype(np.float32, copy=True)
        else:
            weight = np.zeros((d, n_classes), dtype=np.float32)
            bias = np.zeros(n_classes, dtype=np.float32)
        onehot = np.eye(n_classes, dtype=np.float32)[np.maximum(y, 0)]
        onehot[y < 0] = 1.0 / n_classes
        m_w, v_w = np.zeros_like(weight), np.zeros_like(weight)
        m_b, v_b = np.zeros_like(bias), np.zeros_like(bias)
        beta1, beta2, eps = 0.9, 0.999, 1e-8
        step = 0
        for epoch in range(epochs):
            order = rng.permutation(n)
            for start in range(0, n, batch_size):
                idx = order[start : start + batch_size]
                xb = x[idx]
                grad_z = (softmax(xb @ weight + bias) - onehot[idx]) / len(idx)
                g_w = xb.T @ grad_z + l2 * weight
                g_b = grad_z.sum(axis=0)
                step += 1
                c1 = 1.0 - beta1**step
                c2 = 1.0 - beta2**step
                m_w = beta1 * m_w + (1 - beta1) * g_w
                v_w = beta2 * v_w + (1 - beta2) * g_w * g_w
                m_b = beta1 * m_b + (1 - beta1) * g_b
                v_b = beta2 * v_b + (1 - beta2) * g_b * g_b
                weight -= learning_rate * (m_w / c1) / (np.sqrt(v_w / c2) + eps)
                bias -= learning_rate * (m_b / c1) / (np.sqrt(v_b / c2) + eps)
            if on_epoch is not None:
                on_epoch(epoch + 1, epochs)
        return cls(weight=weight.astype(np.float32), bias=bias.astype(np.float32))


@dataclass
class GaussianHead:
    """Class means and a shared precision matrix: distance = Mahalanobis to nearest mean."""

    means: np.ndarray  # (classes, d)
    precision: np.ndarray  # (d, d)

    def __post_init__(self) -> None:
        # Cached terms so that a query costs one (d x d) product and one (d x classes).
        self._mp = (self.means @ self.precision).astype(np.float32)
        self._mpm = (self._mp * self.means).sum(axis=1).astype(np.float32)

    def min_distance(self, x: np.ndarray) -> np.ndarray:
        """Squared Mahalanobis distance to the nearest class mean, (n,) or a scalar array."""
        xp = x @ self.precision
        xpx = (xp * x).sum(axis=-1)
        d2 = xpx[..., None] - 2.0 * (x @ self._mp.T) + self._mpm
        out: np.ndarray = d2.min(axis=-1)
        return out

    @classmethod
    def fit(
        cls, x: np.ndarray, y: np.ndarray, n_classes: int, *, shrinkage: float = 0.3
    ) -> GaussianHead:
        """Means per class and the within-class covariance, shrunk toward a scaled identity.

        Shrinkage keeps the covariance well conditioned when a class has fewer examples
        than the embedding has dimensions (always, here).
        """
        x64 = x.astype(np.float64)
        means = np.stack([x64[y == c].mean(axis=0) for c in range(n_classes)])
        resid = x64 - means[y]
        cov = resid.T @ resid / max(1, len(x64))
        d = cov.shape[0]
        cov = (1.0 - shrinkage) * cov + shrinkage * (np.trace(cov) / d) * np.eye(d)
        precision = np.linalg.inv(cov)
        return cls(means=means.astype(np.float32), precision=precision.astype(np.float32))
