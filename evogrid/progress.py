"""Progress of long work: a rich bar on a terminal, plain lines otherwise (no numpy or numba here,
so light commands and scripts can show it)."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.progress import Progress

#: Without a terminal, at most one progress line per this many seconds (and the last count).
PLAIN_PROGRESS_SECONDS = 10.0


@contextlib.contextmanager
def progress_report(enabled: bool, label: str, total: int, done: int, unit: str = "generation"
                    ) -> Iterator[Callable[[int], None]]:
    """``show(count)``: a rich progress bar on a terminal; otherwise (CI logs, nohup, notebooks)
    plain lines on stderr, ``<label>: <unit> count/total, s s``, one per PLAIN_PROGRESS_SECONDS and
    the last."""
    if not enabled:
        yield lambda count: None
    elif sys.stderr.isatty():
        with Progress(console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task(label, total=total, completed=done)
            yield lambda count: bar.update(task, completed=count)
    else:
        started = time.perf_counter()
        last = -PLAIN_PROGRESS_SECONDS

        def line(count: int) -> None:
            nonlocal last
            now = time.perf_counter() - started
            if now - last >= PLAIN_PROGRESS_SECONDS or count >= total:
                print(f"{label}: {unit} {count}/{total}, {now:.0f} s", file=sys.stderr, flush=True)
                last = now

        yield line
