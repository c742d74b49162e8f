"""Plots researchers want to look at (matplotlib, written to PNG files)."""

from __future__ import annotations

import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402

from evogrid.files import atomic_write_bytes  # noqa: E402
from evogrid.jobs_file import processor_layout  # noqa: E402
from evogrid.policy.rulebase import Rulebase  # noqa: E402

GRID_POINTS = 300
#: improvement_plot's lowest axis value (%) for per-seed dots: an improvement of -100 % is an AWRT
#: twice local's.
SEED_FLOOR_PCT = -100.0


def _save(fig: plt.Figure, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    buffer = io.BytesIO()  # written whole or not at all, as every file of a run directory
    fig.savefig(buffer, format=path.suffix.lstrip(".") or "png")
    plt.close(fig)
    atomic_write_bytes(path, buffer.getvalue())
    return path


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
    return _save(fig, path)


FRONT_COLOURS = ("#1f3b73", "#c0392b", "#27ae60", "#8e44ad")
POINT_MARKERS = {
    "local": ("*", "k"), "AWF": ("o", "#e67e22"), "AA": ("s", "#16a085"), "EASY-JS": ("^", "#2980b9"),
    "LIST-JS": ("v", "#8e44ad"), "FCFS-JS": ("<", "#7f8c8d"), "rulebase": ("P", "#d35400"),
}


def pareto_plot(
    path: str | Path,
    site_names: list[str],
    fronts: dict[str, np.ndarray],
    points: dict[str, list[float]],
) -> Path:
    """Fronts (label -> shape (P, K) AWRT in s) with reference points (label -> K AWRTs).

    Plots the first two sites' AWRT; the local point's lower-left quadrant
    (both sites better than without exchange) is shaded as the improvement
    region.
    """
    fig, ax = plt.subplots(figsize=(8.6, 5.2), dpi=120)
    local = points.get("local")
    every = [np.asarray(F)[:, :2] for F in fronts.values() if len(F)]
    every += [np.array([p[:2]]) for p in points.values()]
    allxy = np.vstack(every)
    lo, hi = allxy.min(axis=0), allxy.max(axis=0)
    pad = 0.05 * np.maximum(hi - lo, 1.0)
    if local is not None:
        ax.add_patch(plt.Rectangle((lo[0] - pad[0], lo[1] - pad[1]), local[0] - lo[0] + pad[0],
                                   local[1] - lo[1] + pad[1], color="#d5f5e3", zorder=0,
                                   label="improvement region"))
    for (label, F), colour in zip(fronts.items(), FRONT_COLOURS, strict=False):
        F = np.asarray(F)
        if len(F):
            F = F[np.argsort(F[:, 0])]
            ax.plot(F[:, 0], F[:, 1], "-o", ms=3, lw=1, c=colour, label=f"{label} ({len(F)} points)")
    for label, p in points.items():
        marker, colour = POINT_MARKERS.get(label, ("D", "#7f8c8d"))
        ax.scatter([p[0]], [p[1]], marker=marker, s=110 if label == "local" else 60, c=colour,
                   edgecolors="k", zorder=5, label=label)
    ax.set_xlim(lo[0] - pad[0], hi[0] + pad[0])
    ax.set_ylim(lo[1] - pad[1], hi[1] + pad[1])
    ax.set_xlabel(f"AWRT {site_names[0]} (s)")
    ax.set_ylabel(f"AWRT {site_names[1]} (s)" if len(site_names) > 1 else "")
    ax.set_title("Pareto front of per-site AWRT")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return _save(fig, path)


def convergence_plot(path: str | Path, rows: list[dict[str, str]]) -> Path:
    """Best and median parent fitness per generation and species (rows of generations.csv):
    AWRT (s) per site, or a joint ES's grid score."""
    fig, ax = plt.subplots(figsize=(7.2, 4.6), dpi=120)
    gens = [int(r["generation"]) for r in rows]
    metric = "score" if rows and "best_score_grid" in rows[0] else "awrt"
    prefix = f"best_{metric}_"
    sites = [key[len(prefix):] for key in rows[0] if key.startswith(prefix)] if rows else []
    for site, colour in zip(sites, FRONT_COLOURS * 4, strict=False):
        for stat, style in (("best", "-"), ("median", ":")):
            ax.plot(gens, [float(r[f"{stat}_{metric}_{site}"]) for r in rows], style, c=colour,
                    label=f"{site} {stat}")
    ax.set_yscale("log")
    ax.set_xlabel("generation")
    ax.set_ylabel("parent AWRT (s), training scenario" if metric == "awrt" else "parent grid score")
    ax.set_title("convergence")
    ax.legend(fontsize=7)
    return _save(fig, path)


def improvement_plot(path: str | Path, rows: list[dict]) -> Path:
    """AWRT improvement over local scheduling (%) per site: training vs unseen test windows.

    ``rows``: dicts with ``window`` (train/test), ``lrms``, ``site`` and
    ``improvement_pct`` (positive = better than local), as in a training
    run's summary; with ``std_pct`` (a spread over seeds) drawn as error bars.
    A row with ``per_seed`` (every seed's improvement, finite) is drawn as
    the seeds' median with each seed as a dot instead, so one collapsed seed
    neither drags the bar nor hides the others: the axis then stops at
    ``SEED_FLOOR_PCT``, seeds below it are one triangle there labelled with
    their values, and a median below it is labelled too.
    """
    groups = list(dict.fromkeys(f"{r['window']} {r['lrms'].upper()}" for r in rows))
    sites = list(dict.fromkeys(r["site"] for r in rows))
    by_key = {(f"{r['window']} {r['lrms'].upper()}", r["site"]): r for r in rows}
    for r in rows:
        seeds = r.get("per_seed")
        if seeds is not None and (len(seeds) == 0 or not np.all(np.isfinite(seeds))):
            raise ValueError(f"improvement_plot: {r['site']} {r['window']} {r['lrms']}: per_seed needs "
                             f"finite values, got {seeds}")
    seeded = any("per_seed" in r for r in rows)
    fig, ax = plt.subplots(figsize=(7.2, 4.6), dpi=120)
    width = 0.8 / max(len(groups), 1)
    for g, (group, colour) in enumerate(zip(groups, FRONT_COLOURS * 4, strict=False)):
        xs = np.arange(len(sites)) + (g - (len(groups) - 1) / 2) * width
        cells = [by_key.get((group, s)) for s in sites]
        ys = [np.nan if c is None else np.median(c["per_seed"]) if "per_seed" in c else c["improvement_pct"]
              for c in cells]
        errors = [0.0 if c is None or "per_seed" in c else c.get("std_pct", 0.0) for c in cells]
        medians = all(c is None or "per_seed" in c for c in cells)
        ax.bar(xs, ys, width, color=colour, label=f"{group} (median)" if seeded and medians else group,
               yerr=errors if any(errors) else None, capsize=3)
        if not seeded:
            continue
        for x, y, c in zip(xs, ys, cells, strict=True):
            seeds = np.asarray(c.get("per_seed", []) if c else [], dtype=float)
            shown = seeds[seeds >= SEED_FLOOR_PCT]
            ax.plot(np.full(shown.size, x), shown, "o", ms=3.5, mfc="white", mec="k", mew=0.8)
            below = [f"{v:+.0f}" for v in np.sort(seeds[seeds < SEED_FLOOR_PCT])]
            if y < SEED_FLOOR_PCT:  # the bar is cut at the axis: its value goes first
                below.insert(0, f"bar {y:+.0f}")
            if below:
                ax.plot([x], [SEED_FLOOR_PCT], "v", ms=6, color="k")
                ax.annotate(", ".join(below), (x, SEED_FLOOR_PCT), textcoords="offset points", xytext=(0, 6),
                            ha="center", fontsize=6, rotation=90 if len(below) > 1 else 0)
    if seeded:
        values = [v for r in rows for v in (r["per_seed"] if "per_seed" in r else
                                            [r["improvement_pct"] - r.get("std_pct", 0.0)])]
        lowest = min([0.0, *(v for v in values if v >= SEED_FLOOR_PCT)])
        if any(v < SEED_FLOOR_PCT for v in values):
            lowest = SEED_FLOOR_PCT
            ax.plot([], [], "v", ms=6, color="k", label=f"below {SEED_FLOOR_PCT:.0f} % (values)")
        ax.set_ylim(bottom=lowest - 8.0)
        ax.plot([], [], "o", ms=3.5, mfc="white", mec="k", mew=0.8, label="one seed")
    ax.axhline(0.0, c="k", lw=0.8)
    ax.set_xticks(np.arange(len(sites)), sites)
    ax.set_ylabel("AWRT improvement over local (%)")
    ax.set_title("learned policy vs local scheduling")
    ax.legend(fontsize=7)
    return _save(fig, path)


def _processor_blocks(m: int, items: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int, int]]:
    """Give each item ``(start, end, procs, tag)`` concrete processors of a machine of ``m`` (the
    layout of the per-job files, evogrid.jobs_file.processor_layout); returns ``(start, end,
    first_proc, count, tag)`` rectangles, several for an item whose processors are not contiguous."""
    held = processor_layout(m, [i[0] for i in items], [i[1] for i in items], [i[2] for i in items])
    blocks = []
    for (start, end, _, tag), mine in zip(items, held, strict=True):
        breaks = np.flatnonzero(np.diff(mine) > 1) + 1
        for run in np.split(mine, breaks):
            if run.size:
                blocks.append((start, end, int(run[0]), int(run.size), tag))
    return blocks


