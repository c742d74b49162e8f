"""Zero-order Takagi-Sugeno-Kang rulebases as arrays, evaluated safely (docs/grid.md).

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

from evogrid.sim.numba_stamp import njit
from evogrid.sim.registry import FEATURES

#: Columns of :attr:`TSKStack.meta`.
META_RULES, META_FEATURES, META_CODES = 0, 1, 2


@dataclass(frozen=True)
class TSKStack:
    """R rulebases in two padded arrays, as the compiled loop takes them.

    Two arrays rather than one per field keep the compiled loop's argument
    lists short.

    Attributes:
        params: float64, shape (R, NR, 2 NF + 1): per rule the NF centres,
            the NF precisions 1 / width^2 (a multiply in the loop is several
            times cheaper than a divide) and the consequent (+1 accept, -1
            decline).
        meta: int64, shape (R, 2 + NF): rules used, features used, then the
            feature codes (evogrid.sim.features).
        bounds: float64, shape (R, NF, 2): per feature the [low, high] beyond which a transfer
            decision is taken as AWF (evogrid.sim.transfers.rulebase); -inf, inf: never (the
            default).
    """

    params: np.ndarray
    meta: np.ndarray
    bounds: np.ndarray | None = None

    def __post_init__(self) -> None:
        shape = (self.params.shape[0], (self.params.shape[2] - 1) // 2, 2)
        if self.bounds is None:
            unbounded = np.empty(shape)
            unbounded[:, :, 0], unbounded[:, :, 1] = -np.inf, np.inf
            object.__setattr__(self, "bounds", unbounded)
        elif self.bounds.shape != shape:
            raise ValueError(f"bounds of shape {self.bounds.shape}; this stack needs {shape}")

    @classmethod
    def stack(
        cls,
        rulebases: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray, Sequence[int]]],
        ranges: Sequence[np.ndarray] | None = None,
    ) -> TSKStack:
        """Stack ``(centers (NR, NF), widths (NR, NF), consequents (NR,), feature codes)`` tuples;
        ``ranges`` (one (NF, 2) array per rulebase): the bounds beyond which a decision is AWF's
        (None: no bounds).

        Raises ValueError for a feature code not in :data:`evogrid.sim.registry.FEATURES` (a
        transfer loop makes an admission feature NaN, so such a rulebase never accepts there).
        """
        known = {f.code for f in FEATURES.values()}
        for *_, codes in rulebases:
            unknown = sorted(set(int(c) for c in codes) - known)
            if unknown:
                raise ValueError(f"feature codes {unknown} are not registered "
                                 "(evogrid.sim.registry.FEATURES)")
        R = len(rulebases)
        NR = max((len(r[2]) for r in rulebases), default=1)
        NF = max((len(r[3]) for r in rulebases), default=1)
        params = np.zeros((R, NR, 2 * NF + 1))
        params[:, :, NF : 2 * NF] = 1.0
        meta = np.zeros((R, META_CODES + NF), dtype=np.int64)
        for r, (c, w, b, f) in enumerate(rulebases):
            nr, nf = len(b), len(f)
            params[r, :nr, :nf] = c
            params[r, :nr, NF : NF + nf] = 1.0 / (np.asarray(w, dtype=np.float64) ** 2)
            params[r, :nr, 2 * NF] = b
            meta[r, META_RULES] = nr
            meta[r, META_FEATURES] = nf
            meta[r, META_CODES : META_CODES + nf] = f
        stack = cls(params, meta)
        if ranges is not None:
            for r, bounds in enumerate(ranges):
                stack.bounds[r, : len(bounds)] = bounds
        return stack

    @classmethod
    def empty(cls) -> TSKStack:
        return cls.stack([])

    def __len__(self) -> int:
        return self.params.shape[0]


@njit(cache=True, inline="always")
def rulebase_output(params, meta, r, x, e):
    """Output y in [-1, 1] of rulebase ``r`` of a stack (``params``, ``meta``) at the point ``x``.

    ``e`` is scratch space for the exponents (at least ``NR`` floats). Two
    passes without branches on the data (exponents and their maximum, then
    the shifted exponentials): measured faster than one pass that rescales
    its sums whenever a larger exponent comes (docs/benchmarks.md).
    """
    NF = (params.shape[2] - 1) // 2
    nf = meta[r, META_FEATURES]
    nr = meta[r, META_RULES]
    top = -np.inf
    for i in range(nr):
        s = 0.0
        for h in range(nf):
            d = x[h] - params[r, i, h]
            s -= d * d * params[r, i, NF + h]
        e[i] = s
        top = max(top, s)
    num = 0.0
    den = 0.0
    for i in range(nr):
        phi = np.exp(e[i] - top)
        num += phi * params[r, i, 2 * NF]
        den += phi
    return num / den


@njit(cache=True)
def tsk_output(params, meta, r, x):
    """:func:`rulebase_output` with its own scratch space (for callers outside the loop)."""
    return rulebase_output(params, meta, r, x, np.empty(params.shape[1]))


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
