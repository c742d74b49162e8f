"""Hypothesis strategies that draw a whole list of small integers (or floats) at once.

``st.lists(st.integers(...))`` draws element by element, and in the
cross-checks that bookkeeping took about four fifths of each example's
time (cProfile: 8 ms of generation against 1 ms of simulation and
reference). One byte string per list is one draw; bytes shrink towards
zero, so the values shrink towards ``lo`` as a list of integers would.
"""

from __future__ import annotations

from functools import cache

from hypothesis import strategies as st


@cache  # a new strategy object is validated on its first draw, which costs as much as the draw
def int_list(n: int, lo: int, hi: int) -> st.SearchStrategy[list[int]]:
    """``n`` integers in ``[lo, hi]`` (a span of at most 256 values), each from one byte."""
    span = hi - lo + 1
    if not 1 <= span <= 256:
        raise ValueError(f"int_list: [{lo}, {hi}] is not 1 to 256 values")
    return st.binary(min_size=n, max_size=n).map(lambda b: [lo + x % span for x in b])


@cache
def float_list(n: int, lo: float, hi: float) -> st.SearchStrategy[list[float]]:
    """``n`` floats in ``[lo, hi]``, each from two bytes (65,536 evenly spaced values, both ends
    included); they shrink towards ``lo``."""
    if not lo <= hi:
        raise ValueError(f"float_list: [{lo}, {hi}] is empty")
    return st.binary(min_size=2 * n, max_size=2 * n).map(
        lambda b: [lo + (hi - lo) * int.from_bytes(b[i:i + 2], "big") / 65_535 for i in range(0, 2 * n, 2)])
