# Échiquier: `make sim` runs the simulated board, `make test` runs every test.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

.PHONY: sim test typecheck install install-dev install-pi system-deps bench clean fast pure

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install --quiet -e .

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install-dev: $(STAMP)

system-deps:
	bash scripts/install-system-deps.sh

sim: install
	$(BIN)/echiquier sim

# The types: strict for the bottom layers (pure rules, hardware, network) and the pure referee, checked for the rest.
typecheck: install-dev
	$(BIN)/mypy --strict chess_core board_driver netserver club_wire uci durable
	$(BIN)/mypy --strict firmware/referee firmware/leds firmware/training
	$(BIN)/mypy --strict firmware/emulation
	$(BIN)/mypy --strict firmware/voice
	$(BIN)/mypy firmware club_hub

# Two workers: every test is independent (its own folder, ports, engines, browser), so the two cores share them.
test: system-deps install-dev typecheck
	$(BIN)/python -m pytest -q -n 2

install-pi:
	sudo bash systemd/install.sh

# Optional compiled build: chess_core's hot modules (setup.py's MYPYC_MODULES) compiled by mypyc
# next to their sources, which Python then imports first; `make pure` removes them (pure Python
# again). Never required: without it everything runs from the .py files. Rebuild after editing them.
fast: install-dev
	$(BIN)/pip install --quiet 'mypy>=1.8' 'setuptools>=77.0.3'   # (the licence's SPDX form)
	ECHIQUIER_MYPYC=1 $(BIN)/python setup.py build_ext --inplace

pure:
	rm -f chess_core/*.so *__mypyc.*.so

bench: install-dev
	for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info chess_core/*.so *__mypyc.*.so .mypy_cache
