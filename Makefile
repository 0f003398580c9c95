# make run: the service on the embedded default (SQLite, in-process tasks) unless DATABASE_URL
# and REDIS_URL are set. make test: the whole suite. See README.md.
# Any supported Python (3.11 to 3.13): python3.11 if there is one, else python3, else a newer one.
PYTHON ?= $(shell .ci/find-python)
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000
STAMP := $(VENV)/.installed

.PHONY: install run migrate test lint worker beat web clean sdk sdk-check map

$(STAMP): requirements.txt
	@test -x $(BIN)/python || test -n "$(PYTHON)" || exit 1
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	touch $(STAMP)

install: $(STAMP)

migrate: install
	DEBUG=$${DEBUG-1} $(BIN)/python manage.py migrate --noinput

run: migrate
	mkdir -p exports  # directory data destinations' root under DEBUG (docs/export-destinations.md)
	DEBUG=$${DEBUG-1} $(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

web: migrate
	DEBUG=$${DEBUG-1} $(BIN)/python manage.py collectstatic --noinput -v 0
	$(BIN)/gunicorn attribution_site.wsgi -c gunicorn.conf.py

worker: install
	DEBUG=$${DEBUG-1} $(BIN)/celery -A attribution_site worker --loglevel=INFO

beat: install
	DEBUG=$${DEBUG-1} $(BIN)/celery -A attribution_site beat --loglevel=INFO

test: install
	SECRET_KEY=$${SECRET_KEY:-test-only-secret-key-at-least-32-bytes-long} $(BIN)/pytest $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .

# docs/architecture.md's tables, written from the registries they list (the map's test fails
# until they are): run it after adding an app, a subscription, an outbox kind, a check...
map: install
	DEBUG=$${DEBUG-1} $(BIN)/python manage.py architecture_map --write

clean:
	rm -rf $(VENV) db.sqlite3 .pytest_cache

# The web script (web_sdk/README.md). Its built files are committed in static/web_sdk/, so that
# `make run` needs no Node.js. make sdk: build them after changing web_sdk/src/. make sdk-check
# (CI): install the pinned packages afresh, check the formatting (prettier) and the types, run
# the unit tests, rebuild, and fail when the build differs from the committed files. npm takes
# packages from its cache when it has them, so both work offline after a first install.
SDK_NPM := npm --prefix web_sdk
SDK_BUILT := web_sdk/dist static/web_sdk

web_sdk/node_modules/.package-lock.json: web_sdk/package-lock.json
	cd web_sdk && npm ci --prefer-offline

sdk: web_sdk/node_modules/.package-lock.json
	$(SDK_NPM) run build

sdk-check:
	cd web_sdk && npm ci --prefer-offline
	$(SDK_NPM) run lint
	$(SDK_NPM) run typecheck
	$(SDK_NPM) test
	$(SDK_NPM) run build
	@changed="$$(git diff --name-only -- $(SDK_BUILT); git ls-files --others --exclude-standard -- $(SDK_BUILT))"; \
	  test -z "$$changed" || { echo "$$changed"; \
	  echo "The built web script differs from the committed one: run make sdk and commit it."; exit 1; }
