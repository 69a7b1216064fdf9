"""The hostile-file corpus's targets: for each command and option that reads a file, where the hostile file
goes and the command line that reads it (tests/cli/test_hostile_corpus.py runs them; tests/support/hostile.py
builds the files). Each builder makes, in its own folder `w`, what the command needs around the hostile file.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from conftest import DEMO_DATASETS, REPO, SHIPPED_POLICIES

from medhelm_local.scenarios.datafiles import import_dataset
from medhelm_local.store.keys import write_new_kek
from support import hostile

SHIPPED_RULES = REPO / "redaction"
CARD = REPO / "docs" / "private-benchmarks" / "mental_health.yaml"
ENTRY = "pubmed_qa:model=local/m,model_deployment=fake"
JUDGED = "ward_notes:model=local/m,model_deployment=fake"  # the site's own card, scored by an LLM jury


@dataclass(frozen=True)
class Site:
    """An appliance to aim hostile files at: a config, a KEK, the 'ward' store, a signed bundle, a data root."""

    root: Path
    config: Path
    kek_file: Path
    store: Path
    bundle: Path
    data_root: Path
    public_key: Path

    @property
    def env(self) -> dict[str, str]:
        """The site's own environment (it is module-scoped, made before each test's isolated one): its KEK, and
        its home and data folder, which hold the development audit log its approval is recorded in."""
        return {"MEDHELM_KEK_FILE": str(self.kek_file), "HOME": str(self.root), "XDG_CONFIG_HOME":
                str(self.root / ".config"), "XDG_DATA_HOME": str(self.root / ".local"),
                "MEDHELM_SECRETS_DIR": str(self.root / "no-secrets")}


@dataclass(frozen=True)
class Case:
    """One command line, the hostile file it reads, and the outputs it must not leave behind."""

    argv: list[str]
    hostile: Path
    env: dict[str, str] = field(default_factory=dict)
    outputs: tuple[Path, ...] = ()
    named: Path | None = None  # the path the error must name, when not `hostile` (a copy made of it)
    then: Callable[[], object] | None = None  # to do once the hostile file is made


# A target builds, in its own folder `w`, what the command needs around the hostile file, and says where that
# file goes; the test then builds it there. Formats: which kinds beyond hostile.GENERIC the reader parses.
Build = Callable[[Site, Path], Case]


@dataclass(frozen=True)
class Target:
    name: str
    formats: tuple[str, ...]
    build: Build
    reads: tuple[str, ...]  # what it covers: "command --option" or "setting NAME"
    only: tuple[str, ...] = ()  # these kinds alone (where the others are legitimate content)


def _linked_copy(source: Path, dest: Path, replaced: str) -> Path:
    """A folder of links to `source`'s files (copies where they are folders), without `replaced` (relative)."""
    for item in source.rglob("*"):
        rel = item.relative_to(source).as_posix()
        if rel == replaced or item.is_dir():
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).symlink_to(item)
    return dest / replaced


def _policies(w: Path, name: str = "egress.yaml") -> tuple[Path, Path]:
    folder = w / "policies"
    shutil.copytree(SHIPPED_POLICIES, folder)
    (folder / name).unlink()
    return folder, folder / name


def notes(w: Path) -> Path:
    (w / "notes.jsonl").write_text('{"id": 1, "text": "Seen by Dr. Lee on 3/4/2021."}\n')
    return w / "notes.jsonl"


def config_with(site: Site, w: Path, line: str) -> Path:
    """The site's config with one top-level setting set (first: the file's tables come after; any line that
    set it before dropped)."""
    key = line.split("=")[0].strip()
    kept = [x for x in site.config.read_text().splitlines() if x.split("=")[0].strip() != key]
    config = w / "config.toml"
    config.write_text("\n".join([line, *kept]) + "\n")
    return config


