#!/usr/bin/env bash
# The demo behind `make demo`: a real vLLM (CPU build) serving the project's tiny model on
# 127.0.0.1, PubMedQA and MedCalc-Bench (50 instances each) asked through the server's chat and
# completions APIs (two "models" to compare), and an open-ended card (deploy/demo/cards) whose
# answers a two-judge LLM jury rates, all into one encrypted store; the results table, a signed
# export bundle checked with the public key alone, then the HTML report of the suite. Everything it
# makes lives in .cache/demo (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/../.."

work=.cache/demo
cli=.venv/bin/medhelm-local
python=.venv/bin/python
mkdir -p "$work"
export MEDHELM_KEK_FILE="$PWD/$work/kek"
# No installation file here (a development set-up): the audit log is the user's own, in their data folder.
# The demo keeps its own data folder, so its log lives and goes with .cache/demo (and its KEK).
export XDG_DATA_HOME="$PWD/$work/data-home"
[ -f "$MEDHELM_KEK_FILE" ] || "$cli" keys init --out "$MEDHELM_KEK_FILE" >/dev/null

for dataset in pubmedqa medcalc_bench; do
  "$cli" data import "deploy/demo/datasets/$dataset" --data-root "$work/data" --replace >/dev/null
done
# A fresh store each time, so the demo always shows a whole run (rerunning a suite resumes it).
rm -f "$work/results/demo.duckdb" "$work/results/demo.duckdb.key" "$work/results/demo.duckdb.wal"
rm -rf "$work/bundle" "$work/report"

echo "Starting vLLM (CPU) with the tiny test model on 127.0.0.1 (about 20 s)..."
"$python" deploy/local_vllm/vllm_server.py start --model-dir .cache/tiny-model \
  --port-file "$work/port" --pid-file "$work/pid" --log "$work/vllm.log"
trap '"$python" deploy/local_vllm/vllm_server.py stop --pid-file "$work/pid" >/dev/null 2>&1 || true' EXIT

# The policy: the shipped files, with an egress allowlist naming this one vLLM server (nothing
# else is reachable: not the internet, not another local port). Its purpose is judge: here the one
# server also plays the jury (a judge endpoint may also serve models under evaluation).
mkdir -p "$work/policies"
cp policies/export.yaml policies/retention.yaml policies/roles.yaml "$work/policies/"
cat > "$work/policies/egress.yaml" <<YAML
default: deny
allow:
  - host: 127.0.0.1
    port: $(cat "$work/port")
    purpose: judge
    why: the demo's vLLM server (CPU build, tiny test model) on this host, model and judges
YAML

cat > "$work/config.toml" <<TOML
data_root = "$PWD/$work/data"
output_dir = "$PWD/$work/results"
policy_dir = "$PWD/$work/policies"
signing_key_file = "$PWD/$work/signing.key"
benchmark_cards = ["$PWD/deploy/demo/cards"]
# The jury that rates open-ended answers: two judge deployments (in a hospital, two different
# models on their own servers; here the same tiny model under two names).
jury = "demo"

[juries.demo]
judges = ["judge-a", "judge-b"]

[deployments.vllm-local]
base_url = "http://127.0.0.1:$(cat "$work/port")/v1"
model = "tiny-llama"
api = "chat"
max_concurrency = 8
timeout_s = 60

[deployments.vllm-completions]
base_url = "http://127.0.0.1:$(cat "$work/port")/v1"
model = "tiny-llama"
api = "completions"
max_concurrency = 8
timeout_s = 60

[deployments.judge-a]
base_url = "http://127.0.0.1:$(cat "$work/port")/v1"
model = "tiny-llama"
max_concurrency = 8
timeout_s = 120

[deployments.judge-b]
base_url = "http://127.0.0.1:$(cat "$work/port")/v1"
model = "tiny-llama"
max_concurrency = 8
timeout_s = 120
TOML

"$cli" --config "$work/config.toml" run \
  "pubmed_qa:model=local/tiny-llama,model_deployment=vllm-local" \
  "medcalc_bench:model=local/tiny-llama,model_deployment=vllm-local" \
  "pubmed_qa:model=local/tiny-llama-completions,model_deployment=vllm-completions" \
  "medcalc_bench:model=local/tiny-llama-completions,model_deployment=vllm-completions" \
  "discharge_advice:model=local/tiny-llama,model_deployment=vllm-local" \
  --suite demo --max-eval-instances 50

echo
echo "Exporting the suite as a compliance officer: redacted per policy, signed, recorded in the audit log..."
[ -f "$work/signing.key" ] || "$cli" --config "$work/config.toml" keys signing-init --out "$work/signing.key" >/dev/null
# Exports run only under a policy and rule pack the compliance officer approved (signed, in the audit log).
"$cli" --config "$work/config.toml" policy approve --role compliance_officer
# The discharge-advice card is the hospital's own (private) data: under the shipped policy its redacted answers
# and the judges' explanations leave only after a second person read them (`review`). The review is asked for
# here; the numbers of every run leave at once (the manifest marks the jury-scored column validated or not).
requested=$("$cli" --config "$work/config.toml" review request demo --role compliance_officer)
echo "$requested"
[[ $requested =~ (rv-[0-9a-f]+) ]]
review=${BASH_REMATCH[1]}
"$cli" --config "$work/config.toml" export demo --to "$work/bundle" --role compliance_officer --include aggregates
"$cli" verify "$work/bundle" --public-key "$work/signing.pub"
echo "The private run's answers wait for review $review: a compliance officer other than you opens it in the viewer"
echo "(\`serve demo\`, page /review/$review), checks every redaction and approves; then"
echo "  $cli --config $work/config.toml export demo --role compliance_officer --review $review --to $work/bundle-text"

echo
echo "The tiny model has random weights, so its answers are nonsense; every byte still went through a real"
echo "vLLM server and into the encrypted store $work/results/demo.duckdb. Explore it with:"
echo "  MEDHELM_KEK_FILE=$work/kek $cli --config $work/config.toml runs list"
echo "  XDG_DATA_HOME=$work/data-home MEDHELM_KEK_FILE=$work/kek $cli --config $work/config.toml audit show"
echo "  MEDHELM_KEK_FILE=$work/kek $cli --config $work/config.toml show RUN_ID --instances 3   # judges' ratings"

echo
echo "Comparing the two models: the report of the demo suite (read from the store; no model is asked)..."
"$cli" --config "$work/config.toml" report demo --out "$work/report"
echo "In it: the leaderboard, the taxonomy heat map, paired comparisons, and every answer with its scores."
echo "To browse the live store instead (it prints a link carrying its access token):"
echo "  MEDHELM_KEK_FILE=$work/kek $cli --config $work/config.toml serve demo"