def gantt_plot(path: str | Path, schedule, requests, bookings, site: int,
               hours: tuple[float, float] | None = None) -> Path:
    """One site's processors over time: batch jobs (blue) and the reservation parts it holds
    (orange, hatched), between ``hours`` (from, to; default the whole schedule).

    Processors are numbered for the picture only (lowest free first): the
    simulator counts processors, it does not place jobs on particular ones.
    """
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Rectangle

    jobs = schedule.jobs
    mine = np.flatnonzero(schedule.ran_at(site) & (jobs.run_time > 0))
    items = [(int(schedule.start[j]), int(schedule.end[j]), int(jobs.procs[j]), 0) for j in mine]
    parts, seconds = bookings.held(requests)
    for r, i in zip(*np.nonzero((bookings.sites == site) & bookings.accepted[:, None]), strict=True):
        begin = int(bookings.start[r])
        items.append((begin, begin + int(seconds[r]), int(parts[r, i]), 1))
    m = int(jobs.machine_procs[site])
    lo, hi = (0.0, max((e for _, e, _, _ in items), default=1) / 3600) if hours is None else hours
    fig, ax = plt.subplots(figsize=(10, 4.8), dpi=120)
    shown = {0: [], 1: []}
    for start, end, first, count, tag in _processor_blocks(m, items):
        if end / 3600 >= lo and start / 3600 <= hi:
            shown[tag].append(Rectangle((start / 3600, first), (end - start) / 3600, count))
    ax.add_collection(PatchCollection(shown[0], facecolor="#9ecae1", edgecolor="#3182bd", linewidth=0.2))
    ax.add_collection(PatchCollection(shown[1], facecolor="#fdae6b", edgecolor="#e6550d", linewidth=0.6,
                                      hatch="//"))
    ax.set_xlim(lo, hi)
    ax.set_ylim(0, m)
    ax.set_xlabel("hours from the window start")
    ax.set_ylabel("processors")
    n_res = len(shown[1])
    ax.set_title(f"{jobs.workloads[site].name}: {len(shown[0])} job blocks (blue), "
                 f"{n_res} reservation blocks (orange), {bookings.algorithm}")
    return _save(fig, path)


