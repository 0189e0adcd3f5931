# puzzledb: `make build-db` then `make test` on a fresh clone; nothing else needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DATA   ?= data

.PHONY: build-db build-db-full test test-full lint format bench bench-full clean distclean help

help:
	@echo "make build-db   build the default puzzle tables and the DuckDB catalog in $(DATA)/"
	@echo "make test       run the test suite (builds its own tables in temp folders)"
	@echo "make lint       ruff check and format check"
	@echo "make bench      benchmarks, median of 3 runs, printed as a table"
	@echo "make build-db-full  also the 239,500,800-position boards 3x4 and 2x6 (MEMORY=3GB)"
	@echo "make test-full  figures of the full boards (builds them first)"
	@echo "make bench-full build 3x4 and 2x6 three times each, print a table (RUNS=3)"
	@echo "make clean      remove build output (data/, caches); distclean also .venv"

# The virtual environment, created and installed on first use and whenever
# pyproject.toml changes.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

build-db: $(STAMP)
	$(BIN)/puzzledb build --default --data $(DATA)

# The full 3x4 and 2x6 boards: minutes each, about 1.3 GB of disk each.
MEMORY ?= 3GB
RUNS   ?= 3
build-db-full: build-db
	$(BIN)/puzzledb build 3x4 2x6 --memory $(MEMORY) --data $(DATA)

test-full: build-db-full
	PUZZLEDB_DATA=$(DATA) $(BIN)/python -m pytest tests_full

bench-full: $(STAMP)
	$(BIN)/python -m pipeline.bench_full --runs $(RUNS) --memory $(MEMORY)

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(STAMP)
	$(BIN)/python -m pipeline.bench

clean:
	rm -rf $(DATA)/*/ $(DATA)/.staging $(DATA)/puzzles.duckdb $(DATA)/puzzles.duckdb.tmp
	rm -rf bench-results .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) *.egg-info
