"""The Helm chart renders, validates against Kubernetes' schemas, passes checkov, and keeps the project's rules.

Every test renders through Helm's own SDK (no cluster, no binary), for each values file in the
chart's ci/ folder; what the pods would read (config.toml, suite.yaml, the policy files, the
NetworkPolicy description) is then read by the program itself.
"""

from __future__ import annotations

import copy
import json
import re
import ssl
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import CLI
from support.chart import (
    CHART,
    CI_VALUES,
    REPO,
    ci_values,
    config_file,
    find,
    manifests,
    mounted_config,
    network_description,
    pod_templates,
    render,
    rule_violations,
)
from support.tls import self_signed

from medhelm_local.export.signing import load_public_key
from medhelm_local.policy.loader import load_policy
from medhelm_local.policy.networkpolicy import chart_values, values_file
from medhelm_local.run.entry_sources import SuiteFile, read_suite
from medhelm_local.settings import Deployment, load_settings

helm_python = pytest.importorskip("helm_python", reason="install the test extra: pip install -e '.[test]'")
kubernetes_validate = pytest.importorskip("kubernetes_validate", reason="install the test extra")

# The Kubernetes versions the chart supports: the oldest and the newest are validated.
KUBERNETES_VERSIONS = ("1.25.0", "1.37.0")
CHECKOV = REPO / ".cache" / "checkov-venv" / "bin" / "checkov"
# Checkov checks skipped, each with the reason (also in helm-charts/medhelm-local/README.md).
CHECKOV_SKIPS = {
    "CKV_K8S_43": "an exact version tag is accepted besides a digest, for sites that import images onto nodes "
                  "without a registry; the schema refuses 'latest' and every other floating tag",
    "CKV_K8S_15": "IfNotPresent: an air-gapped node with an imported image has no registry to pull from at every "
                  "pod start; the image is pinned, so a cached copy is the image named",
}


@pytest.fixture(scope="module", params=CI_VALUES, ids=lambda p: p.stem)
def released(request: pytest.FixtureRequest) -> tuple[Path, list[dict[str, Any]]]:
    """(ci values file, rendered objects)."""
    path: Path = request.param
    return path, manifests(render(ci_values(path)))


