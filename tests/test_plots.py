"""The standard plots draw what their docstrings promise (read back from the figure, not the PNG)."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from evogrid import plots


def _drawn(monkeypatch, rows):
    kept = {}

    def keep(fig, path):
        kept["fig"] = fig
        return path

    monkeypatch.setattr(plots, "_save", keep)
    plots.improvement_plot("unused.png", rows)
    return kept["fig"].axes[0]


def test_per_seed_rows_draw_the_median_and_every_seed_with_a_collapse_at_the_floor(monkeypatch):
    rows = [{"window": "test", "lrms": "fcfs", "site": "KTH", "improvement_pct": -290.0,
             "per_seed": [12.0, 30.0, -900.0]},
            {"window": "test", "lrms": "fcfs", "site": "CTC", "improvement_pct": 5.0,
             "per_seed": [4.0, 6.0, 5.0]}]
    ax = _drawn(monkeypatch, rows)
    assert [round(p.get_height(), 6) for p in ax.patches] == [12.0, 5.0]  # medians, not means
    dots = np.concatenate([line.get_ydata() for line in ax.lines if line.get_marker() == "o"])
    assert sorted(dots.tolist()) == [4.0, 5.0, 6.0, 12.0, 30.0]
    floor = [line for line in ax.lines if line.get_marker() == "v" and len(line.get_ydata())]  # legend: empty
    assert len(floor) == 1 and floor[0].get_ydata()[0] == plots.SEED_FLOOR_PCT
    assert [t.get_text() for t in ax.texts] == ["-900"]
    assert ax.get_ylim()[0] < plots.SEED_FLOOR_PCT
    plt.close("all")


def test_single_run_rows_draw_their_value_with_the_spread_as_error_bars(monkeypatch):
    rows = [{"window": "train", "lrms": "fcfs", "site": "KTH", "improvement_pct": -250.0, "std_pct": 3.0}]
    ax = _drawn(monkeypatch, rows)
    assert [p.get_height() for p in ax.patches] == [-250.0]
    assert not any(line.get_marker() in ("o", "v") for line in ax.lines)
    assert ax.get_ylim()[0] <= -250.0
    plt.close("all")


def test_a_collapsed_median_and_several_low_seeds_share_one_labelled_triangle(monkeypatch):
    rows = [{"window": "test", "lrms": "easy", "site": "SDSC00", "improvement_pct": 0.0,
             "per_seed": [-300.0, -400.0, 5.0]}]
    ax = _drawn(monkeypatch, rows)
    assert [p.get_height() for p in ax.patches] == [-300.0]
    assert len([line for line in ax.lines if line.get_marker() == "v" and len(line.get_ydata())]) == 1
    assert [t.get_text() for t in ax.texts] == ["bar -300, -400, -300"]
    plt.close("all")


def test_seeds_above_the_floor_set_the_axis_and_plain_rows_mix_with_seeded_ones(monkeypatch):
    rows = [{"window": "train", "lrms": "fcfs", "site": "KTH", "improvement_pct": 9.0,
             "per_seed": [-20.0, 10.0, 30.0]},
            {"window": "test", "lrms": "fcfs", "site": "KTH", "improvement_pct": 4.0, "std_pct": 1.0}]
    ax = _drawn(monkeypatch, rows)
    assert [p.get_height() for p in ax.patches] == [10.0, 4.0]
    assert ax.get_ylim()[0] == -28.0 and not ax.texts
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert sorted(labels) == ["one seed", "test FCFS", "train FCFS (median)"]
    plt.close("all")


def test_seeds_that_are_not_finite_are_refused(monkeypatch):
    rows = [{"window": "test", "lrms": "fcfs", "site": "KTH", "improvement_pct": 0.0,
             "per_seed": [1.0, float("nan")]}]
    with pytest.raises(ValueError, match="KTH test fcfs: per_seed needs finite"):
        _drawn(monkeypatch, rows)


def test_sorted_curves_draw_each_label_in_increasing_order_on_a_log_axis(monkeypatch):
    kept = {}
    monkeypatch.setattr(plots, "_save", lambda fig, path: kept.setdefault("fig", fig))
    plots.sorted_curves_plot("unused.png", {"0 h": np.array([30.0, 2.0, 700.0]), "24 h": np.array([5.0])},
                             "rank", "additional wait (s)", "title")
    ax = kept["fig"].axes[0]
    assert [line.get_ydata().tolist() for line in ax.lines] == [[2.0, 30.0, 700.0], [5.0]]
    assert [line.get_xdata().tolist() for line in ax.lines] == [[1, 2, 3], [1]]
    assert ax.get_yscale() == "log"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["0 h (3)", "24 h (1)"]
    plt.close("all")
