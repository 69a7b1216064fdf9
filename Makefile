# Two commands on a fresh machine: `make demo` and `make test`. Everything built lands in
# git-ignored folders of this checkout (.venv, .cache) and is reused on the next run.
PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.medhelm-installed
MODEL := .cache/tiny-model

.PHONY: demo test lint venv vllm bytecode clean

demo: venv vllm bytecode ## Set everything up, start vLLM with the tiny model, run PubMedQA + MedCalc-Bench
	bash deploy/demo/run_demo.sh

test: venv vllm bytecode ## Set everything up and run the whole test suite
	$(VPY) -m pytest

lint: venv ## Static checks
	$(VPY) -m ruff check medhelm_local tests bench deploy
	$(VPY) -m mypy medhelm_local

venv: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# An editable install leaves the package uncompiled, and where PYTHONDONTWRITEBYTECODE is set (CI
# images) every command would compile it again: ~80 ms of each start-up (bench/throughput.py).
# compileall rewrites only what changed.
bytecode: venv
	$(VPY) -m compileall -q medhelm_local

vllm: ## The vLLM CPU server's own environment (.cache/vllm-venv) and the tiny model it serves
	$(PYTHON) deploy/local_vllm/vllm_server.py ensure --model-dir $(MODEL)

clean: ## Remove demo output (keeps the environments and model)
	rm -rf .cache/demo
