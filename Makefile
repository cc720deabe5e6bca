# deepresearch's one command runner. CI calls these targets verbatim.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# the package and its runtime dependencies only: what `make demo` needs
RUNTIME := $(VENV)/.runtime
DEMO_CORPUS := build/demo-corpus
# pytest-xdist workers for `make test`: the suite waits on subprocesses, sockets and a
# browser more than it computes, so more workers than cores pays (docs/testing.md)
TEST_WORKERS ?= 4
DEMO_QUESTION := How do generators and the yield statement work in Python, and how do they relate to coroutines?

.DEFAULT_GOAL := help
.PHONY: help install lint typecheck test bench demo clean

help: ## Show this help
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  make %-10s %s\n", $$1, $$2}'

$(RUNTIME): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUNTIME)

# --group needs pip 25.1
$(STAMP): $(RUNTIME)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"
	$(BIN)/python -m pip install --quiet -e . --group dev
	touch $(STAMP)

install: $(STAMP) ## Create .venv and install deepresearch with its dev tools

lint: install ## ruff check and format check
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: install ## mypy --strict on the package and the benchmarks
	$(BIN)/mypy

# two passes: everything but the `serial` tests on the workers, then those alone; either
# failing fails the target
test: install ## Run the test suite on parallel workers, then its serial tests (network refused except loopback)
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadscope -m "not serial"; parallel=$$?; \
	$(BIN)/pytest -q -m serial; serial=$$?; \
	test $$parallel -eq 0 && test $$serial -eq 0

bench: install ## Run the benchmarks, write bench/results/latest.json
	$(BIN)/python -m bench.run

# the runtime only: the dev tools (mypy, playwright, the providers' clients) are not needed
demo: $(RUNTIME) ## Research a Python question offline over the interpreter's own docs
	rm -rf build/demo-data
	$(BIN)/python -m deepresearch.testing.pydoc_corpus --out $(DEMO_CORPUS)
	DEEPRESEARCH_DATA_DIR=build/demo-data $(BIN)/deepresearch run "$(DEMO_QUESTION)" \
		--search local --corpus $(DEMO_CORPUS) --model none --min-domains 1 \
		--run-id demo --format md --out report.md
	DEEPRESEARCH_DATA_DIR=build/demo-data $(BIN)/deepresearch report demo --format html --out report.html
	@echo "demo: wrote report.md and report.html"

clean: ## Remove build output and caches
	rm -rf build .mypy_cache .ruff_cache .pytest_cache report.md report.html
