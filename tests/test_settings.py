"""Settings: flags > MEDHELM_* environment > one TOML file > secrets dir > defaults; nothing implicit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from medhelm_local.errors import ConfigError, StoreKeyError
from medhelm_local.settings import Deployment, default_config_path, load_settings

URL = "http://127.0.0.1:8000/v1"


def write_toml(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return write_toml(tmp_path / "config.toml", f"""
data_root = "/file/data"
output_dir = "/file/out"

[deployments.vllm_local]
base_url = "{URL}"
max_concurrency = 4
timeout_s = 30
""")


def test_defaults_apply_when_nothing_is_configured() -> None:
    settings = load_settings()

    home = Path(os.environ["HOME"])
    assert settings.data_root == home / ".local" / "share" / "medhelm-local" / "data"
    assert settings.output_dir == Path("medhelm-results")
    assert settings.deployments == {}
    assert settings.kek is None and settings.kek_file is None


def test_the_config_file_sets_values_over_defaults(config: Path) -> None:
    settings = load_settings(config)

    assert settings.data_root == Path("/file/data")
    deployment = settings.deployments["vllm_local"]
    assert deployment.base_url == URL
    assert deployment.max_concurrency == 4
    assert deployment.max_retries == 3  # not in the file: the default


def test_environment_overrides_the_config_file(config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDHELM_DATA_ROOT", "/env/data")

    settings = load_settings(config)

    assert settings.data_root == Path("/env/data")
    assert settings.output_dir == Path("/file/out")


def test_a_nested_environment_variable_overrides_one_field_of_a_file_deployment(
        config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDHELM_DEPLOYMENTS__VLLM_LOCAL__MAX_CONCURRENCY", "7")

    deployment = load_settings(config).deployments["vllm_local"]

    assert deployment.max_concurrency == 7
    assert deployment.base_url == URL  # the rest still comes from the file
    assert deployment.timeout_s == 30


def test_a_deployment_can_be_declared_entirely_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDHELM_DEPLOYMENTS__OLLAMA__BASE_URL", "http://10.1.2.3:11434/v1/")
    monkeypatch.setenv("MEDHELM_DEPLOYMENTS__OLLAMA__API", "completions")

    deployment = load_settings().deployments["ollama"]

    assert deployment.base_url == "http://10.1.2.3:11434/v1"
    assert deployment.api == "completions"


def test_a_flag_overrides_environment_and_file(config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDHELM_DATA_ROOT", "/env/data")

    settings = load_settings(config, data_root=Path("/flag/data"))

    assert settings.data_root == Path("/flag/data")


def test_a_flag_left_unset_does_not_hide_lower_sources(config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDHELM_DATA_ROOT", "/env/data")

    settings = load_settings(config, data_root=None, output_dir=None)

    assert settings.data_root == Path("/env/data")
    assert settings.output_dir == Path("/file/out")


def test_medhelm_config_names_the_config_file(config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDHELM_CONFIG", str(config))

    assert load_settings().data_root == Path("/file/data")


def test_the_config_argument_wins_over_medhelm_config(config: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    other = write_toml(tmp_path / "other.toml", 'data_root = "/other/data"\n')
    monkeypatch.setenv("MEDHELM_CONFIG", str(other))

    assert load_settings(config).data_root == Path("/file/data")


def test_the_default_config_path_is_read_when_it_exists() -> None:
    path = default_config_path()
    assert path == Path(os.environ["XDG_CONFIG_HOME"]) / "medhelm-local" / "config.toml"
    write_toml(path, 'data_root = "/xdg/data"\n')

    assert load_settings().data_root == Path("/xdg/data")


def test_a_missing_default_config_file_is_not_an_error() -> None:
    assert not default_config_path().exists()

    load_settings()  # no exception: the default location is optional


def test_the_default_config_path_is_ignored_when_a_file_is_named(config: Path) -> None:
    write_toml(default_config_path(), 'data_root = "/xdg/data"\n')

    assert load_settings(config).data_root == Path("/file/data")


def test_a_dotenv_file_in_the_working_folder_is_never_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text("MEDHELM_DATA_ROOT=/dotenv/data\nMEDHELM_KEK=" + "ab" * 32 + "\n")
    monkeypatch.chdir(tmp_path)

    settings = load_settings()

    assert settings.data_root != Path("/dotenv/data")
    assert settings.kek is None


def test_no_config_toml_in_the_working_folder_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_toml(tmp_path / "config.toml", 'data_root = "/cwd/data"\n')
    write_toml(tmp_path / "medhelm-local" / "config.toml", 'data_root = "/cwd/data"\n')
    monkeypatch.chdir(tmp_path)

    assert load_settings().data_root != Path("/cwd/data")


def test_a_config_file_that_is_not_valid_toml_is_named(tmp_path: Path) -> None:
    path = write_toml(tmp_path / "bad.toml", "data_root = \n")

    with pytest.raises(ConfigError) as caught:
        load_settings(path)

    message = str(caught.value)
    assert "not valid TOML" in message
    assert f"Where: {path}" in message
    assert "What to do:" in message


def test_an_unknown_key_in_the_config_file_is_named_with_the_file(tmp_path: Path) -> None:
    path = write_toml(tmp_path / "typo.toml", 'data_rot = "/x"\n')

    with pytest.raises(ConfigError) as caught:
        load_settings(path)

    message = str(caught.value)
    assert "'data_rot'" in message and "unknown setting" in message
    assert str(path) in message


def test_an_unknown_key_inside_a_deployment_is_named_by_its_full_path(tmp_path: Path) -> None:
    path = write_toml(tmp_path / "c.toml", f'[deployments.gpu]\nbase_url = "{URL}"\nmax_concurency = 3\n')

    with pytest.raises(ConfigError) as caught:
        load_settings(path)

    assert "'deployments.gpu.max_concurency'" in str(caught.value)
    assert str(path) in str(caught.value)


def test_a_misspelt_required_key_is_reported_as_the_typo_with_the_right_name(tmp_path: Path) -> None:
    """`base_ur` for `base_url` is one mistake: the unknown key (its line is the one to fix), with a suggestion,
    not 'base_url: Field required' plus one more."""
    path = write_toml(tmp_path / "c.toml", '[deployments.gpu]\nbase_ur = "http://127.0.0.1:8000/v1"\n')

    with pytest.raises(ConfigError) as caught:
        load_settings(path)

    assert caught.value.what == ("setting 'deployments.gpu.base_ur' is invalid: unknown setting "
                                 "(did you mean 'base_url'?)")


def test_a_bad_keyword_from_python_names_the_argument_not_a_command_line_option(tmp_path: Path) -> None:
    """A notebook's `load_settings(outputdir=...)` has no command line: the error names the argument and the
    setting meant; the CLI's flags are still called options."""
    with pytest.raises(ConfigError) as caught:
        load_settings(None, outputdir="/x")
    assert caught.value.where == "argument outputdir=" and "did you mean 'output_dir'?" in caught.value.what
    with pytest.raises(ConfigError) as flagged:
        load_settings(None, _from_cli=True, outputdir="/x")
    assert flagged.value.where == "command-line option for outputdir"
    assert load_settings(str(write_toml(tmp_path / "ok.toml", 'output_dir = "/r"\n'))).output_dir == Path("/r")


