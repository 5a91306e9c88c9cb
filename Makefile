# kzc: one entry point for setting up, testing and trying the console.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_DIR := .sandbox/demo
# The releases `make test-versions` runs ("all": core.sandbox.releases.TESTED_VERSIONS, 0.10.2.2 to 3.9.1).
KZC_TEST_KAFKA_VERSIONS ?= all
VERSIONS_RECORD := .sandbox/versions-record.jsonl

.PHONY: install jars browser bytecode lint unit check test test-versions demo demo-down clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,dev,connect]'
	touch $(STAMP)

install: $(STAMP)  ## virtualenv in .venv with kzc and its test tools

jars: install  ## fetch the Kafka and ZooKeeper jars and the Prometheus JMX exporter agent once through Maven (cached), and the jars of the releases CI tests
	$(BIN)/kzc sandbox fetch
	$(BIN)/kzc sandbox fetch --kafka-version 0.10.2.2
	$(BIN)/kzc sandbox fetch --kafka-version 1.1.1
	$(BIN)/kzc sandbox fetch --kafka-version 2.0.1

browser:  ## Debian's Chromium, which tests/integration/test_report.py renders the incident report's HTML with (installed once, as root or through sudo)
	@command -v chromium > /dev/null || { \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends chromium > /dev/null; }

lint: install  ## ruff (lint and format, pinned), mypy --strict and the architecture contracts (import-linter, pyproject.toml)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

unit: install  ## fast tests only (no cluster)
	$(BIN)/pytest -q -m "not integration"

check: lint bytecode  ## for every edit: lint, unit and console tests (no cluster, no JVM at all), in two workers (CPU-bound: 2 cores)
	$(BIN)/pytest -q -n 2 tests/unit tests/tui

bytecode: install  ## compile kzc's modules once: with PYTHONDONTWRITEBYTECODE set (as in CI) every kzc process a test starts would compile them from source (~0.6 s of CPU each)
	$(BIN)/python -m compileall -q -j 0 core cli tui tests benchmarks > /dev/null

test: jars browser lint bytecode  ## install everything, then the whole suite (what CI runs), with its 30 slowest tests
	$(BIN)/pytest --durations=30

test-versions: jars bytecode  ## kzc on a sandbox of every release 0.10.2 to 3.9 (tests/integration/test_versions.py); writes docs/versions.md
	mkdir -p .sandbox && rm -f $(VERSIONS_RECORD)
	KZC_TEST_KAFKA_VERSIONS=$(KZC_TEST_KAFKA_VERSIONS) KZC_VERSIONS_RECORD=$(VERSIONS_RECORD) \
		$(BIN)/pytest tests/integration/test_versions.py; status=$$?; \
		$(BIN)/python -m tests.integration.versions_record $(VERSIONS_RECORD) docs/versions.md && exit $$status

demo: jars bytecode  ## start a 3-broker sandbox with racks, demo traffic (producer, lagging groups) and the brokers' Prometheus metrics, open the console
	$(BIN)/kzc sandbox up --dir $(DEMO_DIR) --racks r1,r2,r3 --traffic --metrics --open

demo-down: install
	$(BIN)/kzc sandbox down --dir $(DEMO_DIR)

clean:
	rm -rf $(VENV) .sandbox .pytest_cache .mypy_cache .ruff_cache
