"""Every file-reading option of every command, fed every kind of hostile file (tests/support/hostile.py):
no traceback, no crash, no hang; a clear error that names the file, a non-zero exit; and nothing written.

`TARGETS` says, for each command and option that reads a file, where the hostile file goes and the command line
that reads it. `test_every_file_reading_option_has_a_corpus_entry` fails when a command gains an option (or a
setting) that names a file without an entry here, so the corpus grows with the CLI. The item-by-item cases of
issue 15 stay in test_hostile_inputs.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import DEMO_DATASETS, REPO, SHIPPED_POLICIES, run_cli
from support import hostile
from support.phi_store import write_ward_store

from medhelm_local.scenarios.datafiles import import_dataset
from medhelm_local.store.keys import write_new_kek

DRIVER = REPO / "tests" / "support" / "cli_cases.py"
SHIPPED_RULES = REPO / "redaction"
CARD = REPO / "docs" / "private-benchmarks" / "mental_health.yaml"
ENTRY = "pubmed_qa:model=local/m,model_deployment=fake"
JUDGED = "ward_notes:model=local/m,model_deployment=fake"  # the site's own card, scored by an LLM jury
HANG_S = float(os.environ.get("HOSTILE_HANG_S", "30"))  # a case still running after this long is hung


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


def _notes(w: Path) -> Path:
    (w / "notes.jsonl").write_text('{"id": 1, "text": "Seen by Dr. Lee on 3/4/2021."}\n')
    return w / "notes.jsonl"


def _config_with(site: Site, w: Path, line: str) -> Path:
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
    return Case(["-c", str(_config_with(s, w, f'policy_dir = "{folder}"')), "runs", "list"], hostile_file)


def _t_networkpolicy(s: Site, w: Path) -> Case:
    return Case(_c(s, "policy", "check", "--networkpolicy", str(w / "np.json")), w / "np.json")


def _t_rules(s: Site, w: Path) -> Case:
    rules = _linked_copy(SHIPPED_RULES, w / "pack", "rules.yaml")
    out = w / "out.jsonl"
    return Case(_c(s, "redact", "scan", "-i", str(_notes(w)), "-o", str(out), "--rules", str(w / "pack")), rules,
                outputs=(out,))


def _t_surrogates(s: Site, w: Path) -> Case:
    policy = _linked_copy(SHIPPED_RULES, w / "pack", "surrogates.yaml")
    out = w / "out.jsonl"
    return Case(_c(s, "redact", "apply", "-i", str(_notes(w)), "-o", str(out), "--rules", str(w / "pack")), policy,
                outputs=(out,))


def _t_dictionary(s: Site, w: Path) -> Case:
    words = _linked_copy(SHIPPED_RULES, w / "pack", "dictionaries/first_names.txt")
    out = w / "out.jsonl"
    return Case(_c(s, "redact", "scan", "-i", str(_notes(w)), "-o", str(out), "--rules", str(w / "pack")), words,
                outputs=(out,))


def _t_redaction_setting(s: Site, w: Path) -> Case:
    rules = _linked_copy(SHIPPED_RULES, w / "pack", "rules.yaml")
    out = w / "out.jsonl"
    config = _config_with(s, w, f'redaction_dir = "{w / "pack"}"')
    return Case(["-c", str(config), "redact", "scan", "-i", str(_notes(w)), "-o", str(out)], rules, outputs=(out,))


def _t_scan_input(s: Site, w: Path) -> Case:
    out = w / "out.jsonl"
    return Case(_c(s, "redact", "scan", "-i", str(w / "in.jsonl"), "-o", str(out)), w / "in.jsonl", outputs=(out,))


def _t_apply_input(s: Site, w: Path) -> Case:
    out = w / "out.jsonl"
    return Case(_c(s, "redact", "apply", "-i", str(w / "in.jsonl"), "-o", str(out)), w / "in.jsonl", outputs=(out,))


def _t_apply_key(s: Site, w: Path) -> Case:
    out = w / "out.jsonl"
    return Case(_c(s, "redact", "apply", "-i", str(_notes(w)), "-o", str(out), "--style", "surrogate",
                   "--key-file", str(w / "surrogate.key")), w / "surrogate.key", outputs=(out,))


def _t_card(s: Site, w: Path) -> Case:
    return Case(_c(s, "benchmarks", "validate", str(w / "card.yaml")), w / "card.yaml")


def _t_cards_setting(s: Site, w: Path) -> Case:
    config = _config_with(s, w, f'benchmark_cards = ["{w / "cards"}"]')
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

    config = _config_with(s, w, f'policy_dir = "{staging_policy(w / "staging-policy", 9)}"')
    out = w / "staged"
    return Case(["-c", str(config), "data", "stage", "pubmed_qa", "--to", str(out), "--source-url",
                 "http://127.0.0.1:9", "--signing-key", str(w / "signing.key")], w / "signing.key", outputs=(out,))


def _t_signing_setting(s: Site, w: Path) -> Case:
    config = _config_with(s, w, f'signing_key_file = "{w / "signing.key"}"')
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
          "data stage --to", "setting log_file"}
FOLDERS = {"run --output", "show --output", "export --output", "report --output", "serve --output",
           "runs list --output", "judge suite --output", "judge validate --output", "store merge --output",
           "run --store", "taxonomy --data-root", "benchmarks list --data-root", "benchmarks show --data-root",
           "data import --data-root"}
# Read by a test of its own, where the command needs more than this site has (a judged run for ratings).
ELSEWHERE = {"judge validate --ratings": "tests/annotate/test_validate.py::test_hostile_ratings_files"}
# Named like a file option, but a name: the jury whose stored ratings `judge validate` compares.
NOT_FILES = {"judge validate --jury"}


def _file_options() -> set[str]:
    """Every command option or argument typed as a path, and every setting that is one, as "command --option"."""
    import click
    import typer.main

    from medhelm_local.cli.main import app, register_commands
    from medhelm_local.settings import Settings

    register_commands()
    root = typer.main.get_command(app)
    ctx = click.Context(root)
    found = {"--config"}

    def walk(command: click.Command, words: list[str]) -> None:
        if isinstance(command, click.Group) or hasattr(command, "list_commands"):
            for name in command.list_commands(ctx):  # type: ignore[attr-defined]
                walk(command.get_command(ctx, name), [*words, name])  # type: ignore[attr-defined]
            return
        hints = typing.get_type_hints(command.callback)
        for param in command.params:
            if "Path" in str(hints.get(param.name or "")) or param.name in ("conf", "jury"):
                label = max(param.opts, key=len) if param.opts[0].startswith("-") else param.name.upper()
                found.add(" ".join([*words, label]))

    walk(root, [])
    return found | {f"setting {n}" for n, f in Settings.model_fields.items() if "Path" in str(f.annotation)}


def test_every_file_reading_option_has_a_corpus_entry() -> None:
    reads = {r for t in TARGETS for r in t.reads}
    options = _file_options()

    missing = sorted(options - reads - WRITES - FOLDERS - set(ELSEWHERE) - NOT_FILES)
    unknown = sorted((reads | WRITES | FOLDERS | set(ELSEWHERE) | NOT_FILES) - options)

    assert not missing, f"options that name a file without a hostile-corpus entry here: {missing}"
    assert not unknown, f"entries here for options no command has (renamed?): {unknown}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The appliance, built once for the module: config (a fake deployment on the allowlist, a jury-scored card),
    a KEK, the 'ward' store, a signing key whose policy approval is recorded, a bundle exported from 'ward'."""
    from conftest import write_config
    from support.jury import write_generation_card

    from medhelm_local.export.signing import write_signing_key

    root = tmp_path_factory.mktemp("site")
    kek_file = root / "kek"
    kek = write_new_kek(kek_file)
    for folder in sorted(p for p in DEMO_DATASETS.iterdir() if p.is_dir()):
        import_dataset(folder, root / "data")
    (root / "results").mkdir()
    store = write_ward_store(root / "results" / "ward.duckdb", kek)
    signing = root / "keys" / "export-signing.key"
    signing.parent.mkdir()
    write_signing_key(signing, kek)
    write_generation_card(root / "cards", 4)
    config = write_config(root / "config.toml", root / "data", root / "results",
                          {"fake": {"base_url": "http://127.0.0.1:9/v1", "model": "local/m"}},
                          extra=f'signing_key_file = "{signing}"\nbenchmark_cards = ["{root / "cards"}"]')
    made = Site(root, config, kek_file, store, root / "bundle", root / "data", signing.with_suffix(".pub"))
    env = made.env
    approved = run_cli("-c", str(config), "policy", "approve", "--role", "compliance_officer", env=env)
    assert approved.returncode == 0, approved.stderr
    exported = run_cli("-c", str(config), "export", "ward", "--to", str(made.bundle), "--role",
                       "compliance_officer", env=env)
    assert exported.returncode == 0, exported.stderr
    return made