@pytest.mark.parametrize("url", ["ftp://host/v1", "127.0.0.1:8000/v1", "http:///v1", "not a url"])
def test_a_bad_base_url_is_refused_naming_the_file_and_key(tmp_path: Path, url: str) -> None:
    path = write_toml(tmp_path / "c.toml", f'[deployments.gpu]\nbase_url = "{url}"\n')

    with pytest.raises(ConfigError) as caught:
        load_settings(path)

    message = str(caught.value)
    assert "'deployments.gpu.base_url'" in message
    assert "http(s) URL" in message
    assert str(path) in message


def test_an_out_of_range_value_is_refused(tmp_path: Path) -> None:
    path = write_toml(tmp_path / "c.toml", f'[deployments.gpu]\nbase_url = "{URL}"\nmax_concurrency = 0\n')

    with pytest.raises(ConfigError, match=r"deployments.gpu.max_concurrency"):
        load_settings(path)


def test_a_missing_config_file_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "config.toml"

    with pytest.raises(ConfigError) as caught:
        load_settings(path)

    assert "does not exist" in str(caught.value)
    assert f"Where: {path}" in str(caught.value)


def test_a_missing_file_named_by_medhelm_config_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDHELM_CONFIG", str(tmp_path / "gone.toml"))

    with pytest.raises(ConfigError, match=r"gone.toml"):
        load_settings()


