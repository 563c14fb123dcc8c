"""Categories config and per-agent allowlists, loaded from YAML and enforced server-side.

The file's shape is documented in the default shipped next to this module (``categories.yaml``);
``MEMLANE_CATEGORIES_FILE`` (``Settings.categories_file``) points to a user's own. Category names are
normalised with :func:`memlane.model.category.title_case` on both sides, so the YAML's ``goals`` is the
stored ``Goals``.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from memlane.model.category import title_case
from memlane.model.config import Settings
from memlane.model.errors import ValidationError

DEFAULT_FILE = Path(__file__).with_name("categories.yaml")
ContextMode = Literal["all", "rag"]


class CategoryConfigError(ValidationError):
    """The categories/allowlists file is missing or malformed."""


class PermissionDeniedError(ValidationError):
    """An agent asked for categories outside its allowlist, or is not a configured agent."""


@dataclass(frozen=True)
class CategoryPolicy:
    name: str  # TitleCase, as stored
    context: ContextMode = "rag"
    rag_length: int | None = None  # max characters of each item in context / bullets


@dataclass(frozen=True)
class CategoryConfig:
    source: str
    known: frozenset[str]  # TitleCase
    policies: Mapping[str, CategoryPolicy]  # the categories the file lists, by TitleCase name
    allowlists: Mapping[str, tuple[str, ...]]  # agent (lower case) -> TitleCase categories

    def policy(self, category: str) -> CategoryPolicy:
        name = title_case(category)
        return self.policies.get(name) or CategoryPolicy(name)

    def allowed(self, agent: Any) -> tuple[str, ...]:
        """The agent's allowlist (TitleCase); an unknown agent is refused, naming the known ones."""
        if not isinstance(agent, str) or not agent.strip():
            raise PermissionDeniedError(f"agent must be a non-empty string naming one of: {self._agents()}")
        found = self.allowlists.get(agent.strip().lower())
        if found is None:
            raise PermissionDeniedError(
                f"unknown agent {agent!r}; known agents: {self._agents()} (allowlists in {self.source})"
            )
        return found

    def scope(self, agent: Any, requested: Sequence[str] | None) -> tuple[str, ...]:
        """The categories a request may search: all of the allowlist when none are named, else the
        named ones, which must all be in the allowlist (otherwise nothing is searched: an error)."""
        allowed = self.allowed(agent)
        if not requested:
            return allowed
        if isinstance(requested, str) or not all(isinstance(c, str) and c.strip() for c in requested):
            raise ValidationError(f"categories must be a list of category names, got {requested!r}")
        wanted = list(dict.fromkeys(title_case(c) for c in requested))
        refused = [c for c in wanted if c not in allowed]
        if refused:
            raise PermissionDeniedError(
                f"agent {agent.strip().lower()!r} may not read {', '.join(lower(c) for c in refused)}; "
                f"its allowlist: {', '.join(lower(c) for c in allowed) or '(empty)'}"
            )
        return tuple(wanted)

    def always(self, within: Iterable[str] | None = None) -> tuple[str, ...]:
        """Categories in context mode ``all`` (restricted to ``within`` when given)."""
        names = [p.name for p in self.policies.values() if p.context == "all"]
        if within is not None:
            keep = set(within)
            names = [n for n in names if n in keep]
        return tuple(names)

    def _agents(self) -> str:
        return ", ".join(sorted(self.allowlists)) or "(none configured)"


def lower(category: str) -> str:
    """The YAML / agent-facing spelling of a stored category: ``Conversation_Summary`` -> ``conversation_summary``."""
    return category.lower()


def load_categories(settings: Settings) -> CategoryConfig:
    """The config named by ``settings.categories_file`` (else the shipped default), parsed once per
    file version (path, size and modification time)."""
    path = Path(settings.categories_file).expanduser() if settings.categories_file else DEFAULT_FILE
    try:
        st = os.stat(path)
    except OSError as exc:
        raise CategoryConfigError(
            f"categories file {str(path)!r} cannot be read ({exc.strerror}); fix MEMLANE_CATEGORIES_FILE "
            "or unset it to use the default"
        ) from None
    return _load(str(path), st.st_mtime_ns, st.st_size, tuple(settings.categories))


