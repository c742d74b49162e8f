"""numba's inliner without its defensive copies of the callee: the loops compile in 50-68 % of the time.

The event loops are built from helpers compiled with ``inline="always"``
(docs/architecture.md). For every call site numba's ``InlineWorker.inline_ir``
deep-copies the callee's IR twice: once to mutate it into the caller, once
more (of that copy) to return an unmutated callee IR, which both of numba's
inlining passes discard. For the untyped pass (``inline_function``) the first
copy protects nothing either: the callee's IR was built for this one call
site a moment before. Profiled on a grid loop (LIST, 2 sites, cold): 17.7 of
41.3 s to compile went to these copies (docs/benchmarks.md, "Compile time").
numba knows the problem (https://github.com/numba/numba/issues/8989); a change proposed to numba-cuda
(https://github.com/NVIDIA/numba-cuda/pull/689) drops the second copy by
returning the incoming IR.

What the patch changes, inside numba's inliner only:

- the second copy hands back the blocks the first copy was made from (the
  incoming IR, unmutated), as numba-cuda's change does;
- in ``inline_function`` the fresh IR's blocks go to ``inline_ir`` uncopied;
  the IR it returns as unmutated is then the inlined one (numba's one caller
  of ``inline_function``, the untyped ``InlineInlinables`` pass, discards it);
- every other block is deep-copied as before.

The machine code is the same (``tests/test_numba_inlining.py`` compares the
assembly), and so are the schedules (the digest tests). The patch is installed
only where numba's inliner is the code it was written for (a hash of its two
methods' source, and both callers discarding the returned IR); ``PATCHED`` says
whether. Elsewhere numba runs unchanged, only slower.
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import re
import types

from numba.core import inline_closurecall, typed_passes, untyped_passes

#: sha256 of the source of ``InlineWorker.inline_ir`` and ``inline_function`` the patch was written
#: for (numba 0.68.1).
KNOWN_SOURCE = "91d27ef12278d55e4d5fcac96033459ebbb15eb9a0b195bc66c17345e982b03e"
#: How numba's two inlining passes call the worker: both discard the returned callee IR.
_DISCARDING_CALL = re.compile(r"_, _, _, new_blocks = \\?\s*inline_worker\.inline_(function|ir)\(")

#: id -> block for the running ``inline_ir``: a fresh callee block maps to itself (both copies hand
#: it on), a first copy to the block it was made from (the second copy hands that back). Holding
#: the blocks keeps their ids from being reused while they are listed.
_source_of: dict[int, object] = {}


def _deepcopy(block, memo=None):
    """``copy.deepcopy`` as numba's ``copy_ir`` calls it (module docstring)."""
    source = _source_of.get(id(block))
    if source is not None:
        return source
    new = copy.deepcopy(block, memo)
    _source_of[id(new)] = block
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
        callers = _DISCARDING_CALL.findall(inspect.getsource(untyped_passes)
                                           + inspect.getsource(typed_passes))
    except (OSError, TypeError, AttributeError):
        return False
    if (hashlib.sha256(source.encode()).hexdigest() != KNOWN_SOURCE or sorted(callers) != ["function", "ir"]
            or inline_closurecall.copy is not copy):
        return False
    inline_ir = worker.inline_ir

    def inline_ir_clearing(self, *args, **kwargs):
        try:
            return inline_ir(self, *args, **kwargs)
        finally:
            _source_of.clear()

    def inline_function(self, caller_ir, block, i, function, arg_typs=None):
        # numba's own three lines, with the fresh IR's blocks handed to inline_ir uncopied.
        callee_ir = self.run_untyped_passes(function)
        freevars = function.__code__.co_freevars
        try:
            _source_of.update((id(b), b) for b in callee_ir.blocks.values())
            return self.inline_ir(caller_ir, block, i, callee_ir, freevars, arg_typs=arg_typs)
        finally:
            _source_of.clear()

    inline_closurecall.copy = _CopyModule()
    worker.inline_ir = inline_ir_clearing
    worker.inline_function = inline_function
    return True


#: Whether the patch is installed (numba's inliner is the code it was written for).
PATCHED = _install()
