# puzzledb: `make build-db` then `make test` on a fresh clone; nothing else needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DATA   ?= data

.PHONY: build-db build-db-full test test-full lint format bench bench-pegs clean distclean help

help:
	@echo "make build-db   build the default puzzle tables and the DuckDB catalog in $(DATA)/"
	@echo "make test       run the test suite (builds its own tables in temp folders)"
	@echo "make lint       ruff check and format check"
	@echo "make bench      benchmarks, median of 3 runs, printed as a table"
	@echo "make bench-pegs the English peg board's first levels, median of 3"
	@echo "make test-full  long checks outside CI (english33)"
	@echo "make clean      remove build output (data/, caches); distclean also .venv"

# The virtual environment, created and installed on first use and whenever
# pyproject.toml changes.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

build-db: $(STAMP)
	$(BIN)/puzzledb build --default --data $(DATA)

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(STAMP)
	$(BIN)/python -m pipeline.benchmarks

# Peg boards: english33 levels 0..12 with the current engine (see pipeline/benchmarks/pegs.py).
bench-pegs: $(STAMP)
	$(BIN)/python -m pipeline.benchmarks.pegs

# Long checks outside CI: english33 (see tests/test_pegs_full.py).
test-full: $(STAMP)
	PUZZLEDB_FULL=1 $(BIN)/python -m pytest tests/test_pegs_full.py

clean:
	rm -rf $(DATA)/*/ $(DATA)/.staging $(DATA)/puzzles.duckdb $(DATA)/puzzles.duckdb.tmp
	rm -rf bench-results .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) *.egg-info