def _helm_runs(w: Path) -> tuple[Path, Path]:
    run = w / "helm" / "pubmed_qa:model=openai_gpt-4o"
    run.mkdir(parents=True)
    (run / "run_spec.json").write_text(json.dumps({"name": "pubmed_qa:model=openai_gpt-4o",
                                                   "adapter_spec": {"model": "openai/gpt-4o"}}))
    return w / "helm", run / "stats.json"


def _bundle_copy(site: Site, w: Path) -> tuple[Path, Path]:
    bundle = w / "bundle"
    shutil.copytree(site.bundle, bundle)
    (bundle / "MANIFEST.json").unlink()
    return bundle, bundle / "MANIFEST.json"


def _data_bundle(w: Path) -> tuple[Path, Path]:
    (w / "staged" / "datasets").mkdir(parents=True)
    return w / "staged", w / "staged" / "MANIFEST.json"


def _store_copy(site: Site, w: Path, envelope: bool = False) -> tuple[Path, Path]:
    """A copy of the 'ward' store for one case (cases run at once, and a store opened for writing is locked), and
    where its key envelope goes (copied too with `envelope`)."""
    store = w / "ward.duckdb"
    shutil.copy(site.store, store)
    if envelope:
        shutil.copy(site.store.with_name("ward.duckdb.key"), w / "ward.duckdb.key")
    return store, w / "ward.duckdb.key"


def _data_root_with(site: Site, w: Path, name: str) -> tuple[Path, Path]:
    root = w / "data"
    shutil.copytree(site.data_root / "pubmedqa", root / "pubmedqa")
    (root / "pubmedqa" / name).unlink()
    return root, root / "pubmedqa" / name


def _c(site: Site, *argv: str) -> list[str]:
    return ["-c", str(site.config), *argv]


def _t_config(s: Site, w: Path) -> Case:
    return Case(["-c", str(w / "config.toml"), "runs", "list"], w / "config.toml")


def _t_kek(s: Site, w: Path) -> Case:
    return Case(_c(s, "runs", "list"), w / "kek", env={"MEDHELM_KEK_FILE": str(w / "kek")})


def _t_policy(s: Site, w: Path) -> Case:
    folder, hostile_file = _policies(w)
    return Case(_c(s, "policy", "check", "--policy-dir", str(folder)), hostile_file)


def _t_chart_values(s: Site, w: Path) -> Case:
    folder, hostile_file = _policies(w, "export.yaml")
    out = w / "values.yaml"
    return Case(_c(s, "policy", "chart-values", "--policy-dir", str(folder), "--out", str(out)), hostile_file,
                outputs=(out,))


def _t_policy_setting(s: Site, w: Path) -> Case:
    folder, hostile_file = _policies(w, "roles.yaml")
    return Case(["-c", str(config_with(s, w, f'policy_dir = "{folder}"')), "runs", "list"], hostile_file)


def _t_networkpolicy(s: Site, w: Path) -> Case:
    return Case(_c(s, "policy", "check", "--networkpolicy", str(w / "np.json")), w / "np.json")


def _t_rules(s: Site, w: Path) -> Case:
    rules = _linked_copy(SHIPPED_RULES, w / "pack", "rules.yaml")
    out = w / "out.jsonl"
    return Case(_c(s, "redact", "scan", "-i", str(notes(w)), "-o", str(out), "--rules", str(w / "pack")), rules,
                outputs=(out,))


def _t_surrogates(s: Site, w: Path) -> Case:
    policy = _linked_copy(SHIPPED_RULES, w / "pack", "surrogates.yaml")
    out = w / "out.jsonl"
    return Case(_c(s, "redact", "apply", "-i", str(notes(w)), "-o", str(out), "--rules", str(w / "pack")), policy,
                outputs=(out,))


def _t_dictionary(s: Site, w: Path) -> Case:
    words = _linked_copy(SHIPPED_RULES, w / "pack", "dictionaries/first_names.txt")
    out = w / "out.jsonl"
    return Case(_c(s, "redact", "scan", "-i", str(notes(w)), "-o", str(out), "--rules", str(w / "pack")), words,
                outputs=(out,))


