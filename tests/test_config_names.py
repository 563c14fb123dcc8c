"""A setting memlane does not know is an error, never ignored: a misspelt or removed knob in the
environment (under a prefix memlane owns), a config-file key or a keyword argument stops the load
with one message that names it and suggests the closest known name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memlane.cli.app import app
from memlane.model.config import Settings
from memlane.model.config_check import NOT_AVAILABLE, OWNED_PREFIXES, PROCESS_VARIABLES
from memlane.model.errors import ConfigError


@pytest.fixture(autouse=True)
def no_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    monkeypatch.setenv("MEMLANE_CONFIG", str(path))
    return path


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [
        ("EPISODIC_COOLDOWN_TURN", "EPISODIC_COOLDOWN_TURNS"),
        ("MEMORY_NEIGHBOURS_K", "MEMORY_NEIGHBORS_K"),
        ("MEMLANE_EMBEDER", "MEMLANE_EMBEDDER"),
        ("semantic_auto_updat", "SEMANTIC_AUTO_UPDATE"),  # the environment is read without case
    ],
)
def test_an_unknown_variable_under_an_owned_prefix_is_an_error_with_the_closest_name(
    monkeypatch: pytest.MonkeyPatch, name: str, suggestion: str
) -> None:
    monkeypatch.setenv(name, "3")
    with pytest.raises(ConfigError) as caught:
        Settings()
    assert f"unknown memlane setting {name} in the environment; did you mean {suggestion}?" in str(
        caught.value
    )


def test_a_removed_knob_is_an_error_that_says_it_is_not_available(
    monkeypatch: pytest.MonkeyPatch, no_config_file: Path
) -> None:
    monkeypatch.setitem(
        NOT_AVAILABLE, "CONTEXT_SESSION_TELEPATHY", "telepathy is not available yet (issue 99)"
    )
    monkeypatch.setenv("CONTEXT_SESSION_TELEPATHY", "1")
    with pytest.raises(
        ConfigError,
        match="CONTEXT_SESSION_TELEPATHY in the environment is not supported: .* not available yet",
    ):
        Settings()
    monkeypatch.delenv("CONTEXT_SESSION_TELEPATHY")
    no_config_file.write_text("context_session_telepathy = 'on'\n")
    with pytest.raises(
        ConfigError, match="context_session_telepathy in .* not supported: telepathy is not available"
    ):
        Settings()


def test_the_session_summary_model_needs_a_model_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONTEXT_SESSION_SUMMARY_MODEL", "gpt-4.1-mini")
    with pytest.raises(ValueError, match="MEMLANE_LLM=openai or bedrock"):
        Settings()
    monkeypatch.setenv("MEMLANE_LLM", "openai")
    assert Settings().context_session_summary_model == "gpt-4.1-mini"


def test_unrelated_and_process_variables_are_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_ORGANIZATION", "AWS_PROFILE", "MISTRAL_MODEL", "MEMORYLESS", "CONTEXTUAL", "LANG"):
        monkeypatch.setenv(name, "x")
    for name in PROCESS_VARIABLES - {"MEMLANE_CONFIG"}:
        monkeypatch.setenv(name, "x")
    monkeypatch.setenv("MEMORY_NEIGHBORS_K", "7")
    monkeypatch.setenv("MEMORY_SEM_LOW", "0.7")  # a seed's alias is a known name too
    settings = Settings()
    assert (settings.memory_neighbors_k, settings.semantic_check_low) == (7, 0.7)
    assert all(p.endswith("_") for p in OWNED_PREFIXES)


def test_an_unknown_config_file_key_is_an_error_naming_the_file(no_config_file: Path) -> None:
    no_config_file.write_text("memory_neighbors_k = 7\nepisodic_max_per_dya = 2\n")
    with pytest.raises(ConfigError) as caught:
        Settings()
    message = str(caught.value)
    assert f"unknown memlane setting episodic_max_per_dya in {no_config_file}" in message
    assert "did you mean episodic_max_per_day?" in message


def test_the_session_gap_loads_from_the_environment_and_must_be_positive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CONTEXT_SESSION_GAP_MINUTES", "45")
    assert Settings().context_session_gap_minutes == 45
    monkeypatch.setenv("CONTEXT_SESSION_GAP_MINUTES", "0")
    with pytest.raises(ValueError, match="context_session_gap_minutes|CONTEXT_SESSION_GAP_MINUTES"):
        Settings()


def test_the_s3_vectors_settings_load_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "S3V_BUCKET": "vera-ai-dev-s3-vector",
        "S3V_INDEX_MEMORY": "memory-search",
        "S3V_DISTANCE": "COSINE",
        "S3V_TIMEOUT_S": "4",
        "S3V_MAX_ATTEMPTS": "5",
    }.items():
        monkeypatch.setenv(name, value)
    s = Settings()
    assert (s.s3v_bucket, s.s3v_index_memory, s.s3v_distance, s.s3v_timeout_s, s.s3v_max_attempts) == (
        "vera-ai-dev-s3-vector",
        "memory-search",
        "COSINE",
        4.0,
        5,
    )


def test_known_config_file_keys_load(no_config_file: Path) -> None:
    no_config_file.write_text("memory_neighbors_k = 7\nMEMORY_SEM_LOW = 0.7\n")
    settings = Settings()
    assert (settings.memory_neighbors_k, settings.semantic_check_low) == (7, 0.7)


def test_an_unknown_keyword_argument_is_an_error() -> None:
    with pytest.raises(
        ConfigError, match="memory_neighbor_k given as an argument; did you mean memory_neighbors_k"
    ):
        Settings(memory_neighbor_k=3)
    assert Settings(memory_neighbors_k=3).memory_neighbors_k == 3


def test_the_cli_reports_an_unknown_variable_as_one_error_line(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    result = CliRunner().invoke(
        app, ["list", "--user", "maya", "--db", str(db)], env={"COLUMNS": "200", "EPISODIC_MAX_PER_DAYS": "2"}
    )
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1, result.stderr
    assert lines[0].startswith("error: invalid memlane settings")
    assert "EPISODIC_MAX_PER_DAYS in the environment; did you mean EPISODIC_MAX_PER_DAY?" in lines[0]
    assert not db.exists()


def test_the_configuration_page_names_every_knob_and_no_unknown_one() -> None:
    page = (Path(__file__).parents[1] / "docs" / "configuration.md").read_text()
    aliases = {
        c
        for f in Settings.model_fields.values()
        for c in f.validation_alias.choices  # type: ignore[union-attr]
        if str(c).isupper()
    }
    assert sorted(a for a in aliases if f"`{a}`" not in page) == []
    named = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", page))
    owned = {n for n in named if n.startswith(OWNED_PREFIXES) and n not in OWNED_PREFIXES}
    assert sorted(owned - aliases - PROCESS_VARIABLES - set(NOT_AVAILABLE)) == []
