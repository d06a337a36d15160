"""Fitting the network leaf to value targets: a batched forward pass, its hand-written backward
pass, the Huber loss, Adam, and a finite-difference check of the gradient (numpy, no numba).

The network is the class of :mod:`engines.leaves.nnue_class`: a first layer that sums the rows
of a state's 135 active features (:func:`engines.leaves.nnue_ref.active_features`), ReLU, a
dense middle layer, ReLU, one output in units of one rise (17,000 points).  Here it runs in
float64 on a whole batch at once (the leaf plays the float32 rounding of these parameters);
every sum is a numpy reduction in a fixed order and the first layer's gradient is accumulated
with ``np.add.at`` in row order, so a fit is the same bits on every run.

The loss is the register's (keshavsaharia/drop7-bench,
``approaches/lifetime-objective/nnue-evolution/src/bin/pretrain.rs``): the Huber loss with
``delta = 1`` rise between the output and the target, averaged over the batch; the optimiser
Adam (beta 0.9 and 0.999, eps 1e-8).  :func:`gradient_error` compares the backward pass with
central differences of the loss, so a wrong gradient (a flipped sign, a missing ReLU mask)
stops a fit before it starts instead of training quietly on nonsense.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engines.leaves.nnue_class import Sizes

#: the Huber loss's threshold, in rises
HUBER_DELTA = 1.0
ADAM_BETA1, ADAM_BETA2, ADAM_EPS = 0.9, 0.999, 1e-8


def segments(sizes: Sizes) -> list[tuple[int, int]]:
    """Each tensor's bounds in the flat parameters (ft, ft_bias, w1, b1, w2, b2)."""
    bounds = [0, sizes.ft_bias, sizes.w1, sizes.b1, sizes.w2, sizes.b2, sizes.parameters]
    return list(zip(bounds, bounds[1:], strict=False))


def _split(params: np.ndarray, sizes: Sizes) -> tuple[np.ndarray, ...]:
    """Views of the flat parameters: ft [F, h], ft_bias [h], w1 [h, m], b1 [m], w2 [m], b2."""
    h, m = sizes.hidden, sizes.mid
    return (params[:sizes.ft_bias].reshape(-1, h), params[sizes.ft_bias:sizes.w1],
            params[sizes.w1:sizes.b1].reshape(h, m), params[sizes.b1:sizes.w2],
            params[sizes.w2:sizes.b2], params[sizes.b2:sizes.b2 + 1])


def forward(params: np.ndarray, sizes: Sizes, features: np.ndarray) -> np.ndarray:
    """The network's outputs (rises) for a batch of active-feature rows ``[B, 135]``."""
    return _forward(params, sizes, features)[0]


def _forward(params, sizes, features):
    ft, ft_bias, w1, b1, w2, b2 = _split(params, sizes)
    acc = ft_bias + ft[features].sum(axis=1)
    hidden = np.maximum(acc, 0.0)
    pre = b1 + hidden @ w1
    mid = np.maximum(pre, 0.0)
    return b2[0] + mid @ w2, acc, hidden, pre, mid


def huber(diff: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Huber loss of each error and its derivative."""
    small = np.abs(diff) <= HUBER_DELTA
    loss = np.where(small, 0.5 * diff * diff, HUBER_DELTA * (np.abs(diff) - 0.5 * HUBER_DELTA))
    return loss, np.where(small, diff, HUBER_DELTA * np.sign(diff))


def loss_and_gradient(params: np.ndarray, sizes: Sizes, features: np.ndarray,
                      targets: np.ndarray) -> tuple[float, np.ndarray]:
    """The batch's mean Huber loss and its gradient with respect to the flat parameters."""
    out, acc, hidden, pre, mid = _forward(params, sizes, features)
    loss, d_out = huber(out - targets)
    d_out = d_out / len(targets)
    grad = np.zeros_like(params)
    g_ft, g_ft_bias, g_w1, g_b1, g_w2, g_b2 = _split(grad, sizes)
    _, _, w1, _, w2, _ = _split(params, sizes)
    g_b2[0] = d_out.sum()
    g_w2[:] = mid.T @ d_out
    d_pre = np.outer(d_out, w2) * (pre > 0)
    g_b1[:] = d_pre.sum(axis=0)
    g_w1[:] = hidden.T @ d_pre
    d_acc = (d_pre @ w1.T) * (acc > 0)
    g_ft_bias[:] = d_acc.sum(axis=0)
    np.add.at(g_ft, features.ravel(), np.repeat(d_acc, features.shape[1], axis=0))
    return float(loss.mean()), grad


def gradient_error(params: np.ndarray, sizes: Sizes, features: np.ndarray, targets: np.ndarray,
                   coordinates: np.ndarray, step: float = 1e-6) -> float:
    """The largest difference, relative to the gradient's scale, between
    :func:`loss_and_gradient` and central differences of the loss at ``coordinates``."""
    _, grad = loss_and_gradient(params, sizes, features, targets)
    worst, scale = 0.0, max(float(np.abs(grad[coordinates]).max()), 1e-12)
    for i in coordinates:
        up, down = params.copy(), params.copy()
        up[i] += step
        down[i] -= step
        numeric = (loss_and_gradient(up, sizes, features, targets)[0]
                   - loss_and_gradient(down, sizes, features, targets)[0]) / (2 * step)
        worst = max(worst, abs(numeric - grad[i]) / scale)
    return worst


@dataclass
class Adam:
    """Adam's moments and step count (the state a fit checkpoints)."""

    m: np.ndarray
    v: np.ndarray
    step: int
    rate: float

    @classmethod
    def start(cls, size: int, rate: float) -> Adam:
        return cls(np.zeros(size), np.zeros(size), 0, rate)

    def apply(self, params: np.ndarray, grad: np.ndarray) -> None:
        """One step on ``params`` (in place)."""
        self.step += 1
        self.m = ADAM_BETA1 * self.m + (1 - ADAM_BETA1) * grad
        self.v = ADAM_BETA2 * self.v + (1 - ADAM_BETA2) * grad * grad
        m_hat = self.m / (1 - ADAM_BETA1 ** self.step)
        v_hat = self.v / (1 - ADAM_BETA2 ** self.step)
        params -= self.rate * m_hat / (np.sqrt(v_hat) + ADAM_EPS)