def _t_redaction_setting(s: Site, w: Path) -> Case:
    rules = _linked_copy(SHIPPED_RULES, w / "pack", "rules.yaml")
    out = w / "out.jsonl"
    config = config_with(s, w, f'redaction_dir = "{w / "pack"}"')
    return Case(["-c", str(config), "redact", "scan", "-i", str(notes(w)), "-o", str(out)], rules, outputs=(out,))


def _t_scan_input(s: Site, w: Path) -> Case:
    out = w / "out.jsonl"
    return Case(_c(s, "redact", "scan", "-i", str(w / "in.jsonl"), "-o", str(out)), w / "in.jsonl", outputs=(out,))


def _t_apply_input(s: Site, w: Path) -> Case:
    out = w / "out.jsonl"
    return Case(_c(s, "redact", "apply", "-i", str(w / "in.jsonl"), "-o", str(out)), w / "in.jsonl", outputs=(out,))


def _t_apply_key(s: Site, w: Path) -> Case:
    out = w / "out.jsonl"
    return Case(_c(s, "redact", "apply", "-i", str(notes(w)), "-o", str(out), "--style", "surrogate",
                   "--key-file", str(w / "surrogate.key")), w / "surrogate.key", outputs=(out,))


def _t_card(s: Site, w: Path) -> Case:
    return Case(_c(s, "benchmarks", "validate", str(w / "card.yaml")), w / "card.yaml")


def _t_cards_setting(s: Site, w: Path) -> Case:
    config = config_with(s, w, f'benchmark_cards = ["{w / "cards"}"]')
    return Case(["-c", str(config), "benchmarks", "list"], w / "cards" / "mine.yaml")


def _t_rubric(s: Site, w: Path) -> Case:
    card = w / "card.yaml"
    card.write_text(CARD.read_text().replace("rubric: counselling_reply", "rubric: mine.rubric.yaml"))
    return Case(_c(s, "benchmarks", "validate", str(card)), w / "mine.rubric.yaml")


def _t_suite_file(s: Site, w: Path) -> Case:
    return Case(_c(s, "run", "--suite-file", str(w / "suite.yaml")), w / "suite.yaml")


def _t_conf(s: Site, w: Path) -> Case:
    return Case(_c(s, "run", "--conf", str(w / "entries.conf")), w / "entries.conf")


def _t_run_jury(s: Site, w: Path) -> Case:
    return Case(_c(s, "run", JUDGED, "--jury", f"medhelm:{w / 'jury.yaml'}"), w / "jury.yaml")


def _t_judge_jury(s: Site, w: Path) -> Case:
    store, _ = _store_copy(s, w, envelope=True)
    return Case(_c(s, "judge", "ward", "--store", str(store), "--jury", f"medhelm:{w / 'jury.yaml'}"), w / "jury.yaml")


def _t_dataset_manifest(s: Site, w: Path) -> Case:
    root, manifest = _data_root_with(s, w, "MANIFEST.json")
    return Case(_c(s, "run", ENTRY, "--data-root", str(root), "-m", "2"), manifest)


def _t_dataset_file(s: Site, w: Path) -> Case:
    source = w / "src" / "pubmedqa"
    shutil.copytree(DEMO_DATASETS / "pubmedqa", source)
    (source / "ori_pqal.json").unlink()
    return Case(_c(s, "run", ENTRY, "--data-root", str(w / "data"), "-m", "2"), source / "ori_pqal.json",
                named=w / "data" / "pubmedqa" / "ori_pqal.json", then=lambda: import_dataset(source, w / "data"))


def _t_store(*words: str, outputs: tuple[str, ...] = ()) -> Build:
    """A command reading the store `{store}`; `{w}` is the case's folder, `{kek2}` a valid second KEK file."""
    def build(s: Site, w: Path) -> Case:
        write_new_kek(w / "kek2")
        names = {"store": str(w / "ward.duckdb"), "w": str(w), "kek2": str(w / "kek2")}
        return Case(_c(s, *[word.format(**names) for word in words]), w / "ward.duckdb",
                    outputs=tuple(Path(o.format(**names)) for o in outputs))
    return build


