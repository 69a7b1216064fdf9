#!/usr/bin/env bash
# Build .cache/helm-venv: crfm-helm 0.5.16 from the package index without its dependencies, plus the few
# pure-Python modules its scenario and adapter code imports (requirements.txt). Only for regenerating the
# digests in tests/data/helm_parity; the appliance, `make test` and CI never need it.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.cache/helm-venv
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --no-deps crfm-helm==0.5.16
"$venv/bin/pip" install --quiet -r tools/helm_parity/requirements.txt
echo "HELM environment ready: $venv/bin/python tools/helm_parity/generate.py"