def _kinds(target: Target) -> list[str]:
    kinds = list(target.only) or [*hostile.GENERIC, *(k for f in target.formats for k in hostile.FORMATS[f])]
    return [k for k in kinds if k != "device" or hostile.can_make_devices()]


def _run_cases(cases: dict[str, Case], tmp_path: Path, env: dict[str, str], fsize: int | None = None,
               jobs: int | None = None) -> dict[str, dict[str, typing.Any]]:
    """Every case through tests/support/cli_cases.py, by id (`fsize`: the file-size limit to run them under;
    `jobs`: how many at once, default one per CPU)."""
    spec = tmp_path / "cases.json"
    spec.write_text(json.dumps([{"id": key, "argv": c.argv, "env": {**env, **c.env}, "timeout": HANG_S,
                                 "fsize": fsize} for key, c in cases.items()]))
    results = tmp_path / "results.json"
    path = f"{REPO}:{os.environ.get('PYTHONPATH', '')}"
    done = subprocess.run([sys.executable, str(DRIVER), str(spec), str(results), str(jobs or os.cpu_count() or 1)],
                          capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "200", "PYTHONPATH": path}, timeout=3600)
    assert done.returncode == 0, done.stderr
    return {r["id"]: r for r in json.loads(results.read_text())}


def _problems(case: Case, result: dict[str, typing.Any]) -> list[str]:
    said = result["stdout"] + result["stderr"]
    found = []
    if result["hung"]:
        found.append(f"no answer in {result['seconds']} s (killed)")
    elif result["signal"]:
        found.append(f"killed by {result['signal']}")
    elif result["exit"] == 0:
        found.append("exit 0")
    if "Traceback" in said or "internal error" in said:
        found.append("a traceback or an internal error: " + said[-300:].replace("\n", " | "))
    elif not result["hung"] and str(case.named or case.hostile) not in result["stderr"]:
        found.append("the error does not name the file: " + result["stderr"][-300:].replace("\n", " | "))
    found += [f"{o} was written" for o in case.outputs if o.exists()]
    return found


