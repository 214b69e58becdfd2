# BVH Lab: `make run` starts the app, `make test` runs the checks. Both set everything up first.
#
# Set-up steps, each done once and skipped afterwards:
#   1. system libraries Qt 6 (xcb) and VTK need, plus Xvfb for the tests: installed with
#      apt-get when running as root, otherwise the one apt-get command to run is printed;
#   2. .venv created with `python3 -m venv`, the project installed editable into it
#      (re-installed whenever pyproject.toml changes, tracked by a stamp file);
#   3. for the tests, the numba on-disk cache warmed (`python -m core warmup`), so they do
#      not pay the first compile one kernel at a time. `make run` does not wait for it: the
#      app compiles in the background and runs the kernels as Python meanwhile.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
# Python may write its bytecode caches (__pycache__, git-ignored) even where the environment
# turned them off: the test run starts some 300 Python processes (test workers, command lines,
# children), and without the caches each one compiled core/ and viewer/ from source again
# (collecting the tests took 9.3 s instead of 2.5 s per process on this 2-core machine).
export PYTHONDONTWRITEBYTECODE :=
VENV ?= .venv
PY := $(VENV)/bin/python
TEST_STAMP := $(VENV)/.installed-test
BENCH_STAMP := $(VENV)/.installed-bench
# Test processes (pytest-xdist): one per core, at most four. Each starts its own virtual display;
# `make test TEST_WORKERS=0` runs the suite in one process.
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); echo $$(( n < 4 ? n : 4 )))
LDCONFIG := $(shell command -v ldconfig 2>/dev/null || echo /sbin/ldconfig)

# What the Qt 6 xcb platform plugin and VTK's OpenGL rendering load, as "what:package".
# `what` is a shared library name looked up with `ldconfig -p`, `dri/NAME` a Mesa driver, or
# `bin/NAME` a program on PATH. Package names are Debian 12 / Ubuntu 22.04+.
QT_NEEDS := \
	libGL.so.1:libgl1 \
	libEGL.so.1:libegl1 \
	libGLX_mesa.so.0:libglx-mesa0 \
	dri/swrast_dri.so:libgl1-mesa-dri \
	libxkbcommon-x11.so.0:libxkbcommon-x11-0 \
	libxcb-cursor.so.0:libxcb-cursor0 \
	libxcb-icccm.so.4:libxcb-icccm4 \
	libxcb-image.so.0:libxcb-image0 \
	libxcb-keysyms.so.1:libxcb-keysyms1 \
	libxcb-randr.so.0:libxcb-randr0 \
	libxcb-render-util.so.0:libxcb-render-util0 \
	libxcb-shape.so.0:libxcb-shape0 \
	libxcb-xinerama.so.0:libxcb-xinerama0 \
	libxcb-xkb.so.1:libxcb-xkb1 \
	libXrender.so.1:libxrender1 \
	libXi.so.6:libxi6 \
	libdbus-1.so.3:libdbus-1-3 \
	libfontconfig.so.1:libfontconfig1
# The tests draw on a virtual X display (pytest-xvfb starts Xvfb).
TEST_NEEDS := $(QT_NEEDS) bin/Xvfb:xvfb

