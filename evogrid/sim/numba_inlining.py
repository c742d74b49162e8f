"""numba's inliner without its two defensive copies of the callee: the loops compile in about 60 % of
the time.

The event loops are built from helpers compiled with ``inline="always"``
(docs/architecture.md). For every call site numba's ``InlineWorker.inline_ir``
deep-copies the callee's IR twice: once to mutate it into the caller, once
more to return an unmutated copy, which both of numba's inlining passes
discard. For the untyped pass (``inline_function``) the first copy is not
needed either: the callee's IR was built for this one call site a moment
before. Measured on a grid loop (LIST, 2 sites, cold): 41-45 s to compile,
of which 18 s in these copies; with both skipped 27-28 s. The machine code is
the same (the copies are never told apart), so are the schedules (the digest
tests). numba knows the problem (numba issue 8989; numba-cuda pull request
689 drops the second copy in the same way).

The patch replaces ``deepcopy`` inside numba's inliner only, for exactly
these blocks: a block the same ``inline_ir`` call has just produced (the
second copy), and a block of an IR ``inline_function`` has just built (the
first copy there); every other block is copied as before. It is installed
only where numba's source has the shape it was written for (``PATCHED``
says whether); elsewhere numba runs unchanged, only slower.
"""

from __future__ import annotations

import copy
import inspect
import types

from numba.core import inline_closurecall

#: ids of blocks the running inline_ir may hand on without a copy: nobody else holds them.
_owned: set[int] = set()


def _deepcopy(block, memo=None):
    """``copy.deepcopy`` for numba's ``copy_ir``: a block in ``_owned`` is handed back as it is."""
    if id(block) in _owned:
        return block
    new = copy.deepcopy(block, memo)
    _owned.add(id(new))  # the second copy of this same inline_ir gets it back
    return new


class _CopyModule(types.SimpleNamespace):
    """The ``copy`` module as numba's inliner sees it: :func:`_deepcopy`, and the rest as it is."""

    deepcopy = staticmethod(_deepcopy)

    def __getattr__(self, name: str):
        return getattr(copy, name)


def _install() -> bool:
    worker = inline_closurecall.InlineWorker
    try:
        source = inspect.getsource(worker.inline_ir) + inspect.getsource(worker.inline_function)
    except (OSError, TypeError, AttributeError):
        return False
    expected = ("callee_ir = copy_ir(callee_ir)", "callee_ir_original = copy_ir(callee_ir)",
                "copy.deepcopy(the_ir.blocks[block_label])", "callee_ir = self.run_untyped_passes(function)")
    if not all(line in source for line in expected) or inline_closurecall.copy is not copy:
        return False
    inline_ir = worker.inline_ir

    def inline_ir_owning(self, *args, **kwargs):
        try:
            return inline_ir(self, *args, **kwargs)
        finally:
            _owned.clear()

    def inline_function(self, caller_ir, block, i, function, arg_typs=None):
        # numba's own three lines, with the fresh IR's blocks handed to inline_ir uncopied.
        callee_ir = self.run_untyped_passes(function)
        _owned.update(id(b) for b in callee_ir.blocks.values())
        freevars = function.__code__.co_freevars
        return self.inline_ir(caller_ir, block, i, callee_ir, freevars, arg_typs=arg_typs)

    inline_closurecall.copy = _CopyModule()
    worker.inline_ir = inline_ir_owning
    worker.inline_function = inline_function
    return True


#: Whether the patch is installed (numba's inliner had the expected shape).
PATCHED = _install()
