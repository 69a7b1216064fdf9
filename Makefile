# Two commands on a fresh machine: `make demo` and `make test`. Everything built lands in
# git-ignored folders of this checkout (.venv, .cache) and is reused on the next run.
PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.medhelm-installed
MODEL := .cache/tiny-model
WHEELHOUSE := .cache/wheelhouse
# checkov needs packaging<24 and pytest needs >=24, so it gets an environment of its own.
CHECKOV := checkov==3.3.30
CHECKOV_STAMP := .cache/checkov-venv/.installed
# The tests check this project's ICC against pingouin's, and MedHELM's validation statistics against its
# method (tests/support/medhelm_validation_reference.py: pingouin, pandas, scipy, scikit-learn; numpy as
# .venv has it, for the same bootstrap draws). pingouin pulls in scipy, pandas and more; nltk (under
# rouge-score) imports scipy.stats when it is installed, which made every ROUGE-scored run in .venv 2 s
# slower to start (measured), so pingouin gets an environment of its own too.
PINGOUIN := pingouin==0.7.0 scikit-learn==1.9.1 scipy==1.17.1 pandas==3.1.1 numpy==2.4.6
PINGOUIN_STAMP := .cache/pingouin-venv/.installed

.PHONY: demo test test-setup image-if-possible lint venv vllm llama bytecode clean wheelhouse wheelhouse-lock image checkov pingouin chart-policy

demo: venv vllm bytecode ## Set everything up, start vLLM with the tiny model, run PubMedQA + MedCalc-Bench
	bash deploy/demo/run_demo.sh

# The set-up steps are mostly single-threaded pip installs (and the image's Debian base), so on a fresh machine
# they run side by side (--jobs), each one's output printed whole when it ends (--output-sync).
test: ## Set everything up and run the whole test suite
	$(MAKE) --jobs=4 --output-sync=target --no-print-directory test-setup
	$(VPY) -m pytest --durations=30

test-setup: venv vllm llama bytecode checkov pingouin wheelhouse image-if-possible

# The image test builds the image itself when it is out of date; built here, beside the other set-up steps, the
# test finds it up to date. Where root, buildah or mmdebstrap is missing the test skips, so nothing is built; a
# build that fails here is left for the test to run again and report.
image-if-possible: wheelhouse
	@if [ "$$(id -u)" = 0 ] && command -v buildah >/dev/null && command -v mmdebstrap >/dev/null; then \
	  bash deploy/container/build.sh || echo "image: build failed here; tests/deploy/test_image.py builds it again and reports why"; \
	else echo "image: not built (needs root, buildah and mmdebstrap; its test skips)"; fi

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
	$(VPY) -c "from medhelm_local.report.pages import compile_templates; compile_templates()"

vllm: ## The vLLM CPU server's own environment (.cache/vllm-venv) and the tiny model it serves
	$(PYTHON) deploy/local_vllm/vllm_server.py ensure --model-dir $(MODEL)

# The second real engine: llama.cpp's server (llama-cpp-python, the engine Ollama wraps). Its wheel is compiled
# once from the sdist into .cache/llama-wheels (minutes), installed into .cache/llama-venv, and serves the
# tiny model written as GGUF (.cache/tiny-gguf).
llama: vllm ## The llama.cpp server's environment (.cache/llama-venv) and the tiny model as GGUF
	$(PYTHON) deploy/local_llama/llama_server.py ensure --model-dir $(MODEL)

# The offline install: every wheel the program needs and requirements.lock (sha256 of each), rebuilt
# when the code, the policies or the locks change. Install with pip --no-index --require-hashes.
wheelhouse: $(WHEELHOUSE)/requirements.lock ## Every wheel the program needs, hashed, in .cache/wheelhouse

$(WHEELHOUSE)/requirements.lock: pyproject.toml deploy/wheelhouse/wheels.lock deploy/wheelhouse/sources.lock \
		$(shell find medhelm_local policies redaction -type f ! -name '*.pyc' 2>/dev/null) | venv
	$(VPY) deploy/wheelhouse/wheelhouse.py build --out $(WHEELHOUSE)

wheelhouse-lock: venv ## After changing a dependency: resolve again and rewrite deploy/wheelhouse/*.lock
	$(VPY) deploy/wheelhouse/wheelhouse.py lock

image: wheelhouse ## The container image, built with no registry (needs root, buildah, mmdebstrap)
	bash deploy/container/build.sh

checkov: $(CHECKOV_STAMP)

pingouin: $(PINGOUIN_STAMP)

$(PINGOUIN_STAMP): Makefile
	$(PYTHON) -m venv .cache/pingouin-venv
	.cache/pingouin-venv/bin/pip install --quiet $(PINGOUIN)
	touch $@

$(CHECKOV_STAMP): Makefile
	$(PYTHON) -m venv .cache/checkov-venv
	.cache/checkov-venv/bin/pip install --quiet $(CHECKOV)
	touch $@

chart-policy: venv ## After editing policies/: regenerate the Helm chart's default policy values
	$(VENV)/bin/medhelm-local policy chart-values --policy-dir policies --out helm-charts/medhelm-local/files/policy-values.yaml

clean: ## Remove demo output (keeps the environments and model)
	rm -rf .cache/demo
