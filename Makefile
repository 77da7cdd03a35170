# AlphaDesk — `make demo` runs the portal, `make test` runs every check. Both work offline
# on a fresh machine with Python 3.11 and the package registries.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat requirements.lock | cksum | cut -d' ' -f1)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install demo test lint format pytest chromium bench clean

$(STAMP): requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# The CPU build of torch first: anything unpinned would pull gigabytes of CUDA.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -r requirements.lock
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

demo: install
	$(BIN)/python manage.py demo

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Tests start their own embedded Postgres and Redis under var/test (never the demo's data).
pytest: install chromium
	ALPHADESK_VAR_DIR=$(CURDIR)/var/test $(BIN)/python -m pytest $(PYTEST_ARGS)

test: lint pytest

bench: install
	ALPHADESK_VAR_DIR=$(CURDIR)/var/bench $(BIN)/python -m bench

clean:
	rm -rf var/test var/bench
