"""The numpy heads: softmax regression and the shared-covariance Gaussian."""

from __future__ import annotations

import numpy as np
import pytest

from understanding.intents.heads import GaussianHead, SoftmaxHead, log_softmax, softmax


def blobs(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centers = np.eye(3, 8, dtype=np.float32) * 4.0
    y = np.repeat(np.arange(3), 30)
    x = centers[y] + rng.normal(scale=0.5, size=(90, 8)).astype(np.float32)
    return x, y


def test_softmax_head_separates_blobs_deterministically() -> None:
    x, y = blobs()
    head = SoftmaxHead.fit(x, y, 3, min_steps=300)
    assert (head.logits(x).argmax(axis=1) == y).mean() == 1.0
    again = SoftmaxHead.fit(x, y, 3, min_steps=300)
    np.testing.assert_array_equal(head.weight, again.weight)
    assert head.logits(x[0]).shape == (3,)


def test_warm_start_continues_from_the_given_head() -> None:
    x, y = blobs()
    head = SoftmaxHead.fit(x, y, 3, min_steps=300)
    seen = []
    refit = SoftmaxHead.fit(
        x, y, 3, init=head, min_steps=4, min_epochs=1, on_epoch=lambda e, n: seen.append((e, n))
    )
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert np.abs(refit.weight - head.weight).max() < 0.05
    with pytest.raises(ValueError, match="init head"):
        SoftmaxHead.fit(x, y, 4, init=head)


def test_gaussian_head_distance_is_zero_at_a_class_mean() -> None:
    x, y = blobs()
    head = GaussianHead.fit(x, y, 3, shrinkage=0.3)
    d = head.min_distance(head.means)
    np.testing.assert_allclose(d, 0.0, atol=1e-3)
    far = head.min_distance(np.full((1, 8), 50.0, dtype=np.float32))
    assert far[0] > head.min_distance(x).max()


def test_softmax_helpers_are_stable() -> None:
    z = np.array([[1000.0, 1000.0], [0.0, -1000.0]])
    np.testing.assert_allclose(softmax(z), [[0.5, 0.5], [1.0, 0.0]])
    np.testing.assert_allclose(np.exp(log_softmax(z)), softmax(z))