def _t_envelope(s: Site, w: Path) -> Case:
    store, envelope = _store_copy(s, w)
    return Case(_c(s, "runs", "list", "--store", str(store)), envelope)


def _t_audit_log(s: Site, w: Path) -> Case:
    # Without an installation file (development), the audit log is the user's data folder's.
    log = w / "data-home" / "medhelm-local" / "audit.duckdb"
    return Case(_c(s, "audit", "show"), log, env={"XDG_DATA_HOME": str(w / "data-home")})


def _t_verify_manifest(s: Site, w: Path) -> Case:
    bundle, manifest = _bundle_copy(s, w)
    return Case(_c(s, "verify", str(bundle), "--public-key", str(s.public_key)), manifest)


def _t_verify_key(s: Site, w: Path) -> Case:
    return Case(_c(s, "verify", str(s.bundle), "--public-key", str(w / "k.pub")), w / "k.pub")


def _t_audit_bundle(s: Site, w: Path) -> Case:
    bundle, manifest = _bundle_copy(s, w)
    return Case(_c(s, "audit", "verify", "--bundle", str(bundle)), manifest)


def _t_audit_key(s: Site, w: Path) -> Case:
    return Case(_c(s, "audit", "verify", "--bundle", str(s.bundle), "--public-key", str(w / "k.pub")), w / "k.pub")


def _t_forwarded(s: Site, w: Path) -> Case:
    return Case(_c(s, "audit", "verify", "--forwarded", str(w / "sink.jsonl")), w / "sink.jsonl")


def _t_import_manifest(s: Site, w: Path) -> Case:
    bundle, manifest = _data_bundle(w)
    return Case(_c(s, "data", "import", str(bundle), "--allow-unsigned", "--data-root", str(w / "data")), manifest,
                outputs=(w / "data",))


def _t_import_key(s: Site, w: Path) -> Case:
    bundle, _ = _data_bundle(w)
    (bundle / "MANIFEST.json").write_text("{}")
    return Case(_c(s, "data", "import", str(bundle), "--public-key", str(w / "k.pub"), "--data-root",
                   str(w / "data")), w / "k.pub", outputs=(w / "data",))


def _t_import_folder(s: Site, w: Path) -> Case:
    shutil.copytree(DEMO_DATASETS / "pubmedqa", w / "pubmedqa")
    return Case(_c(s, "data", "import", str(w / "pubmedqa"), "--data-root", str(w / "data")),
                w / "pubmedqa" / "extra.json", outputs=(w / "data",))


def _t_helm_runs(s: Site, w: Path) -> Case:
    folder, stats = _helm_runs(w)
    out = w / "report.json"
    store, _ = _store_copy(s, w, envelope=True)
    return Case(_c(s, "report", "--store", str(store), "--helm-runs", str(folder), "-f", "json", "--out", str(out)),
                stats, outputs=(out,))


def _t_serve_helm_runs(s: Site, w: Path) -> Case:
    folder, stats = _helm_runs(w)
    store, _ = _store_copy(s, w, envelope=True)
    return Case(_c(s, "serve", "--store", str(store), "--helm-runs", str(folder), "--port", "0"), stats)


def _t_token(s: Site, w: Path) -> Case:
    store, _ = _store_copy(s, w, envelope=True)
    return Case(_c(s, "serve", "--store", str(store), "--token-file", str(w / "token"), "--port", "0"), w / "token")


def _t_rotate_kek(s: Site, w: Path) -> Case:
    store, _ = _store_copy(s, w, envelope=True)
    return Case(_c(s, "keys", "rotate", "--new-kek-file", str(w / "new.kek"), "--store", str(store)), w / "new.kek")