def test_a_bad_environment_value_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDHELM_DEPLOYMENTS__GPU__BASE_URL", "ftp://host")

    with pytest.raises(ConfigError) as caught:
        load_settings()

    assert "deployments.gpu.base_url" in str(caught.value)
    assert "MEDHELM_" in str(caught.value)


def test_a_bad_environment_value_is_not_blamed_on_a_valid_config_file(
        config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDHELM_DEPLOYMENTS__VLLM_LOCAL__MAX_CONCURRENCY", "0")

    with pytest.raises(ConfigError) as caught:
        load_settings(config)

    assert f"config file {config}" not in str(caught.value)


def test_the_secrets_dir_supplies_the_kek(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "medhelm_kek").write_text("ab" * 32)
    (secrets / "medhelm_kek").chmod(0o600)
    monkeypatch.setenv("MEDHELM_SECRETS_DIR", str(secrets))

    kek = load_settings().kek

    assert kek is not None and kek.get_secret_value() == "ab" * 32
    assert "ab" * 32 not in repr(load_settings())


def test_the_config_file_and_environment_rank_above_the_secrets_dir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "medhelm_kek").write_text("ab" * 32)
    (secrets / "medhelm_kek").chmod(0o400)
    (secrets / "medhelm_data_root").write_text("/secret/data")
    monkeypatch.setenv("MEDHELM_SECRETS_DIR", str(secrets))
    monkeypatch.setenv("MEDHELM_KEK", "cd" * 32)
    path = write_toml(tmp_path / "c.toml", 'data_root = "/file/data"\n')

    settings = load_settings(path)

    assert settings.kek is not None and settings.kek.get_secret_value() == "cd" * 32
    assert settings.data_root == Path("/file/data")


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o606])
def test_a_kek_in_the_secrets_dir_that_others_may_read_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: int) -> None:
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "medhelm_kek").write_text("ab" * 32)
    (secrets / "medhelm_kek").chmod(mode)
    monkeypatch.setenv("MEDHELM_SECRETS_DIR", str(secrets))

    with pytest.raises(StoreKeyError) as caught:
        load_settings()

    assert f"mode {mode:04o}" in str(caught.value) and "chmod 600" in str(caught.value)
    assert "ab" * 32 not in str(caught.value)


def test_a_secrets_dir_that_does_not_exist_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDHELM_SECRETS_DIR", str(tmp_path / "absent"))

    assert load_settings().kek is None


@pytest.mark.parametrize(("url", "host_port"), [
    ("http://gpu.local/v1", ("gpu.local", 80)),
    ("https://gpu.local/v1", ("gpu.local", 443)),
    ("http://127.0.0.1:8000/v1", ("127.0.0.1", 8000)),
    ("https://gpu.local:8443/v1", ("gpu.local", 8443)),
])
def test_deployment_host_port_uses_the_scheme_default(url: str, host_port: tuple[str, int]) -> None:
    assert Deployment.model_validate({"base_url": url}).host_port == host_port


def test_deployment_base_url_loses_its_trailing_slash() -> None:
    assert Deployment.model_validate({"base_url": "http://h:1/v1/"}).base_url == "http://h:1/v1"


def test_deployment_api_key_is_read_from_its_file(tmp_path: Path) -> None:
    key_file = tmp_path / "token"
    key_file.write_text("s3cret\n")

    assert Deployment.model_validate({"base_url": URL, "api_key_file": key_file}).api_key() == "s3cret"
    assert Deployment.model_validate({"base_url": URL}).api_key() == "EMPTY"


def test_an_unreadable_api_key_file_is_a_config_error(tmp_path: Path) -> None:
    missing = tmp_path / "no-token"

    with pytest.raises(ConfigError, match="no-token"):
        Deployment.model_validate({"base_url": URL, "api_key_file": missing}).api_key()


@pytest.mark.parametrize("value", ["inf", "nan", "-inf"])
def test_a_price_that_is_not_a_finite_number_is_refused(tmp_path: Path, value: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[deployments.d]\nbase_url = "http://127.0.0.1:8000/v1"\n[deployments.d.price]\n'
                      f"input_per_million = {value}\n")

    with pytest.raises(ConfigError, match=r"deployments\.d\.price\.input_per_million"):
        load_settings(config)
