# Thin aliases for dev.py, which does the work (and needs only Python 3.11).
PY ?= python3.11
.PHONY: setup gen gen-check lint test bench demo proto-baseline
setup gen gen-check lint test bench demo proto-baseline:
	$(PY) dev.py $@