# $(call ensure_system,NEEDS): install what is missing as root, or print the command and stop.
# The library list is read once: `ldconfig -p | grep -q` under pipefail fails at random when
# grep exits early and ldconfig dies of SIGPIPE.
define ensure_system
	missing=""; \
	libs=$$($(LDCONFIG) -p 2>/dev/null || true); \
	for need in $(1); do \
		what=$${need%%:*}; pkg=$${need##*:}; \
		case "$$what" in \
			bin/*) command -v "$${what#bin/}" >/dev/null 2>&1 || missing="$$missing $$pkg" ;; \
			dri/*) compgen -G "/usr/lib/*/dri/$${what#dri/}" >/dev/null \
				|| compgen -G "/usr/lib/dri/$${what#dri/}" >/dev/null \
				|| missing="$$missing $$pkg" ;; \
			*) grep -qF "$$what (" <<<"$$libs" || missing="$$missing $$pkg" ;; \
		esac; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "Installing system packages:$$missing"; \
			apt-get update; \
			DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
				-o DPkg::Lock::Timeout=300 $$missing; \
		else \
			echo "Qt and VTK need system libraries that are missing. Run this once, then retry:"; \
			echo "    sudo apt-get update && sudo apt-get install -y --no-install-recommends$$missing"; \
			exit 1; \
		fi; \
	fi
endef

.PHONY: help run test bench lint warmup clean display system-run system-test python-venv

help:
	@echo "make run    set up, then start BVH Lab on a built-in scene"
	@echo "make test   set up, then ruff, the import rules and the whole test suite (virtual display)"
	@echo "make bench  set up with the peer libraries, then run the benchmarks"
	@echo "make lint   ruff check and the import rules (lint-imports)"
	@echo "make clean  remove .venv and every cache (numba, pytest, ruff)"

run: system-run display $(TEST_STAMP)
	$(PY) -m viewer

test: system-test $(TEST_STAMP) warmup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-logo
	$(PY) -m pytest -n $(TEST_WORKERS) $(if $(filter 0,$(TEST_WORKERS)),,--dist worksteal)

# The performance table, close proximity per bounding-volume kind, then the long robustness runs that do not fit the test budget:
# 1e6 triangle pairs against the exact rational test, and a 10,000-frame soak of the viewer's
# frame loop (memory, VTK object counts and frame time must stay flat). The interactive targets
# play scenes in the real window: on the caller's display, or under xvfb-run when there is none.
bench: $(BENCH_STAMP) warmup
	$(PY) -m benchmarks --competing-load $$(nproc)
	$(PY) -m benchmarks.w2_kinds --sizes 100k,500k
	$(PY) -m benchmarks.bv_refit --sizes 100k,500k
	$(PY) -m benchmarks.yu2018
	$(PY) -m benchmarks.interactive
	$(PY) -m core.collide.exact --pairs 1000000
	QT_QPA_PLATFORM=offscreen $(PY) -m viewer --soak 10000

lint: $(TEST_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-logo

warmup: $(TEST_STAMP)
	$(PY) -m core warmup

# Qt's own message for a missing display is an xcb plugin error; say what is wrong instead.
display:
	@if [ -z "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}$${QT_QPA_PLATFORM:-}" ]; then \
		echo "No display: run this in a desktop session (or over ssh -X, or with xvfb-run)."; \
		exit 1; \
	fi

system-run:
	@$(call ensure_system,$(QT_NEEDS))

system-test:
	@$(call ensure_system,$(TEST_NEEDS))

# `python3 -m venv` needs the ensurepip module, which Debian ships in python3-venv.
python-venv:
	@if ! $(PYTHON) -c "import ensurepip, venv" 2>/dev/null; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			apt-get update; \
			DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
				-o DPkg::Lock::Timeout=300 python3 python3-venv; \
		else \
			echo "Python's venv module is missing. Run this once, then retry:"; \
			echo "    sudo apt-get update && sudo apt-get install -y python3 python3-venv"; \
			exit 1; \
		fi; \
	fi

$(PY):
	@$(MAKE) --no-print-directory python-venv
	$(PYTHON) -m venv $(VENV)

# --no-compile: pip would byte-compile every module of every package (about 5,800 files,
# VTK's and Qt's included), single-threaded; Python compiles the few hundred the app and the
# tests import the first time they are imported.
PIP_INSTALL := $(PY) -m pip install --disable-pip-version-check --no-compile

$(TEST_STAMP): pyproject.toml | $(PY)
	$(PIP_INSTALL) -e '.[test]'
	@touch $@

$(BENCH_STAMP): pyproject.toml | $(PY)
	$(PIP_INSTALL) -e '.[test,bench]'
	@touch $@ $(TEST_STAMP)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .import_linter_cache .hypothesis build dist *.egg-info
	rm -rf "$${XDG_CACHE_HOME:-$$HOME/.cache}/bvh-lab"
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
