"""evogrid.sim.numba_inlining: numba's inliner without its defensive copies compiles the same code."""

import os
import subprocess
import sys

from evogrid.sim import numba_inlining

SCRIPT = r'''
import re, sys, types
if sys.argv[1] == "off":  # the package's modules as they are, numba's inliner as it is
    off = types.ModuleType("evogrid.sim.numba_inlining")
    off.PATCHED = False
    sys.modules["evogrid.sim.numba_inlining"] = off
import numpy as np
from numba.extending import overload
from evogrid.sim.numba_stamp import njit

@njit(inline="always")
def step(x, a):  # inlined at two call sites, with a loop and branches to copy
    total = 0
    for v in a:
        total += v if v > x else -v
    return total

@njit(inline="always")
def twice(x, a):  # nested: its IR holds step's twice
    return step(x, a) - step(x + 1, a)

def scaled(x, a):
    pass

@overload(scaled, inline="always")  # the typed pass's inliner: its IR is cached, so copied
def _scaled(x, a):
    def impl(x, a):
        s = 0
        for v in a:
            s += v * x if v % 2 else v
        return s
    return impl

@njit
def caller(x, a):
    return twice(x, a) + 3 * step(x, a) + scaled(x, a) - scaled(x + 1, a)

print(caller(2, np.arange(6)), re.sub(r"\d+", "N", "".join(caller.inspect_asm().values())))
'''


def _compile(mode, tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / mode))
    done = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_patch_is_installed_and_compiles_the_same_machine_code(tmp_path):
    assert numba_inlining.PATCHED  # numba's inliner still has the shape the patch was written for
    on, off = _compile("on", tmp_path), _compile("off", tmp_path)
    def step(x):
        return sum(v if v > x else -v for v in range(6))

    def scaled(x):
        return sum(v * x if v % 2 else v for v in range(6))

    assert on.split()[0] == off.split()[0] == str(step(2) - step(3) + 3 * step(2) + scaled(2) - scaled(3))
    assert on == off
