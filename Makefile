# Two commands for a newcomer: `make run` and `make test`. See README.md.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test soak lint bench revision system-deps clean screenshots i18n

$(PY):
	@$(PYTHON) -m venv $(VENV) || (scripts/install-system-deps.sh venv && $(PYTHON) -m venv $(VENV))

$(RUN_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	@touch $@

$(TEST_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	@touch $@ $(RUN_STAMP)

## run: install, initialise var/pbem.sqlite3 and serve http://127.0.0.1:5000 with demo games
run: $(RUN_STAMP)
	$(VENV)/bin/pbem serve

## test: install everything the tests need (Debian packages too), then ruff and pytest
## (two processes, each module kept whole in one: TEST_PROCESSES=1 runs them in this one)
TEST_PROCESSES ?= 2
test: $(TEST_STAMP) system-deps
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/pytest -q $(if $(filter 1,$(TEST_PROCESSES)),,-n $(TEST_PROCESSES) --dist loadfile --no-loadscope-reorder)

## soak: the same tests' long self-play and soak counts (and the bot-against-v1 table)
soak: $(TEST_STAMP) system-deps
	PBEM_SOAK=1 $(VENV)/bin/pytest -q -m soak

## revision: a new schema revision from the models, e.g. make revision m="seats.bot_level"
revision: $(TEST_STAMP)
	$(VENV)/bin/pbem migrate && $(VENV)/bin/alembic -c alembic.ini revision --autogenerate -m "$(m)"

## i18n: the catalogues (the server's, then each title's own): extract the messages into pbem/translations/messages.pot, bring each
## language's .po up to date with it (new ones made), compile the .mo; the same files again
## when nothing changed (tests/i18n/test_catalogues.py checks that they are current)
I18N_LANGUAGES := de pl fr
I18N_DIR := pbem/translations
I18N_EXTRACT := extract -F babel.cfg -k T -k Tn:1,2 --omit-header --no-location --sort-output
# A title's own catalogue (engines/<slug>/translations, when the folder exists): its
# Python's T("...") and Tn("...", "...", n) (engines/text.py) and its templates' _().
I18N_TITLE_EXTRACT := extract -F engines/babel.cfg -k T -k Tn:1,2 --omit-header --no-location --sort-output
i18n: $(TEST_STAMP)
	$(VENV)/bin/pybabel -q $(I18N_EXTRACT) -o $(I18N_DIR)/messages.pot .
	for lang in $(I18N_LANGUAGES); do test -f $(I18N_DIR)/$$lang/LC_MESSAGES/messages.po || \
	    $(VENV)/bin/pybabel -q init -i $(I18N_DIR)/messages.pot -d $(I18N_DIR) -l $$lang || exit 1; done
	$(VENV)/bin/pybabel -q update -i $(I18N_DIR)/messages.pot -d $(I18N_DIR) -N --ignore-obsolete \
	    --ignore-pot-creation-date
	$(VENV)/bin/pybabel -q compile -d $(I18N_DIR) --statistics
	for dir in engines/*/translations; do test -d $$dir || continue; title=$${dir%/translations}; \
	    $(VENV)/bin/pybabel -q $(I18N_TITLE_EXTRACT) -o $$dir/messages.pot $$title || exit 1; \
	    for lang in $(I18N_LANGUAGES); do test -f $$dir/$$lang/LC_MESSAGES/messages.po || \
	        $(VENV)/bin/pybabel -q init -i $$dir/messages.pot -d $$dir -l $$lang || exit 1; done; \
	    $(VENV)/bin/pybabel -q update -i $$dir/messages.pot -d $$dir -N --ignore-obsolete \
	        --ignore-pot-creation-date || exit 1; \
	    $(VENV)/bin/pybabel -q compile -d $$dir --statistics || exit 1; done

lint: $(TEST_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

## bench: the event store, engines, web and sweep figures (PostgreSQL for some)
bench: $(TEST_STAMP)
	$(VENV)/bin/pbem bench
	for script in bench/bench_mare_balticum.py bench/bench_mercatores.py \
	    bench/bench_mare_nostrum.py bench/bench_web.py bench/bench_sweep.py \
	    bench/bench_bots.py; do \
	    $(PY) $$script || exit 1; done

## screenshots: (each title's turn page in each language into languages/) every board at the start, middle and end, desk and phone, each turn page in the dark theme and each history page in both, into test-artifacts/screenshots/maps/, each title's turn mails at 390 px into mails/, and the other pages the browser tests visit into screenshots/ (make test takes none)
screenshots: $(TEST_STAMP) system-deps
	PBEM_SCREENSHOTS=1 $(VENV)/bin/pytest -q $(if $(filter 1,$(TEST_PROCESSES)),,-n $(TEST_PROCESSES) --dist loadfile) \
	    tests/web/test_maps_browser.py tests/web/test_mail_screenshots.py tests/web/test_map_toolbar.py \
	    tests/web/test_browser.py tests/web/test_browser_pages.py tests/web/test_browser_history.py \
	    tests/web/test_browser_results.py tests/web/test_browser_rules_and_tips.py \
	    tests/web/test_browser_seat_exit.py tests/web/test_browser_compose_mare_nostrum.py \
	    tests/web/test_history_times.py tests/web/test_rules_reference.py tests/games/test_talk_browser.py \
	    tests/web/test_browser_ratings.py tests/web/test_browser_open.py tests/i18n/test_every_page.py
	@echo "Open test-artifacts/screenshots/maps/index.html (it links the mails in test-artifacts/screenshots/mails/)"

system-deps:
	@scripts/install-system-deps.sh

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache test-artifacts