def _t_rotate_signing(s: Site, w: Path) -> Case:
    new = w / "new.kek"
    write_new_kek(new)
    return Case(_c(s, "keys", "rotate", "--new-kek-file", str(new), "--signing-key", str(w / "signing.key")),
                w / "signing.key")


def _t_stage_key(s: Site, w: Path) -> Case:
    from support.staging import staging_policy

    config = config_with(s, w, f'policy_dir = "{staging_policy(w / "staging-policy", 9)}"')
    out = w / "staged"
    return Case(["-c", str(config), "data", "stage", "pubmed_qa", "--to", str(out), "--source-url",
                 "http://127.0.0.1:9", "--signing-key", str(w / "signing.key")], w / "signing.key", outputs=(out,))


def _t_signing_setting(s: Site, w: Path) -> Case:
    config = config_with(s, w, f'signing_key_file = "{w / "signing.key"}"')
    out = w / "bundle"
    return Case(["-c", str(config), "export", "ward", "--to", str(out), "--role", "compliance_officer"],
                w / "signing.key", outputs=(out,))


TARGETS: list[Target] = [
    Target("config file", ("toml",), _t_config, ("--config",)),
    Target("KEK file", (), _t_kek, ("setting kek_file",)),
    Target("policy folder (egress.yaml)", ("yaml",), _t_policy, ("policy check --policy-dir",)),
    Target("policy folder (export.yaml), chart values", ("yaml",), _t_chart_values,
           ("policy chart-values --policy-dir",)),
    Target("policy_dir setting (roles.yaml)", ("yaml",), _t_policy_setting, ("setting policy_dir",)),
    Target("NetworkPolicy description", ("json",), _t_networkpolicy, ("policy check --networkpolicy",)),
    Target("rule pack (rules.yaml)", ("yaml",), _t_rules, ("redact scan --rules", "redact apply --rules")),
    Target("rule pack (surrogates.yaml)", ("yaml",), _t_surrogates, ()),
    Target("rule pack (a dictionary)", (), _t_dictionary, ()),
    Target("redaction_dir setting", ("yaml",), _t_redaction_setting, ("setting redaction_dir",)),
    Target("scan input", ("json",), _t_scan_input, ("redact scan --input",)),
    Target("apply input", ("json",), _t_apply_input, ("redact apply --input",)),
    Target("surrogate key file", (), _t_apply_key, ("redact apply --key-file",),
           only=("fifo", "device", "link_loop", "link_to_device", "folder", "oversized")),  # any bytes are a key
    Target("benchmark card", ("yaml",), _t_card, ("benchmarks validate CARD",)),
    Target("benchmark_cards setting", ("yaml",), _t_cards_setting, ("setting benchmark_cards",)),
    Target("rubric file", ("yaml",), _t_rubric, ()),
    Target("suite file", ("yaml",), _t_suite_file, ("run --suite-file",)),
    Target("run-entries conf", (), _t_conf, ("run --conf",)),
    Target("MedHELM jury file (run)", ("yaml",), _t_run_jury, ("run --jury",)),
    Target("MedHELM jury file (judge)", ("yaml",), _t_judge_jury, ("judge suite --jury",)),
    Target("dataset MANIFEST.json (run)", ("json",), _t_dataset_manifest, ("run --data-root", "setting data_root")),
    Target("dataset file, imported (run)", ("json",), _t_dataset_file, (),
           only=("binary", "utf16", *hostile.JSON)),  # what `data import` copies: regular files
    Target("store (runs list)", (), _t_store("runs", "list", "--store", "{store}"),
           ("runs list --store", "setting output_dir")),
    Target("store (show)", (), _t_store("show", "x", "--store", "{store}"), ("show --store",)),
    Target("store (report)", (), _t_store("report", "--store", "{store}", "--out", "{w}/r", outputs=("{w}/r",)),
           ("report --store",)),
    Target("store (serve)", (), _t_store("serve", "--store", "{store}", "--port", "0"), ("serve --store",)),
    Target("store (export)", (), _t_store("export", "ward", "--store", "{store}", "--to", "{w}/b", "--role",
                                          "compliance_officer", outputs=("{w}/b",)), ("export --store",)),
    Target("store (redact store)", (), _t_store("redact", "store", "{store}", "--out", "{w}/copy.duckdb",
                                                outputs=("{w}/copy.duckdb",)), ("redact store SOURCE",)),
    Target("store (judge)", (), _t_store("judge", "ward", "--store", "{store}"), ("judge suite --store",)),
    Target("store (judge validate)", (), _t_store("judge", "validate", "ward", "--store", "{store}", "--ratings",
                                                  "{w}/none.csv"), ("judge validate --store",)),
    Target("store (judge campaign)", (), _t_store("judge", "campaign", "ward", "--store", "{store}", "--run",
                                                  "ward_notes", "--raters", "a,b"), ("judge campaign --store",)),
    Target("store (review request)", (), _t_store("review", "request", "ward", "--store", "{store}", "--role",
                                                  "compliance_officer"), ("review request --store",)),
    Target("store (keys rotate)", (), _t_store("keys", "rotate", "--new-kek-file", "{kek2}", "--store", "{store}"),
           ("keys rotate --store",)),
    Target("store key envelope", ("json",), _t_envelope, ()),
    Target("audit log (a development set-up's)", (), _t_audit_log, ()),
    Target("bundle manifest (verify)", ("json",), _t_verify_manifest, ("verify BUNDLE",)),
    Target("public key (verify)", (), _t_verify_key, ("verify --public-key",)),
    Target("bundle manifest (audit verify)", ("json",), _t_audit_bundle, ("audit verify --bundle",)),
    Target("public key (audit verify)", (), _t_audit_key, ("audit verify --public-key",)),
    Target("forwarded audit records", (), _t_forwarded, ("audit verify --forwarded",)),
    Target("data bundle manifest", ("json",), _t_import_manifest, ("data import SOURCE",)),
    Target("data bundle public key", (), _t_import_key, ("data import --public-key",)),
    Target("a file inside an imported folder", (), _t_import_folder, (),
           only=("fifo", "device", "link_loop", "link_to_device")),
    Target("HELM stats.json (report)", ("json",), _t_helm_runs, ("report --helm-runs",)),
    Target("HELM stats.json (serve)", ("json",), _t_serve_helm_runs, ("serve --helm-runs",)),
    Target("viewer token file", (), _t_token, ("serve --token-file",)),
    Target("new KEK file (keys rotate)", (), _t_rotate_kek, ("keys rotate --new-kek-file",)),
    Target("signing key (keys rotate)", ("json",), _t_rotate_signing, ("keys rotate --signing-key",)),
    Target("signing key (data stage)", ("json",), _t_stage_key, ("data stage --signing-key",)),
    Target("signing_key_file setting (export)", ("json",), _t_signing_setting, ("setting signing_key_file",)),
]

# Options and arguments that name a file or folder the command writes, or a folder whose files are read the same
# way as a target's (a folder of stores is opened store by store, as --store opens one).
WRITES = {"report --out", "export --to", "redact scan --output", "redact apply --output", "redact store --out",
          "keys init --out", "keys signing-init --out", "policy chart-values --out", "store merge --into",
          "data stage --to", "setting log_file", "judge validate --template"}
FOLDERS = {"run --output", "show --output", "export --output", "report --output", "serve --output",
           "runs list --output", "judge suite --output", "judge validate --output", "store merge --output",
           "judge campaign --output", "review request --output",
           "run --store", "taxonomy --data-root", "benchmarks list --data-root", "benchmarks show --data-root",
           "data import --data-root"}
# Read by a test of its own, where the command needs more than this site has (a judged run for ratings).
ELSEWHERE = {"judge validate --ratings": "tests/annotate/test_validate.py::test_hostile_ratings_files"}
# Named like a file option, but a name: the jury whose stored ratings `judge validate` compares.
NOT_FILES = {"judge validate --jury"}
