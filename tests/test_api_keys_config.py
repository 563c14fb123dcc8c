"""``MEMLANE_API_KEYS`` is checked when the settings load, before any model: a bad user id or a key
given twice stops ``memlane serve`` with one error line that numbers the entry and shows no key."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memlane.cli.app import app
from memlane.model.config import Settings
from memlane.model.errors import ValidationError
from memlane.server import create_app


@pytest.mark.parametrize(
    "keys, says",
    [
        (
            "s3cr3t-admin,s3cr3t-maya:not a user",
            "entry #2 binds its key to the user id 'not a user', which is not valid",
        ),
        ("s3cr3t-admin,s3cr3t-maya:maya,s3cr3t-admin", "entries #1 and #3 have the same key"),
        ("s3cr3t-admin:maya,s3cr3t-admin:lena", "entries #1 and #2 have the same key"),
        ("s3cr3t-admin,:maya", "entry #2 has an empty key"),
    ],
)
def test_serve_refuses_bad_keys_before_loading_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keys: str, says: str
) -> None:
    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("MEMLANE_API_KEYS", keys)
    db = tmp_path / "m.db"
    result = CliRunner().invoke(app, ["serve", "--db", str(db), "--embedder", "local", "--port", "0"])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error:"), result.output
    assert says in lines[0] and "s3cr3t" not in lines[0]
    assert not db.exists()  # no store opened, no model loaded


def test_create_app_checks_the_keys_before_opening_the_store(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    settings = Settings(db=str(db), embedder="local").model_copy(update={"api_keys": ["k:maya", "k:lena"]})
    with pytest.raises(ValidationError, match="entries #1 and #2 have the same key"):
        create_app(settings=settings)
    assert not db.exists()
