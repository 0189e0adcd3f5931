# puzzledb: `make build-db` then `make test` on a fresh clone; nothing else needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
DATA   ?= data

.PHONY: build-db build-db-full test test-quick test-full test-browser report lint format bench bench-full bench-walk bench-pegs bench-french37 bench-diamond41 bench-korf bench-solve4 bench-pairs bench-lookups bench-paths bench-peer bench-serve bench-twisty bench-cube test-twisty-samples test-spark-full bench-spark test-hostile test-newcomer clean distclean help

help:
	@echo "make build-db   build the default puzzle tables and the DuckDB catalog in $(DATA)/,"
	@echo "                then the report $(DATA)/report.html (installs the product and the"
	@echo "                DuckDB CLI into .venv; the test targets add the test and Spark extras)"
	@echo "make report     rewrite $(DATA)/report.html (histograms, deepest positions, a solution)"
	@echo "make build-db-full  also the 239,500,800-position boards 3x4 and 2x6, and their -multi (MEMORY=3GB)"
	@echo "make test       run the test suite (builds its own tables in temp folders): every test"
	@echo "                of tests/ but those marked full, browser or hostile (pyproject.toml)"
	@echo "make test-quick the same without the tests marked slow (over ~30 s) or spark"
	@echo "make test-full  the tests marked full (tests/full/), outside CI: the full boards (built"
	@echo "                first by build-db-full in $(DATA)), english33, french37 (its table in"
	@echo "                FRENCH_DATA when make bench-french37 built it), the PDB solver"
	@echo "make test-spark-full  3x4 through Spark on SPARK_MASTER (local-cluster[2,1,4096]) beside"
	@echo "                the local executor: rows, verify, times (about 2.6 GB of disk, many minutes)"
	@echo "make test-browser  the tests marked browser (tests/browser/): the report in a real headless"
	@echo "                chromium at 1280 and 390 px; installs Debian's chromium with apt-get when"
	@echo "                missing (needs root), and playwright-python into .venv; screenshots in"
	@echo "                build/screenshots/"
	@echo "make test-hostile  the tests marked hostile (tests/hostile/): every CLI command over data"
	@echo "                folders with SQL and path payloads in each manifest and spec field"
	@echo "                (docs/TRUST.md; 17 min), then the property tests in full"
	@echo "make test-newcomer  a newcomer's first hour replayed: a fresh clone of HEAD, make build-db,"
	@echo "                the README's blocks and the guides' commands from another folder (minutes)"
	@echo "make lint       ruff check and format check, then mypy (pyproject.toml's [tool.mypy]);"
	@echo "                make format rewrites the files"
	@echo "make bench      benchmarks, median of 3 runs, printed as a table"
	@echo "make bench-full build 3x4 and 2x6 three times each, print a table (RUNS=3)"
	@echo "make bench-walk the path macro from the deepest 3x4 and 2x6 positions, cold and warm"
	@echo "make bench-pegs the English peg board's first levels, median of 3"
	@echo "make bench-french37  english33, the French peg board in full, english33 again, into FRENCH_DATA"
	@echo "                (~3e9 positions, ~13 GB kept, up to ~30 GB while building; about"
	@echo "                17 minutes on a quiet machine): per-level figures, and the rate ratio"
	@echo "make bench-diamond41  french37-sym then diamond41-sym in full into DIAMOND_DATA (~1.5e9"
	@echo "                classes, about 2.5 hours on a quiet machine; DEPTH=N: the first levels"
	@echo "                only): per-level figures, and the diamond's classes a second against the"
	@echo "                French board's"
	@echo "make bench-korf Korf's 100 15-puzzles solved optimally (pattern databases + IDA*)"
	@echo "make bench-solve4  a 4x4 solve as a command vs importing pipeline (needs 4x4-pdb in DATA)"
	@echo "make bench-pairs OLD=<rev>  interleaved builds of commit OLD and this tree (ROUNDS=5)"
	@echo "make bench-lookups OLD=<rev> LOOKUP_DATA=<folder>  point look-ups of OLD and this tree"
	@echo "                on the same files, cold and warm (3x4 built in LOOKUP_DATA; ROUNDS=5)"
	@echo "make bench-peer PEER=<binary>  3x4 and 2x6 against a C++ breadth-first search built outside"
	@echo "                the repository (PEER_ROUNDS=3): CPU, wall, memory, ratios, counts compared"
	@echo "make bench-paths  2x5 and english33 plain and with --paths (PATHS_ROUNDS=3; OLD=<rev> adds"
	@echo "                that commit's --paths builds): medians and ratios"
	@echo "make bench-serve the explorer: page times cold and warm, server memory, a load test"
	@echo "make bench-twisty  twisty definitions built from .tws files (TWISTY_FILES; default our"
	@echo "                cube2, pocket, toplayer), time and memory, beside twsearch -g when"
	@echo "                TWSEARCH=<binary built outside the repo> (RUNS=3): medians and ratios;"
	@echo "                OLD=<rev> adds that commit's builds, SEARCH=1 the dense engine's steps alone"
	@echo "make bench-cube the 3x3x3 cube solved optimally, a process a scramble of 10 to 15 moves"
	@echo "                (builds its pattern tables into CUBE_DATA first), beside twsearch when"
	@echo "                TWSEARCH=<binary> and TWSEARCH_SAMPLES=<its samples/main folder>"
	@echo "make test-twisty-samples TWSEARCH_SAMPLES=DIR  five of twsearch's sample definitions"
	@echo "                (its samples/main, not shipped here) built, each level equal to twsearch -g"
	@echo "make bench-spark  2x5 through the local executor and Spark (threshold 100,000 and 0):"
	@echo "                medians, and where each Spark level's time goes (RUNS=3)"
	@echo "make clean      remove build output (data/, caches); distclean also .venv"

