"""Zero-order Takagi-Sugeno-Kang rulebases as arrays, evaluated safely (spec 2.3).

Rule i fires with ``phi_i(x) = exp(e_i)``, ``e_i = -sum_h (x_h - c_ih)^2 / w_ih^2``
and the output is ``y = sum_i phi_i b_i / sum_i phi_i``. Both evaluators
shift the exponents by their maximum first (log-sum-exp), so the
denominator is at least 1: there is no 0/0 when every rule is numerically
silent, and then the nearest rule (largest e_i) decides. Accept iff y > 0.

Several rulebases travel together as one padded stack (:class:`TSKStack`);
the compiled loop picks one by index.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit


@dataclass(frozen=True)
class TSKStack:
    """R rulebases padded to the largest rule and feature counts.

    Attributes:
        centers, widths: float64, shape (R, NR, NF).
        consequents: float64, shape (R, NR), +1 accept / -1 decline.
        n_rules: int64, shape (R,), rules used in each rulebase.
        features: int64, shape (R, NF), feature codes (evogrid.sim.features).
        n_features: int64, shape (R,).
    """

    centers: np.ndarray
    widths: np.ndarray
    consequents: np.ndarray
    n_rules: np.ndarray
    features: np.ndarray
    n_features: np.ndarray

    @classmethod
    def stack(
        cls,
        rulebases: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray, Sequence[int]]],
    ) -> TSKStack:
        """Stack ``(centers (NR, NF), widths (NR, NF), consequents (NR,), feature codes)`` tuples."""
        R = len(rulebases)
        NR = max((len(r[2]) for r in rulebases), default=1)
        NF = max((len(r[3]) for r in rulebases), default=1)
        centers = np.zeros((R, NR, NF))
        widths = np.ones((R, NR, NF))
        consequents = np.zeros((R, NR))
        features = np.zeros((R, NF), dtype=np.int64)
        for r, (c, w, b, f) in enumerate(rulebases):
            nr, nf = len(b), len(f)
            centers[r, :nr, :nf] = c
            widths[r, :nr, :nf] = w
            consequents[r, :nr] = b
            features[r, :nf] = f
        return cls(
            centers, widths, consequents,
            np.array([len(r[2]) for r in rulebases], dtype=np.int64), features,
            np.array([len(r[3]) for r in rulebases], dtype=np.int64),
        )

    @classmethod
    def empty(cls) -> TSKStack:
        return cls.stack([])

    def packed(self) -> tuple[np.ndarray, np.ndarray]:
        """The two arrays the compiled loop takes (numba reference-counts every array
        passed to a call, so fewer arrays per decision are cheaper).

        Returns:
            params: float64, shape (R, NR, 2 NF + 1): per rule the centres,
                the widths and the consequent.
            meta: int64, shape (R, 2 + NF): rules used, features used, the
                feature codes.
        """
        params = np.concatenate([self.centers, self.widths, self.consequents[:, :, None]], axis=2)
        meta = np.concatenate([self.n_rules[:, None], self.n_features[:, None], self.features], axis=1)
        return np.ascontiguousarray(params), np.ascontiguousarray(meta.astype(np.int64))


#: Columns of the packed ``meta`` array.
META_RULES, META_FEATURES, META_CODES = 0, 1, 2


@njit(cache=True, inline="always")
def _exponent(params, r, i, nf, NF, x):
    e = 0.0
    for h in range(nf):
        d = x[h] - params[r, i, h]
        w = params[r, i, NF + h]
        e -= d * d / (w * w)
    return e


@njit(cache=True)
def tsk_output(params, meta, r, x):
    """Output y in [-1, 1] of rulebase ``r`` of a packed stack at the point ``x`` (shape (NF,))."""
    NF = (params.shape[2] - 1) // 2
    nf = meta[r, META_FEATURES]
    top = -np.inf
    for i in range(meta[r, META_RULES]):
        e = _exponent(params, r, i, nf, NF, x)
        if e > top:
            top = e
    num = 0.0
    den = 0.0
    for i in range(meta[r, META_RULES]):
        phi = np.exp(_exponent(params, r, i, nf, NF, x) - top)
        num += phi * params[r, i, 2 * NF]
        den += phi
    return num / den


def tsk_output_numpy(
    centers: np.ndarray, widths: np.ndarray, consequents: np.ndarray, x: np.ndarray
) -> np.ndarray:
    """Vectorised y for one rulebase at many points.

    Args:
        centers, widths: shape (NR, NF); consequents: shape (NR,).
        x: shape (P, NF), P points.

    Returns:
        y: shape (P,), in [-1, 1]; accept where y > 0.
    """
    d = x[:, None, :] - centers[None, :, :]
    e = -(d * d / (widths * widths)[None, :, :]).sum(axis=2)  # (P, NR)
    phi = np.exp(e - e.max(axis=1, keepdims=True))
    return (phi * consequents[None, :]).sum(axis=1) / phi.sum(axis=1)
