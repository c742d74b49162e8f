"""Plots researchers want to look at (matplotlib, written to PNG files)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402

from evogrid.policy.rulebase import Rulebase  # noqa: E402

GRID_POINTS = 300


def decision_surface(
    rb: Rulebase,
    path: str | Path,
    *,
    visited: np.ndarray | None = None,
    title: str | None = None,
) -> Path:
    """Accept/decline regions of ``rb`` over its first two features.

    Other features (if any) are held at the middle of their range. The
    rule centres are marked (+ accept, x decline); ``visited`` (shape
    (P, N_f), e.g. a simulation's DecisionLog.x) is overlaid as dots.
    """
    (x_lo, x_hi), (y_lo, y_hi) = rb.ranges[0], rb.ranges[1] if rb.ranges.shape[0] > 1 else (0.0, 1.0)
    if visited is not None and len(visited):
        x_hi = max(x_hi, float(np.quantile(visited[:, 0], 0.99)))
    gx, gy = np.meshgrid(np.linspace(x_lo, x_hi, GRID_POINTS), np.linspace(y_lo, y_hi, GRID_POINTS))
    points = np.tile(rb.ranges.mean(axis=1), (gx.size, 1))
    points[:, 0] = gx.ravel()
    if rb.ranges.shape[0] > 1:
        points[:, 1] = gy.ravel()
    y = rb.output(points).reshape(gx.shape)
    fig, ax = plt.subplots(figsize=(6.4, 4.8), dpi=120)
    ax.pcolormesh(gx, gy, y > 0, cmap=ListedColormap(["#f4b6b6", "#b9e3b9"]), shading="auto")
    ax.contour(gx, gy, y, levels=[0.0], colors="k", linewidths=0.8)
    if visited is not None and len(visited):
        shown = visited if len(visited) <= 20000 else visited[:: len(visited) // 20000 + 1]
        ax.scatter(shown[:, 0], shown[:, 1] if shown.shape[1] > 1 else np.zeros(len(shown)),
                   s=2, c="#1f3b73", alpha=0.25, label=f"visited ({len(visited):,} decisions)")
    for b, marker, name in ((1.0, "+", "accept rule"), (-1.0, "x", "decline rule")):
        mine = rb.consequents == b
        if mine.any():
            cy = rb.centers[mine, 1] if rb.centers.shape[1] > 1 else np.zeros(int(mine.sum()))
            ax.scatter(rb.centers[mine, 0], cy, marker=marker, s=60, c="k", label=name)
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)
    ax.set_xlabel(rb.features[0])
    ax.set_ylabel(rb.features[1] if len(rb.features) > 1 else "")
    ax.set_title(title or "decision surface: green = accept, red = decline")
    ax.legend(loc="upper right", fontsize=7)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
