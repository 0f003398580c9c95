# make run: the service on the embedded default (SQLite, in-process tasks) unless DATABASE_URL
# and REDIS_URL are set. make test: the whole suite. See README.md.
# Any supported Python (3.11 to 3.13): python3.11 if there is one, else python3, else a newer one.
PYTHON ?= $(shell .ci/find-python)
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000
STAMP := $(VENV)/.installed

.PHONY: install run migrate test lint worker beat web clean

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

clean:
	rm -rf $(VENV) db.sqlite3 .pytest_cache
