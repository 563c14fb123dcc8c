"""Unknown settings are errors: a misspelt or unsupported knob must not be ignored in silence.

In the environment only names under a prefix memlane owns are checked (a process has many unrelated
variables); in the config file every key is memlane's. The error names the setting and suggests the
closest known name.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

from pydantic import AliasChoices

from memlane.model.errors import ConfigError

# Prefixes of the knobs' names (the seeds' own and memlane's); OPENAI_, AWS_, MISTRAL_ and BEDROCK_
# belong to other tools too and are not checked.
OWNED_PREFIXES = ("MEMLANE_", "MEMORY_", "SEMANTIC_", "EPISODIC_", "CONTEXT_", "S3V_", "VECTOR_EMBEDDING_")

# Variables under those prefixes that the process reads itself (not settings).
PROCESS_VARIABLES = frozenset(
    {
        "MEMLANE_CONFIG",  # where the config file is
        "MEMLANE_USER",  # the CLI's --user
        "MEMLANE_FAULT",  # crash-test hook of the formation worker
        "MEMLANE_TEST_POSTGRES_URL",
        "MEMLANE_SCHEMATHESIS_EXAMPLES",  # the test suite's
        "MEMLANE_LANGGRAPH_SUITES_CACHE",
        "MEMLANE_LG_SUITE",
        "MEMLANE_LG_BACKEND",
        "MEMLANE_LG_PG_URL",
    }
)

# Knobs that were documented but never implemented, removed until the issue that owns them builds them.
NOT_AVAILABLE: dict[str, str] = {}


def setting_names(fields: Mapping[str, object], *, field_names: bool) -> frozenset[str]:
    """The names that set a field, upper case: its aliases (the environment's names), with
    ``field_names`` its own name too (the config file and keyword arguments take both). ``fields`` maps
    a field name to its ``validation_alias``."""
    names = {name.upper() for name in fields} if field_names else set()
    for alias in fields.values():
        if isinstance(alias, AliasChoices):
            names.update(str(choice).upper() for choice in alias.choices)
        elif isinstance(alias, str):
            names.add(alias.upper())
    return frozenset(names)


def check_environment(environ: Mapping[str, str], known: frozenset[str]) -> None:
    """Raise :class:`ConfigError` for a variable under an owned prefix that configures nothing."""
    unknown = sorted(
        name
        for name in environ
        if name.upper().startswith(OWNED_PREFIXES)
        and name.upper() not in known
        and name.upper() not in PROCESS_VARIABLES
    )
    if unknown:
        raise ConfigError(_message(unknown[0], "in the environment", known))


def check_keys(keys: Iterable[str], known: frozenset[str], where: str) -> None:
    """Raise :class:`ConfigError` for a config-file key (or keyword argument) that is no setting."""
    unknown = sorted(key for key in keys if key.upper() not in known)
    if unknown:
        raise ConfigError(_message(unknown[0], where, known, lower=True))


def _message(name: str, where: str, known: frozenset[str], *, lower: bool = False) -> str:
    reason = NOT_AVAILABLE.get(name.upper())
    if reason is not None:
        return f"memlane setting {name} {where} is not supported: {reason}; remove it"
    close = difflib.get_close_matches(name.upper(), sorted(known), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0].lower() if lower else close[0]}?" if close else ""
    return f"unknown memlane setting {name} {where}{hint} (see docs/configuration.md)"
