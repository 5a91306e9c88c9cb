# kzc: one entry point for setting up, testing and trying the console.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_DIR := .sandbox/demo

.PHONY: install jars lint unit test demo demo-down clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,dev,connect]'
	touch $(STAMP)

install: $(STAMP)  ## virtualenv in .venv with kzc and its test tools

jars: install  ## fetch the Kafka and ZooKeeper jars once through Maven (cached)
	$(BIN)/kzc sandbox fetch

lint: install  ## ruff, mypy --strict and the architecture contracts (import-linter, pyproject.toml)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports

unit: install  ## fast tests only (no cluster)
	$(BIN)/pytest -q -m "not integration"

test: jars lint  ## install everything, then the whole suite (integration tests start their own sandbox)
	$(BIN)/pytest

demo: jars  ## start a 3-broker sandbox with racks and demo traffic (producer, lagging groups), open the console
	$(BIN)/kzc sandbox up --dir $(DEMO_DIR) --racks r1,r2,r3 --traffic --open

demo-down: install
	$(BIN)/kzc sandbox down --dir $(DEMO_DIR)

clean:
	rm -rf $(VENV) .sandbox .pytest_cache .mypy_cache .ruff_cache