@pytest.mark.parametrize("target", TARGETS, ids=[t.name for t in TARGETS])
def test_hostile_files(site: Site, tmp_path: Path, target: Target) -> None:
    cases: dict[str, Case] = {}
    for kind in _kinds(target):
        work = tmp_path / kind
        work.mkdir()
        case = target.build(site, work)
        hostile.make(case.hostile, kind)
        if case.then is not None:
            case.then()
        cases[kind] = case

    results = _run_cases(cases, tmp_path, site.env)

    problems = [f"{kind}: {'; '.join(p)}" for kind, case in cases.items() if (p := _problems(case, results[kind]))]
    assert not problems, f"{target.name}: {len(problems)} of {len(cases)} kinds:\n" + "\n".join(problems)
    slowest = max(results.values(), key=lambda r: r["seconds"])
    assert slowest["seconds"] < 20, f"{target.name} <- {slowest['id']} took {slowest['seconds']} s"


@pytest.fixture
def full_disk(tmp_path: Path) -> typing.Iterator[tuple[Path, int | None]]:
    """A folder on a full disk, and the file-size limit to run commands under (None: no limit).

    As root where mount works: a 256 KiB tmpfs filled to the last byte, so every write there fails with ENOSPC
    as on a real full disk. Elsewhere: a plain folder, and commands run with RLIMIT_FSIZE 0 (SIGXFSZ ignored),
    so every write to a file fails with EFBIG: the same failure of write(2), though on every file, not only there.
    """
    folder = tmp_path / "full"
    folder.mkdir()
    mounted = os.geteuid() == 0 and subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs",
                                                    str(folder)], capture_output=True).returncode == 0
    if not mounted:
        yield folder, 0
        return
    try:
        with (folder / "filler").open("wb", buffering=0) as fh, pytest.raises(OSError, match="No space left"):
            while True:
                fh.write(b"\0" * 4096)
        yield folder, None
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_full_disk_under_every_output_is_a_clear_error(site: Site, tmp_path: Path, full_disk: tuple[Path, int | None],
                                                        fake_server: Callable[..., typing.Any]) -> None:
    from conftest import write_config

    full, fsize = full_disk
    notes = _notes(tmp_path)
    server = fake_server()
    run_config = write_config(tmp_path / "run.toml", site.data_root, full / "results",
                              {"fake": {"base_url": server.base_url}})
    logged = write_config(tmp_path / "logged.toml", site.data_root, tmp_path / "results",
                          {"fake": {"base_url": server.base_url}}, extra=f'log_file = "{full / "medhelm.log"}"')
    c = ["-c", str(site.config)]
    cases = {
        "report --out (html)": [*c, "report", "--store", str(site.store), "--out", str(full / "report")],
        "report --out (json)": [*c, "report", "--store", str(site.store), "-f", "json", "--out",
                                str(full / "report.json")],
        "redact scan --output": [*c, "redact", "scan", "-i", str(notes), "-o", str(full / "spans.jsonl")],
        "redact apply --output": [*c, "redact", "apply", "-i", str(notes), "-o", str(full / "masked.jsonl")],
        "redact store --out": [*c, "redact", "store", str(site.store), "--out", str(full / "copy.duckdb")],
        "keys init --out": ["keys", "init", "--out", str(full / "kek")],
        "keys signing-init --out": [*c, "keys", "signing-init", "--out", str(full / "signing.key")],
        "policy chart-values --out": [*c, "policy", "chart-values", "--out", str(full / "values.yaml")],
        "export --to": [*c, "export", "ward", "--to", str(full / "bundle"), "--role", "compliance_officer"],
        "data import --data-root": [*c, "data", "import", str(DEMO_DATASETS / "pubmedqa"), "--data-root",
                                    str(full / "data")],
        "run --output": ["-c", str(run_config), "run", ENTRY, "-m", "2"],
        "setting log_file": ["-c", str(logged), "run", ENTRY, "-m", "2"],  # a warning: the run goes on
    }
    spec = {key: Case(argv, full) for key, argv in cases.items()}

    results = _run_cases(spec, tmp_path, site.env, fsize=fsize, jobs=1)  # one at a time: they share the site

    problems = []
    for key, result in results.items():
        said = result["stdout"] + result["stderr"]
        logged = key == "setting log_file" and "Warning: the log file cannot be written" in result["stderr"]
        if (result["exit"] in (0, None) and not logged) or "Traceback" in said or "internal error" in said:
            problems.append(f"{key}: exit {result['exit']} {result['signal']}: {said[-400:]}")
        elif fsize is None and (str(full) not in result["stderr"] or "No space left on device" not in said):
            problems.append(f"{key}: does not name the full disk's path and the reason: {result['stderr'][-400:]}")
    assert not problems, "\n".join(problems)
    # Files only (`run` makes its output folder before the store fails; an empty folder holds no half-written
    # data), and not the log, which is opened to append before anything is written to it.
    left = sorted(str(p.relative_to(full)) for p in full.rglob("*") if p.is_file() and p.name != "medhelm.log")
    assert left == (["filler"] if fsize is None else []), f"left on the full disk: {left}"
