# Two entry points (see README): `make run` installs everything and starts the app,
# `make test` installs everything and runs the test suite. Both create .venv on first use.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint install bundle package-check

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "Python 3.11 is required ($(PYTHON) not found)"; exit 1; }
	sh packaging/system-deps.sh
	sh packaging/disk-space.sh $(VENV) $(PYTHON)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --isolated -q --upgrade pip
	# torch and torchvision must be a matching pair from the package index (see docs/architecture.md).
	$(PY) -m pip install --isolated -q --no-cache-dir "torch==2.13.0" "torchvision==0.28.0"
	$(PY) -m pip install --isolated -q -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/aesthete-gui $(ARGS)

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m ruff check .
	$(VENV)/bin/lint-imports
	$(PY) -m mypy aesthete_gui
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -n 2 $(PYTEST_ARGS)

lint: $(STAMP)
	$(PY) -m ruff check .
	$(VENV)/bin/lint-imports
	$(PY) -m mypy aesthete_gui

# The one-folder desktop bundle dist/aesthete/ (CPU torch; TORCH=cuda for the CUDA pair); docs/install.md.
bundle:
	bash packaging/build.sh

# Release check (docs/install.md): the packaging tests (also part of `make test`), then the bundle
# built and checked: both commands start, the CLI imports a folder, the window renders; size and times.
package-check: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q tests/packaging
	$(PY) benchmarks/bundle_check.py --build --bin dist/aesthete