#: What the reservation summary plot shows, with axis labels.
RESERVATION_MEASURES = (("failure_rate", "failure rate"), ("mean_relative_start", "mean relative start"),
                        ("unfairness", "unfairness"), ("messages_per_request", "messages per request"),
                        ("batch_awrt_mean", "batch AWRT, mean over sites (s)"),
                        ("batch_max_wait", "batch max wait (s)"))


def site_awrt_plot(path: str | Path, sites: list[str], bars: dict[str, tuple[list[float], list[float]]],
                   title: str) -> Path:
    """Grouped bars of per-site AWRT (s): for each label (policy), (mean per site, spread per site)."""
    means, spreads = (np.array([b[i] for b in bars.values()], dtype=float) for i in (0, 1))
    return grouped_bars_plot(path, {title: (list(bars), sites, means)}, "AWRT (s)", errors={title: spreads})


def reservation_summary_plot(path: str | Path, rows: list[dict]) -> Path:
    """The admission algorithms side by side (rows of ``evogrid reserve``'s summary): the reservation
    users' and the batch users' measures, one panel each."""
    fig, axes = plt.subplots(2, 3, figsize=(11, 6), dpi=120)
    names = [r["algorithm"] for r in rows]
    for ax, (key, label) in zip(axes.ravel(), RESERVATION_MEASURES, strict=True):
        ax.bar(range(len(rows)), [float(r[key]) for r in rows], color=FRONT_COLOURS[0])
        ax.set_xticks(range(len(rows)), names, rotation=30, ha="right", fontsize=8)
        ax.set_title(label, fontsize=9)
    fig.suptitle("admission algorithms: reservation users and batch users")
    fig.tight_layout()
    return _save(fig, path)