# The virtual environment, created and installed on first use and whenever
# pyproject.toml changes, in two stamps: $(STAMP) is the product alone (what
# build-db, report and the benchmarks need, the DuckDB CLI included), then the
# C IDA* kernel built into the user's cache (pipeline/solvers/ida_c.py: never
# fails, solves fall back to numba without a compiler); $(TEST_STAMP) adds the
# test extra (pytest, hypothesis, ruff, and Spark: CI runs the Spark tests) for
# the test and lint targets. Either works first on a fresh clone (docs/BENCHMARKS.md#set-up-costs).
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	$(BIN)/python -m pipeline.solvers.ida_c
	@touch $@

$(TEST_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@touch $@

build-db: $(STAMP)
	$(BIN)/puzzledb build --default --data $(DATA)
	$(BIN)/puzzledb report --data $(DATA)

report: $(STAMP)
	$(BIN)/puzzledb report --data $(DATA)

# The full 3x4 and 2x6 boards, single-tile and multi-tile: minutes each, about 1.3 GB of disk each.
MEMORY ?= 3GB
RUNS   ?= 3
build-db-full: build-db
	$(BIN)/puzzledb build 3x4 2x6 3x4-multi 2x6-multi --memory $(MEMORY) --data $(DATA)

# Tests select by pytest marker (registered in pyproject.toml); the options the
# outside-CI tests read (--full-data, --french-data, --chromium, --spark-master,
# ...) are registered in tests/conftest.py (`pytest --help` lists them).
# The default selection (pyproject.toml's addopts): all but full, browser and hostile.
# JOBS: pytest-xdist workers (auto: one a core; JOBS=0 runs in this process).
# --dist worksteal: a worker that runs out takes tests from the other (the long Spark
# and property tests otherwise leave a core idle at the end).
JOBS ?= auto
test: $(TEST_STAMP)
	$(BIN)/python -m pytest -n $(JOBS) --dist worksteal

# A quicker loop: also without the tests over ~30 s and Spark's (CI runs them all).
test-quick: $(TEST_STAMP)
	$(BIN)/python -m pytest -n $(JOBS) -m "not slow and not spark"

# Long checks outside CI, the tests marked full (tests/full/) but Spark's: the
# full 3x4 and 2x6 figures, the English and French peg boards, and the
# pattern-database solver against the full tables in $(DATA).
FRENCH_DATA ?= bench-results/french37-data
test-full: build-db-full $(TEST_STAMP)
	$(BIN)/python -m pytest -m "full and not spark" --full-data $(DATA) --french-data $(FRENCH_DATA)

# The level step on Spark (docs/CLUSTER.md), outside `make test`: the test marked
# full and spark (tests/full/test_spark_full.py) on SPARK_MASTER.
SPARK_MASTER ?= local-cluster[2,1,4096]
test-spark-full: $(TEST_STAMP)
	$(BIN)/python -m pytest -s -m "full and spark" --spark-master '$(SPARK_MASTER)'

# The report and solution strips in a real browser (tests/browser/, marked
# browser): Debian's chromium (apt-get installs it when missing, which needs
# root) driven by playwright-python (pip: a 53 MB wheel, 167 MB in .venv; its
# own browser download is not used). Not part of `make test`; screenshots land
# in build/screenshots/. `python -m tools.screenshot` redraws docs/report.png.
CHROMIUM ?= /usr/bin/chromium
BROWSER_STAMP := $(VENV)/.browser
$(BROWSER_STAMP): $(TEST_STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test,browser]'
	@touch $@

test-browser: $(BROWSER_STAMP)
	@test -x $(CHROMIUM) || { apt-get update && apt-get install -y chromium; } || \
		{ echo "make test-browser: $(CHROMIUM) is missing and apt-get needs root (run as root, or apt-get install chromium)"; exit 1; }
	$(BIN)/python -m pytest -m browser --chromium=$(CHROMIUM)

# Issue #45's newcomer session (tests/test_readme.py, marked full): a fresh clone of
# this commit, make build-db, every README block and the guides' commands in a fresh
# shell from another folder (minutes: the clone's .venv, its tables, english33-sym).
test-newcomer: $(TEST_STAMP)
	$(BIN)/python -m pytest -m full tests/test_readme.py -k newcomer

# Every CLI command over hostile data folders (tests/hostile/, marked hostile): a
# payload in each string field of each manifest and kept spec, in turn; outside `make test`.
# Then the long property tests with all their examples (`make test` draws a third).
PROPERTY_TESTS := tests/test_trust_property.py tests/test_trust_figures.py \
	tests/test_cli_property.py tests/test_walk_sql.py tests/test_trust_third.py
test-hostile: $(TEST_STAMP)
	$(BIN)/python -m pytest -m hostile
	PUZZLEDB_EXAMPLES=all $(BIN)/python -m pytest -n $(JOBS) --dist worksteal $(PROPERTY_TESTS)

lint: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(TEST_STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Benchmarks live in benchmarks/ (top level: not in the wheel); helper programs
# (independent peg counts, the report's screenshot) in tools/.
bench: $(STAMP)
	$(BIN)/python -m benchmarks

bench-full: $(STAMP)
	$(BIN)/python -m benchmarks.full --runs $(RUNS) --memory $(MEMORY)

# The path macro in SQL on the tables built in $(DATA) (make build-db-full):
# every deepest position of 3x4 and 2x6, in DuckDB 2.x and the 1.x CLI, cold
# (the OS page cache is dropped first when run as root) and warm.
bench-walk: $(STAMP)
	$(BIN)/python -m benchmarks.walks --data $(DATA)

# Peg boards: english33 levels 0..12 with the current engine (see benchmarks/pegs.py).
TWSEARCH ?=
TWISTY_FILES ?=
# twsearch's samples (MPL-2.0 or GPL-3.0, so not in this repository) against its counts.
TWSEARCH_SAMPLES ?=
test-twisty-samples: $(TEST_STAMP)
	$(BIN)/python -m pytest -m full tests/full/test_twisty_samples.py --twsearch-samples '$(TWSEARCH_SAMPLES)'

bench-twisty: $(STAMP)
	$(BIN)/python -m benchmarks.twisty --rounds $(RUNS) $(if $(TWSEARCH),--twsearch $(TWSEARCH)) $(if $(OLD),--old $(OLD)) $(if $(SEARCH),--search) $(TWISTY_FILES)

CUBE_DATA ?= bench-results/cube-data
bench-cube: $(STAMP)
	$(BIN)/python -m benchmarks.cube --data $(CUBE_DATA) $(if $(TWSEARCH),--twsearch $(TWSEARCH) --tws $(TWSEARCH_SAMPLES)/3x3x3.tws)

bench-pegs: $(STAMP)
	$(BIN)/python -m benchmarks.pegs

# The French board in full (benchmarks/bigpeg.py), after the English
# board in the same run: per-level figures, peak memory and disk, and french37's
# positions a second against english33's (the goal: 80%); test-full then checks
# the table in FRENCH_DATA.
bench-french37: $(STAMP)
	$(BIN)/python -m benchmarks.bigpeg english33 french37 english33 --data $(FRENCH_DATA) \
		--memory $(MEMORY)

# The 41-hole diamond by symmetry classes (issue #35) after the French board's
# classes in the same run (benchmarks/bigpeg.py): per-level figures, peak memory
# and disk, and diamond41-sym's classes a second against french37-sym's (goal:
# 80%). DEPTH=N builds levels 0..N of each only (a short run).
DIAMOND_DATA ?= bench-results/diamond41-data
bench-diamond41: $(STAMP)
	$(BIN)/python -m benchmarks.bigpeg french37-sym diamond41-sym --data $(DIAMOND_DATA) \
		--memory $(MEMORY) $(if $(DEPTH),--max-depth $(DEPTH))

# Korf's 100 random 15-puzzle instances, solved optimally with the 4x4 pattern
# databases (built into $(DATA)/ on first use, about 5 minutes and 2.2 GB).
KORF ?= benchmarks/korf100.txt
KORF_FLAGS ?=   # e.g. --repeat 3 --baseline
bench-korf: $(STAMP)
	$(BIN)/python -m benchmarks.korf $(KORF) --data $(DATA) $(KORF_FLAGS)

# A 4x4 solve as a command (benchmarks/solve4.py); the 4x4 pattern
# databases must be built in $(DATA) first (about 5 minutes and 2.2 GB, once).
bench-solve4: $(STAMP)
	$(BIN)/python -m benchmarks.solve4 --data $(DATA)

# Old commit against this tree, 5 interleaved rounds of 2x5, 3x4 and english33
# (about 15 minutes on a quiet machine): medians and ratios.
ROUNDS ?= 5
bench-pairs: $(STAMP)
	@test -n "$(OLD)" || { echo "make bench-pairs: give OLD=<commit>"; exit 1; }
	$(BIN)/python -m benchmarks.pairs $(OLD) --rounds $(ROUNDS)

bench-lookups: $(STAMP)
	@test -n "$(OLD)" || { echo "make bench-lookups: give OLD=<commit>"; exit 1; }
	@test -n "$(LOOKUP_DATA)" || { echo "make bench-lookups: give LOOKUP_DATA=<a folder with 3x4 built>"; exit 1; }
	$(BIN)/python -m benchmarks.lookups $(OLD) $(LOOKUP_DATA) --rounds $(ROUNDS)

# Our builds of 3x4 and 2x6 against lightln2's PuzzleSearch (C++, one thread, counts
# only; MIT), built outside the repository; interleaved rounds (benchmarks/peer.py).
PEER_ROUNDS ?= 3
bench-peer: $(STAMP)
	@test -n "$(PEER)" || { echo "make bench-peer: give PEER=<the peer's binary>. Build it outside this"; \
		echo "  repository from lightln2/PuzzleSearch (github.com/lightln2/PuzzleSearch, MIT): its"; \
		echo "  InMemoryFrontierSearch with SlidingTilePuzzleSimple and a driver that prints"; \
		echo "  'depth count' lines and 'total N' for 'peer_bfs WIDTH HEIGHT frontier'; where a"; \
		echo "  ready folder with its build.sh is at hand: make bench-peer PEER=\$$(path/to/build.sh)"; exit 1; }
	$(BIN)/python -m benchmarks.peer $(PEER) --rounds $(PEER_ROUNDS)

# What --paths costs: plain and --paths builds of 2x5 and english33, interleaved
# (about 10 minutes at PATHS_ROUNDS=3; OLD=<rev> also times that commit's --paths).
PATHS_ROUNDS ?= 3
bench-paths: $(STAMP)
	$(BIN)/python -m benchmarks.paths --rounds $(PATHS_ROUNDS) $(if $(OLD),--old $(OLD))

# The explorer (benchmarks/serve.py): position pages cold and warm, server memory,
# a load test of 3000 requests from 50 clients; builds 3x4 in $(DATA) if missing,
# reads french37 from $(FRENCH_DATA) when set.
bench-serve: $(STAMP)
	$(BIN)/python -m benchmarks.serve --data $(DATA)

# The level step on Spark against the local executor (benchmarks/spark_bench.py);
# Spark comes with the test extra.
bench-spark: $(TEST_STAMP)
	$(BIN)/python -m benchmarks.spark_bench --board 2x5 --runs $(RUNS)

clean:
	rm -rf $(DATA)/*/ $(DATA)/.staging $(DATA)/puzzles.duckdb $(DATA)/puzzles.duckdb.tmp $(DATA)/report.html
	rm -rf bench-results .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) *.egg-info
