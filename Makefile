# Two commands do all the set-up on a fresh machine with Python 3.11+:
#   make demo   - create .venv, install evogrid, run the main job on the bundled traces
#   make test   - install the dev extras too, run the whole test suite
PYTHON ?= python3
# Write bytecode caches (__pycache__) even where the environment says not to: the test suite starts
# about 45 Python processes (xdist workers, CLI runs, loky, dask and Ray workers, a notebook kernel),
# and without the caches each compiles every module it imports anew (a CLI training run: 9.5 s, not 3.6).
unexport PYTHONDONTWRITEBYTECODE
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: demo test lint bench clean clean-cache

# uv installs the packages (pip itself only installs uv): the dev extras in about 7 s against 35 s
# for pip on a 2-core machine, the same releases (both resolve pyproject.toml's ranges on PyPI).
# uv writes no bytecode at install: Python compiles a module when it is first imported.
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv

UV = $(BIN)/python -m uv pip install --quiet --python $(BIN)/python

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(UV) -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(UV) -e '.[dev]'
	touch $@ $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/evogrid demo --out runs/demo

test: $(VENV)/.installed-dev
	$(BIN)/ruff check evogrid tests experiments
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check evogrid tests experiments

bench: $(VENV)/.installed
	$(BIN)/python experiments/benchmarks/bench_foundation.py
	$(BIN)/python experiments/benchmarks/bench_grid.py
	$(BIN)/python experiments/benchmarks/bench_pareto.py
	$(BIN)/python experiments/benchmarks/bench_training.py

clean: clean-cache
	rm -rf $(VENV) runs .pytest_cache .hypothesis

# Drop numba's compiled code (an edit under evogrid/sim/ already recompiles
# everything: evogrid/sim/numba_stamp.py stamps the cache with the whole package).
clean-cache:
	find evogrid -name '*.nbi' -delete -o -name '*.nbc' -delete