def reservation_front_plot(path: str | Path, fronts: dict[str, np.ndarray], points: dict[str, list[float]]
                           ) -> Path:
    """Fronts of (reservation failure rate, mean batch AWRT in s) with the algorithms as points; a
    front of per-site AWRTs (more than two columns) is drawn at the mean over its sites."""
    from evogrid.optimize.reservation_front import at_mean_awrt  # here: it imports pymoo

    fig, ax = plt.subplots(figsize=(8.6, 5.2), dpi=120)
    points = {label: at_mean_awrt(np.array([p]))[0].tolist() for label, p in points.items()}
    for (label, F), colour in zip(fronts.items(), FRONT_COLOURS, strict=False):
        F = np.asarray(F, dtype=float)
        if len(F):
            F = at_mean_awrt(F)
            F = F[np.argsort(F[:, 0])]
            ax.plot(F[:, 0], F[:, 1], "-o", ms=3, lw=1, c=colour, label=f"{label} ({len(F)} points)")
    for (label, p), marker in zip(points.items(), "sDv^P", strict=False):
        ax.scatter([p[0]], [p[1]], marker=marker, s=60, edgecolors="k", zorder=5, label=label)
    ax.set_xlabel("reservation failure rate")
    ax.set_ylabel("batch AWRT, mean over sites (s)")
    ax.set_title("grid users against local users")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return _save(fig, path)


def grouped_bars_plot(path: str | Path, panels: dict[str, tuple[list[str], list[str], np.ndarray]],
                      ylabel: str, xlabel: str = "", ylim: tuple[float, float] | None = None,
                      errors: dict[str, np.ndarray] | None = None) -> Path:
    """One panel per title: grouped bars, ``(series, groups, values)`` with values of shape (series,
    groups) (NaN: no bar), one colour per series; e.g. per-site AWRT of policies, or the
    dissertation's Figs. 8.6 and 9.4 (series: sites, groups: width classes) or 8.2-8.5 (series:
    algorithms, groups: sites). ``errors``: per title, error bars of the values' shape."""
    fig, axes = plt.subplots(len(panels), 1, figsize=(9.5, 3.2 * len(panels)), dpi=120, squeeze=False)
    colours = plt.get_cmap("tab10")
    for ax, (title, (series, groups, values)) in zip(axes[:, 0], panels.items(), strict=True):
        width = 0.8 / len(series)
        x = np.arange(len(groups))
        for k, name in enumerate(series):
            spread = None if errors is None or title not in errors else errors[title][k]
            ax.bar(x + (k - (len(series) - 1) / 2) * width, np.nan_to_num(values[k]), width, yerr=spread,
                   capsize=2, label=name, color=colours(k % 10))
        ax.set_xticks(x, groups, fontsize=8)
        if ylim is not None:
            ax.set_ylim(*ylim)
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=10)
        if len(series) > 4:  # beside the panel: over it, a long legend hides bars
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        else:
            ax.legend(fontsize=7)
    axes[-1, 0].set_xlabel(xlabel)
    return _save(fig, path)


def quantile_box_plot(path: str | Path, groups: dict[str, list[np.ndarray]], members: list[str],
                      ylabel: str, title: str) -> Path:
    """Box plots with whiskers at the 5 % and 95 % quantiles (no outliers drawn), as the
    dissertation's Fig. 8.7: per group (a strategy) one box per member (a scenario), in order."""
    fig, ax = plt.subplots(figsize=(9.5, 4.2), dpi=120)
    colours = plt.get_cmap("tab10")
    width = 0.8 / len(members)
    for g, samples in enumerate(groups.values()):
        positions = [g + (i - (len(members) - 1) / 2) * width for i in range(len(members))]
        boxes = ax.boxplot(samples, positions=positions, widths=width * 0.85, whis=(5, 95), showfliers=False,
                           patch_artist=True)
        for i, box in enumerate(boxes["boxes"]):
            box.set_facecolor(colours(i % 10))
    ax.set_xticks(range(len(groups)), list(groups))
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend([plt.Rectangle((0, 0), 1, 1, color=colours(i % 10)) for i in range(len(members))], members,
              fontsize=7)
    return _save(fig, path)


def sorted_curves_plot(path: str | Path, curves: dict[str, np.ndarray], xlabel: str, ylabel: str,
                       title: str) -> Path:
    """One line per label, its values (> 0: the axis is logarithmic) sorted in increasing order against
    their rank (1, 2, ...), as Röblitz et al.'s Fig. 8 draws the batch jobs' additional waits per
    book-ahead time."""
    fig, ax = plt.subplots(figsize=(7.5, 4.6), dpi=120)
    for label, values in curves.items():
        values = np.sort(np.asarray(values, dtype=float))
        ax.plot(np.arange(1, len(values) + 1), values, lw=1.2, label=f"{label} ({len(values)})")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7)
    return _save(fig, path)
