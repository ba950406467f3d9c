# tritoncfg developer commands. `make run` and `make test` work on a fresh machine with only Python.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
EXAMPLE := examples/model_repository

.PHONY: run test lint dist proto docs bench fuzz clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Runtime install, with the probe extra (onnx, which also makes the example's tiny model file,
# and ONNX Runtime, which `probe` runs it on).
$(VENV)/.stamp-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[probe]'
	touch $@

# Development install: test, lint and schema-generation tools.
$(VENV)/.stamp-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.stamp-run

run: $(VENV)/.stamp-run
	$(BIN)/python examples/make_models.py
	$(BIN)/tritoncfg lint $(EXAMPLE)
	$(BIN)/tritoncfg fmt --check $(EXAMPLE)
	$(BIN)/tritoncfg probe $(EXAMPLE)

lint: $(VENV)/.stamp-dev
	$(BIN)/ruff check tritoncfg tests bench tools examples
	$(BIN)/ruff format --check tritoncfg tests bench tools examples
	$(BIN)/mypy

test: $(VENV)/.stamp-dev lint
	$(BIN)/python -m pytest

# The sdist and the wheel, checked by twine: what .github/workflows/release.yml builds and
# publishes on a version tag. BUILD_FLAGS=--no-isolation builds offline with this venv's setuptools.
DIST ?= dist
BUILD_FLAGS ?=
dist: $(VENV)/.stamp-dev
	rm -rf $(DIST)
	$(BIN)/python -m build $(BUILD_FLAGS) --outdir $(DIST) .
	$(BIN)/python -m twine check --strict $(DIST)/*

proto: $(VENV)/.stamp-dev
	$(BIN)/python tools/gen_proto.py

docs: $(VENV)/.stamp-dev
	$(BIN)/python tools/gen_docs.py

bench: $(VENV)/.stamp-dev
	$(BIN)/python bench/parse_bench.py
	$(BIN)/python bench/large_config_bench.py
	$(BIN)/python bench/gen_warmup_bench.py
	$(BIN)/python bench/cost_bench.py

# Coverage-guided fuzzing of the lexer, parser, JSON reader and cache codec with atheris where it installs;
# otherwise the property-based tests with the long `fuzz` hypothesis profile (tools/fuzz.py).
fuzz: $(VENV)/.stamp-dev
	-$(BIN)/python -m pip install --quiet atheris
	$(BIN)/python tools/fuzz.py

clean:
	rm -rf $(VENV) build $(DIST) *.egg-info .pytest_cache .mypy_cache .ruff_cache