@functools.lru_cache(maxsize=16)
def _load(path: str, _mtime: int, _size: int, configured: tuple[str, ...]) -> CategoryConfig:
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    except (OSError, yaml.YAMLError) as exc:
        raise CategoryConfigError(f"categories file {path!r} is not valid YAML: {exc}") from None
    return parse_categories(data, source=path, configured=configured)


def parse_categories(
    data: Any, *, source: str = "<config>", configured: Iterable[str] = ()
) -> CategoryConfig:
    """Validate the file's shape: ``categories: {system: [...], custom: [...]}``, ``allowlists``."""

    def fail(msg: str) -> CategoryConfigError:
        return CategoryConfigError(f"categories file {source}: {msg}")

    if not isinstance(data, Mapping):
        raise fail("expected a mapping with keys 'categories' and 'allowlists'")
    extra = set(data) - {"categories", "allowlists"}
    if extra:
        raise fail(f"unknown key(s) {', '.join(sorted(map(str, extra)))}; expected categories, allowlists")
    cats = data.get("categories") or {}
    if not isinstance(cats, Mapping) or set(cats) - {"system", "custom"}:
        raise fail("'categories' must be a mapping with lists 'system' and 'custom'")
    policies: dict[str, CategoryPolicy] = {}
    for group in ("system", "custom"):
        entries = cats.get(group) or []
        if not isinstance(entries, list):
            raise fail(f"categories.{group} must be a list")
        for n, entry in enumerate(entries):
            pol = _policy(entry, f"categories.{group}[{n}]", fail)
            if pol.name in policies:
                raise fail(f"category {lower(pol.name)!r} is listed twice")
            policies[pol.name] = pol
    known = frozenset({title_case(c) for c in configured} | set(policies))
    raw_lists = data.get("allowlists") or {}
    if not isinstance(raw_lists, Mapping) or not raw_lists:
        raise fail("'allowlists' must map each agent name to a list of categories")
    allowlists: dict[str, tuple[str, ...]] = {}
    for agent, names in raw_lists.items():
        if not isinstance(agent, str) or not agent.strip():
            raise fail(f"agent names must be non-empty strings, got {agent!r}")
        if not isinstance(names, list) or not all(isinstance(c, str) and c.strip() for c in names):
            raise fail(f"allowlists.{agent} must be a list of category names")
        cats_tc = tuple(dict.fromkeys(title_case(c) for c in names))
        unknown = [lower(c) for c in cats_tc if c not in known]
        if unknown:
            raise fail(
                f"allowlists.{agent} names unknown categories {', '.join(unknown)}; add them under "
                f"categories.custom (known: {', '.join(sorted(lower(c) for c in known))})"
            )
        key = agent.strip().lower()
        if key in allowlists:
            raise fail(f"agent {key!r} has two allowlists")
        allowlists[key] = cats_tc
    return CategoryConfig(source=source, known=known, policies=policies, allowlists=allowlists)


def _policy(entry: Any, where: str, fail: Any) -> CategoryPolicy:
    if isinstance(entry, str):
        entry = {"name": entry}
    if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str) or not entry["name"].strip():
        raise fail(f"{where} needs a 'name' (and optionally context: all|rag, rag_length)")
    extra = set(entry) - {"name", "context", "rag_length"}
    if extra:
        raise fail(f"{where}: unknown key(s) {', '.join(sorted(map(str, extra)))}")
    mode = entry.get("context", "rag")
    if mode not in ("all", "rag"):
        raise fail(f"{where}: context must be 'all' or 'rag', got {mode!r}")
    length = entry.get("rag_length")
    if length is not None:
        if mode != "rag":
            raise fail(f"{where}: rag_length applies to context 'rag' only")
        if isinstance(length, bool) or not isinstance(length, int) or length < 1:
            raise fail(f"{where}: rag_length must be a positive integer (characters), got {length!r}")
    return CategoryPolicy(title_case(entry["name"]), mode, length)
