"""The Helm chart rendered offline through Helm's own SDK, and the project's rules for what it renders.

`render(values)` goes through `helm_python` (Helm's Go SDK in a shared library): values are
checked against values.schema.json and the templates run exactly as `helm install` runs them.
`rule_violations(manifests)` says, in words, every way a rendered release breaks the project's
deployment rules; an empty list is a pass.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "helm-charts" / "medhelm-local"
CI_VALUES = sorted((CHART / "ci").glob("*.yaml"))
RELEASE, NAMESPACE = "medhelm-local", "medhelm"

_PINNED = re.compile(r"(@sha256:[a-f0-9]{64}|:v?[0-9]+(\.[0-9]+){1,3}([-+_.][0-9A-Za-z_.-]+)?)$")
_ALLOWED_VOLUMES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
                    "projected", "secret"}
_SECRET_WORDS = re.compile(r"(^|_)(kek|token|password|secret|api_key|private_key)$", re.IGNORECASE)


def render(values: dict[str, Any]) -> dict[str, str]:
    """Template path -> rendered text, as `helm template` makes them (HelmError on bad values)."""
    import helm_python

    with helm_python.Chart.load(str(CHART)) as chart:
        rendered: dict[str, str] = chart.render(values, name=RELEASE, namespace=NAMESPACE)
    return rendered


def manifests(rendered: dict[str, str]) -> list[dict[str, Any]]:
    """Every Kubernetes object in a render (NOTES.txt and empty templates left out)."""
    objects = []
    for path, text in sorted(rendered.items()):
        if path.endswith(".yaml"):
            objects += [doc for doc in yaml.safe_load_all(text) if doc]
    return objects


def ci_values(path: Path) -> dict[str, Any]:
    """One of the chart's ci/*.yaml files."""
    values: dict[str, Any] = yaml.safe_load(path.read_text())
    return values


def find(objects: list[dict[str, Any]], kind: str, name: str | None = None) -> list[dict[str, Any]]:
    """Objects of a kind (and name)."""
    return [o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]


def config_file(objects: list[dict[str, Any]], key: str) -> str:
    """A file of the release's ConfigMaps, by key (config.toml, networkpolicy.json, suite.yaml, egress.yaml...)."""
    for cm in find(objects, "ConfigMap"):
        if key in cm.get("data", {}):
            text: str = cm["data"][key]
            return text
    raise KeyError(key)