def _with(values: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A deep copy of values with dotted keys set, e.g. _with(v, **{"secrets.kek": "x"})."""
    changed = copy.deepcopy(values)
    for dotted, value in changes.items():
        node = changed
        *parents, leaf = dotted.split(".")
        for key in parents:
            node = node.setdefault(key, {})
        node[leaf] = value
    return changed


def _refusal(values: dict[str, Any]) -> str:
    with pytest.raises(helm_python.HelmError) as caught:
        render(values)
    return str(caught.value)


def test_each_release_validates_against_the_oldest_and_newest_kubernetes(
        released: tuple[Path, list[dict[str, Any]]]) -> None:
    _, objects = released
    kinds = {o["kind"] for o in objects}
    assert {"ServiceAccount", "ConfigMap", "NetworkPolicy"} <= kinds and kinds & {"Job", "CronJob"}
    for version in KUBERNETES_VERSIONS:
        for obj in objects:
            kubernetes_validate.validate(obj, version, strict=True)  # raises on any schema error


def test_each_release_keeps_the_project_rules(released: tuple[Path, list[dict[str, Any]]]) -> None:
    _, objects = released
    assert rule_violations(objects) == []
    assert len(list(pod_templates(objects))) >= 1


def test_the_rule_check_finds_each_kind_of_breach() -> None:
    objects = manifests(render(ci_values(CHART / "ci" / "job.yaml")))
    job = find(objects, "Job")[0]
    pod = job["spec"]["template"]
    pod["spec"]["securityContext"].pop("seccompProfile")
    container = pod["spec"]["containers"][0]
    container["securityContext"]["readOnlyRootFilesystem"] = False
    container["image"] = "registry.hospital.example/medhelm-local:latest"
    container["env"].append({"name": "KEK", "valueFrom": {"secretKeyRef": {"name": "k", "key": "kek"}}})
    del container["resources"]["limits"]
    next(v for v in pod["spec"]["volumes"] if v["name"] == "secrets")["projected"]["defaultMode"] = 0o644
    pod["metadata"]["labels"]["app.kubernetes.io/instance"] = "elsewhere"  # no NetworkPolicy selects it now
    objects.append({"kind": "Secret", "metadata": {"name": "leaked"}, "data": {"kek": "YWJj"}})

    found = "\n".join(rule_violations(objects))

    for breach in ("seccompProfile is not RuntimeDefault", "root filesystem is writable", "is not pinned",
                   "secret KEK in the environment", "no limits for cpu, memory", "secret volume secrets mode 0644",
                   "no NetworkPolicy selects its pods "
                   "for Ingress", "renders a Secret"):
        assert breach in found


def test_checkov_passes_every_rendered_release(tmp_path: Path) -> None:
    if not CHECKOV.exists():
        pytest.skip("checkov lives in its own environment (it pins packaging<24, pytest needs >=24): `make checkov`")
    for path in CI_VALUES:
        folder = tmp_path / path.stem
        folder.mkdir()
        for template, text in render(ci_values(path)).items():
            if template.endswith(".yaml") and text.strip():
                (folder / Path(template).name).write_text(text)
    done = subprocess.run([str(CHECKOV), "-d", str(tmp_path), "--framework", "kubernetes", "--compact",
                           "--skip-download", "--output", "json", "--skip-check", ",".join(CHECKOV_SKIPS)],
                          capture_output=True, text=True, timeout=300)
    report = json.loads(done.stdout)
    summary = report["summary"]
    failed = [f"{c['check_id']} {c['check_name']}: {c['resource']}" for c in report["results"]["failed_checks"]]
    assert failed == [] and summary["parsing_errors"] == 0
    # Skipped in the chart itself (checkov.io/skip annotations, each with its reason): the helm-test Pod's probes.
    assert {c["check_id"] for c in report["results"]["skipped_checks"]} == {"CKV_K8S_8", "CKV_K8S_9"}
    assert summary["passed"] > 300 and summary["resource_count"] >= 30


def test_the_pods_settings_suite_and_policy_load_in_the_program(
        released: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    path, objects = released
    values = ci_values(path)
    etc = mounted_config(objects, tmp_path / "etc")

    settings = load_settings(etc / "config.toml")
    loaded = load_policy(etc / "policies")

    assert settings.kek_file == Path("/run/secrets/medhelm-local/kek")
    assert settings.policy_dir == Path("/etc/medhelm-local/policies")
    assert set(settings.deployments) == set(values["deployments"])
    for name, dep in values["deployments"].items():
        loaded_dep = settings.deployments[name]
        assert loaded_dep.base_url == dep["baseUrl"].rstrip("/")
        assert (loaded_dep.api_key_file is not None) == ("apiKey" in dep)
        snake = lambda key: re.sub(r"[A-Z]", lambda m: "_" + m[0].lower(), key)  # noqa: E731
        for key, value in dep.items():
            if key == "price":
                assert {k: getattr(loaded_dep.price, snake(k)) for k in value} == value
            elif key not in ("baseUrl", "apiKey"):
                assert getattr(loaded_dep, snake(key)) == value
    assert loaded.digest == values["policy"]["digest"] == network_description(objects)["policy_digest"]
    spec = read_suite(etc / "suite" / "suite.yaml")
    assert spec.name == values["suite"]["name"]
    assert len(spec.entries) == len(values["suite"]["models"]) * len(values["suite"]["benchmarks"])


def test_policy_check_in_a_pod_explains_the_rendered_networkpolicy(
        released: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    path, objects = released
    etc = mounted_config(objects, tmp_path / "etc")
    done = subprocess.run([str(CLI), "policy", "check", "--json", "--policy-dir", str(etc / "policies"),
                           "--networkpolicy", str(etc / "networkpolicy.json")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rules = {(r["subject"], r["rule"]) for r in json.loads(done.stdout)["rules"] if r["section"] == "network"}
    subjects = {s for s, _ in rules}
    for entry in ci_values(path)["policy"]["egress"]:
        assert f"egress {entry['host']}:{entry['port']}" in subjects
    agreement = dict(rules)["agreement with egress.yaml"]
    assert agreement.startswith("matches"), agreement
    dns = dict(rules)["DNS"]
    names = any(e["kind"] != "address" for e in ci_values(path)["policy"]["egress"])
    assert dns.startswith("allowed to pods k8s-app=kube-dns in namespace kube-system") if names else dns.startswith(
        "none")


def test_the_data_import_checks_bundles_with_the_mounted_staging_key(tmp_path: Path) -> None:
    objects = manifests(render(ci_values(CHART / "ci" / "scheduled.yaml")))
    etc = mounted_config(objects, tmp_path / "etc", component="data-import")
    job = find(objects, "Job", "medhelm-local-data-import-1")[0]
    steps = job["spec"]["template"]["spec"]["initContainers"]

    assert load_public_key(etc / "staging.pub") is not None
    assert [s["args"] for s in steps] == [["data", "import", "/incoming/medhelm-data", "--replace", "--public-key",
                                           "/etc/medhelm-local/staging.pub"]]
    unsigned = _with(ci_values(CHART / "ci" / "scheduled.yaml"), **{"dataImport.stagingPublicKey": ""})
    assert "at '/dataImport'" in _refusal(unsigned)


def test_a_hospital_ca_bundle_is_what_every_pod_trusts_for_tls(tmp_path: Path) -> None:
    ca = tmp_path / "ca"
    ca.mkdir()
    self_signed(ca)  # stands for the hospital's CA certificate
    pem = (ca / "cert.pem").read_text()
    values = _with(ci_values(CHART / "ci" / "sharded.yaml"), **{"tls.caBundle": pem})
    objects = manifests(render(values))
    ours = [(where, pod["spec"]["containers"][0]) for where, pod in pod_templates(objects)
            if pod["spec"]["containers"][0].get("command") == ["medhelm-local"]]
    assert len(ours) == 4  # the evaluator shards, the merge, the viewer, the `helm test` pod (not vLLM's)
    for where, container in ours:
        env = {e["name"]: e.get("value") for e in container["env"]}
        assert env["SSL_CERT_FILE"] == "/etc/medhelm-local/ca/ca.crt", where
        assert {"name": "config", "mountPath": "/etc/medhelm-local", "readOnly": True} in container["volumeMounts"]
    etc = mounted_config(objects, tmp_path / "etc", component="evaluator")
    assert (etc / "ca" / "ca.crt").read_text() == pem
    trusted = ssl.create_default_context(cafile=etc / "ca" / "ca.crt")  # OpenSSL reads it as a trust store
    assert trusted.cert_store_stats()["x509"] == 1
    # Without a bundle the pods keep the image's own authorities only.
    plain = manifests(render(ci_values(CHART / "ci" / "sharded.yaml")))
    assert not any(e["name"] == "SSL_CERT_FILE" for _, pod in pod_templates(plain)
                   for e in pod["spec"]["containers"][0]["env"])


def test_each_ci_policy_block_is_what_the_program_generates(tmp_path: Path) -> None:
    for path in CI_VALUES:
        block = ci_values(path)["policy"]
        folder = tmp_path / path.stem
        folder.mkdir()
        for name, text in block["files"].items():
            (folder / name).write_text(text)
        assert chart_values(load_policy(folder))["policy"] == block, f"{path.name}: regenerate its policy block"


def test_each_ci_policy_lets_a_role_approve_the_policy_exports_run_under() -> None:
    """Exports run only under an approved policy: a deployment whose roles.yaml lets nobody approve one
    could never export."""
    for path in CI_VALUES:
        roles = yaml.safe_load(ci_values(path)["policy"]["files"]["roles.yaml"])["roles"]
        assert any(role.get("approves_policy") for role in roles.values()), path.name


def test_a_site_policy_with_audit_forwarding_reaches_the_pods(tmp_path: Path) -> None:
    folder = tmp_path / "policies"
    folder.mkdir()
    for shipped in (REPO / "policies").glob("*.yaml"):
        (folder / shipped.name).write_text(shipped.read_text())
    (folder / "audit.yaml").write_text("forward:\n  - file: /var/lib/medhelm-local/audit/forwarded.jsonl\n")
    policy = load_policy(folder)
    values = _with(ci_values(CHART / "ci" / "job.yaml"), policy=chart_values(policy)["policy"],
                   **{"deployments.vllm.baseUrl": "http://127.0.0.1:8000/v1"})

    objects = manifests(render(values))

    assert config_file(objects, "audit.yaml") == (folder / "audit.yaml").read_text()
    assert network_description(objects)["policy_digest"] == policy.digest


def test_the_charts_default_policy_is_generated_from_the_shipped_policies() -> None:
    shipped = (CHART / "files" / "policy-values.yaml").read_text()
    assert shipped == values_file(load_policy(REPO / "policies")), (
        "helm-charts/medhelm-local/files/policy-values.yaml differs from policies/: run `make chart-policy`")


def test_without_site_policy_values_the_chart_uses_the_shipped_policy() -> None:
    values = _with(ci_values(CHART / "ci" / "job.yaml"), policy={},
                   **{"deployments.vllm.baseUrl": "http://127.0.0.1:8000/v1"})
    objects = manifests(render(values))
    assert network_description(objects)["policy_digest"] == load_policy(REPO / "policies").digest
    assert config_file(objects, "egress.yaml") == (REPO / "policies" / "egress.yaml").read_text()


def test_without_networkpolicy_the_pods_are_told_it_is_not_in_use(tmp_path: Path) -> None:
    values = _with(ci_values(CHART / "ci" / "job.yaml"), **{"networkPolicy.enabled": False})
    objects = manifests(render(values))
    assert find(objects, "NetworkPolicy") == []
    described = tmp_path / "networkpolicy.json"
    described.write_text(config_file(objects, "networkpolicy.json"))
    done = subprocess.run([str(CLI), "policy", "check", "--json",
                           "--networkpolicy", str(described)], capture_output=True, text=True, timeout=120)
    network = [r["rule"] for r in json.loads(done.stdout)["rules"] if r["section"] == "network"]
    assert network == ["not in use: release medhelm-local in namespace medhelm was installed with "
                       "networkPolicy.enabled=false; layers (a) and (b) still apply"]


@pytest.mark.parametrize(("change", "message"), [
    ({"secrets.kek.value": "ab" * 32}, "at '/secrets/kek': additional properties 'value' not allowed"),
    ({"deployments.vllm": {"model": "qwen2.5-7b"}}, "at '/deployments/vllm': missing property 'baseUrl'"),
    ({"secrets.kek.existingSecret": ""}, "at '/secrets/kek/existingSecret'"),
    ({"image.tag": "latest"}, "at '/image/tag'"),
    ({"suite.models": []}, "at '/suite/models'"),
    ({"tls.caBundle": "MIIBszCCAVmgAwIBAgIU"}, "at '/tls/caBundle'"),  # a certificate without its PEM armour
])
def test_bad_values_fail_the_schema_naming_the_value(change: dict[str, Any], message: str) -> None:
    refusal = _refusal(_with(ci_values(CHART / "ci" / "job.yaml"), **change))
    assert "values don't meet the specifications of the schema" in refusal and message in refusal


@pytest.mark.parametrize(("file", "change", "message"), [
    ("job", {"deployments.vllm.baseUrl": "http://10.20.0.9:8000/v1"},
     "deployments.vllm.baseUrl connects to 10.20.0.9:8000, which is not on the egress allowlist"),
    ("job", {"secrets.kek": "ab" * 32}, "secrets.kek holds a value, but secrets are never chart values"),
    ("job", {"deployments.vllm.apiKey": "sk-123"},
     "deployments.vllm.apiKey holds a value, but secrets are never chart values"),
    ("sharded", {"viewer.token": "t0k3n"}, "viewer.token holds a value, but secrets are never chart values"),
    ("job", {"suite.models": [{"model": "local/x", "deployment": "ollama"}]},
     'suite.models names deployment "ollama" for model "local/x", but deployments has no such entry'),
    ("sharded", {"networkPolicy.services": []},
     "egress.yaml allows judge.models.svc.cluster.local:8000, a Service in namespace models, but a NetworkPolicy "
     "selects pods, not Services"),
    ("scheduled", {"networkPolicy.addresses": []},
     "egress.yaml allows gpu01.hospital.example:8443, a host name outside the cluster, but a NetworkPolicy cannot "
     "name hosts"),
    ("sharded", {"vllm.port": 9000}, "but the chart's vLLM Service listens on port 9000"),
])
def test_values_that_break_the_egress_rules_fail_rendering(file: str, change: dict[str, Any], message: str) -> None:
    refusal = _refusal(_with(ci_values(CHART / "ci" / f"{file}.yaml"), **change))
    assert message in refusal


def test_edited_policy_values_are_refused() -> None:
    values = ci_values(CHART / "ci" / "job.yaml")
    edited_file = copy.deepcopy(values)
    edited_file["policy"]["files"]["egress.yaml"] += "  - {host: 10.9.9.9, port: 22, purpose: inference, why: x}\n"
    assert "policy.files do not match policy.digest" in _refusal(edited_file)
    edited_rule = copy.deepcopy(values)
    edited_rule["policy"]["egress"][0]["cidr"] = "0.0.0.0/0"
    assert "policy.egress does not match policy.egressDigest" in _refusal(edited_rule)


def test_every_deployment_setting_and_suite_field_has_a_chart_value() -> None:
    schema = json.loads((CHART / "values.schema.json").read_text())
    chart_fields = schema["properties"]["deployments"]["additionalProperties"]["properties"]
    for name in Deployment.model_fields:
        first, *rest = name.removesuffix("_file").split("_")
        assert first + "".join(w.capitalize() for w in rest) in chart_fields, f"deployment field {name}: no chart value"
    suite_fields = set(schema["properties"]["suite"]["properties"])
    assert suite_fields == set(SuiteFile.model_fields) - {"suite"} | {"name"}, "suite file changed: update the chart"


def test_the_chart_lints_and_every_value_has_a_schema() -> None:
    report = helm_python.lint(str(CHART), ci_values(CHART / "ci" / "sharded.yaml"), strict=True)
    assert report["errors"] == [] and [m for m in report["messages"] if m["severity"] >= 2] == []
    schema = json.loads((CHART / "values.schema.json").read_text())
    defaults = yaml.safe_load((CHART / "values.yaml").read_text())
    assert schema["additionalProperties"] is False and set(defaults) <= set(schema["properties"])