def mounted_config(objects: list[dict[str, Any]], dest: Path, component: str | None = None) -> Path:
    """The /etc/medhelm-local folder a medhelm-local pod (of a component) sees, written under `dest`."""
    volume = next(v for _, pod in pod_templates(objects) for v in pod["spec"]["volumes"] if v["name"] == "config"
                  and component in (None, pod["metadata"]["labels"].get("app.kubernetes.io/component")))
    for source in volume["projected"]["sources"]:
        data = find(objects, "ConfigMap", source["configMap"]["name"])[0]["data"]
        for item in source["configMap"]["items"]:
            target = dest / item["path"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(data[item["key"]])
    return dest


def pod_templates(objects: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(object, pod template) for every workload that makes pods."""
    for o in objects:
        spec = o.get("spec", {})
        if o["kind"] in ("Job", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"):
            yield f"{o['kind']}/{o['metadata']['name']}", spec["template"]
        elif o["kind"] == "CronJob":
            yield f"CronJob/{o['metadata']['name']}", spec["jobTemplate"]["spec"]["template"]
        elif o["kind"] == "Pod":
            yield f"Pod/{o['metadata']['name']}", o


def _restricted(where: str, pod: dict[str, Any]) -> list[str]:
    spec, problems = pod["spec"], []
    psc = spec.get("securityContext", {})
    if psc.get("runAsNonRoot") is not True:
        problems.append(f"{where}: pod securityContext.runAsNonRoot is not true")
    if psc.get("seccompProfile", {}).get("type") != "RuntimeDefault":
        problems.append(f"{where}: pod seccompProfile is not RuntimeDefault")
    if spec.get("automountServiceAccountToken") is not False:
        problems.append(f"{where}: the service-account token is mounted")
    for flag in ("hostNetwork", "hostPID", "hostIPC"):
        if spec.get(flag):
            problems.append(f"{where}: {flag} is set")
    for volume in spec.get("volumes", []):
        kinds = set(volume) - {"name"}
        if not kinds <= _ALLOWED_VOLUMES:
            problems.append(f"{where}: volume {volume['name']} is of a kind restricted pods may not use: {kinds}")
        problems += _secret_modes(where, volume, psc)
    for c in spec.get("initContainers", []) + spec["containers"]:
        name, csc = f"{where} container {c['name']}", c.get("securityContext", {})
        if csc.get("allowPrivilegeEscalation") is not False:
            problems.append(f"{name}: allowPrivilegeEscalation is not false")
        if csc.get("readOnlyRootFilesystem") is not True:
            problems.append(f"{name}: the root filesystem is writable")
        if "ALL" not in csc.get("capabilities", {}).get("drop", []):
            problems.append(f"{name}: capabilities are not all dropped")
        if set(csc.get("capabilities", {}).get("add", [])) - {"NET_BIND_SERVICE"}:
            problems.append(f"{name}: adds capabilities")
        if csc.get("privileged"):
            problems.append(f"{name}: privileged")
        for part in ("requests", "limits"):
            missing = {"cpu", "memory"} - set(c.get("resources", {}).get(part, {}))
            if missing:
                problems.append(f"{name}: no {part} for {', '.join(sorted(missing))}")
        if not _PINNED.search(c["image"]) or c["image"].endswith(":latest"):
            problems.append(f"{name}: image {c['image']} is not pinned by digest or exact version tag")
        for env in c.get("env", []):
            if "secretKeyRef" in env.get("valueFrom", {}) or _SECRET_WORDS.search(env["name"]):
                problems.append(f"{name}: secret {env['name']} in the environment (secrets are mounted files)")
    return problems


def _secret_modes(where: str, volume: dict[str, Any], psc: dict[str, Any]) -> list[str]:
    """A Secret's files must be readable by their owner (root) and the pod's fsGroup only: the program refuses a
    key file others may read (medhelm_local/store/keys.py), and reads root's file through the fsGroup."""
    projected = volume.get("projected", {})
    sources = [volume["secret"]] if "secret" in volume else [s["secret"] for s in projected.get("sources", [])
                                                               if "secret" in s]
    if not sources:
        return []
    default = volume.get("secret", projected).get("defaultMode", 0o644)  # Kubernetes' default when none is given
    modes = {default, *(item["mode"] for src in sources for item in src.get("items", []) if "mode" in item)}
    problems = [f"{where}: secret volume {volume['name']} mode {m:04o} lets more than root and the pod's group "
                "read the keys" for m in sorted(modes) if m & ~0o440]
    if psc.get("fsGroup") is None:
        problems.append(f"{where}: secret volume {volume['name']} without a pod fsGroup, so its non-root process "
                        "cannot read root's 0440 files")
    return problems


def _selects(policy: dict[str, Any], labels: dict[str, str]) -> bool:
    selector = policy["spec"]["podSelector"]
    if set(selector) - {"matchLabels"}:
        return False  # matchExpressions: not used by this chart, so not evaluated here
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items())


def _no_secret_values(objects: list[dict[str, Any]]) -> list[str]:
    problems = [f"Secret/{o['metadata']['name']}: the chart renders a Secret (secrets are by reference only)"
                for o in find(objects, "Secret")]
    for cm in find(objects, "ConfigMap"):
        for key, text in cm.get("data", {}).items():
            for line in str(text).splitlines():
                setting = line.split("=", 1)[0].strip() if "=" in line and not line.lstrip().startswith("#") else ""
                if setting and not setting.endswith("_file") and _SECRET_WORDS.search(setting):
                    problems.append(f"ConfigMap/{cm['metadata']['name']} {key}: holds the secret setting {setting}")
    return problems


def rule_violations(objects: list[dict[str, Any]]) -> list[str]:
    """Every breach of the project's rules: restricted pods, default-deny NetworkPolicy, no secrets, pinned images."""
    problems = _no_secret_values(objects)
    policies = find(objects, "NetworkPolicy")
    for where, pod in pod_templates(objects):
        problems += _restricted(where, pod)
        labels = pod["metadata"].get("labels", {})
        covering = [p for p in policies if _selects(p, labels)]
        for direction in ("Ingress", "Egress"):
            if not any(direction in p["spec"].get("policyTypes", []) for p in covering):
                problems.append(f"{where}: no NetworkPolicy selects its pods for {direction}")
    return problems


def network_description(objects: list[dict[str, Any]]) -> dict[str, Any]:
    """The chart's account of its NetworkPolicy (what `policy check` reads in the pods)."""
    described: dict[str, Any] = json.loads(config_file(objects, "networkpolicy.json"))
    return described
