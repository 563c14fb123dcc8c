"""The memory tasks answered by a model that returns strict JSON.

A client implements one call, :meth:`StructuredLLM._complete` (system + user prompt -> raw JSON text
for a schema). :meth:`StructuredLLM.generate` validates that text against the pydantic model, retries
once with a correction note when it is malformed, then raises :class:`ProviderError`; the caller keeps
the turn as a job and retries later. Nothing here returns an empty result in place of a failure.
"""

from __future__ import annotations

import copy
import re
from abc import abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from memlane.model.candidate import (
    Candidate,
    ChatMessage,
    ConflictVerdict,
    Episode,
    Extraction,
    Insights,
    Judgements,
    SameFact,
)
from memlane.model.category import DEFAULT_CATEGORIES
from memlane.model.errors import ProviderError
from memlane.model.session import SessionDigest
from memlane.model.writing import MAX_SENTENCES, sentences
from memlane.providers.llm.base import MemoryLLM, T
from memlane.providers.llm.prompts import (
    CONFLICT_V1,
    CORRECTION_V1,
    EPISODE_V1,
    EXTRACT_V2,
    INSIGHTS_V1,
    JUDGE_V1,
    SAME_FACT_V1,
    SESSION_V1,
)

if TYPE_CHECKING:
    from memlane.providers.llm.first_stage import FirstStage

MAX_CANDIDATE_CHARS = 280
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?(?=\s|$)")
_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")


class MalformedOutputError(ProviderError):
    """One reply that is not valid JSON for the schema (or carries no JSON at all)."""


class StructuredLLM(MemoryLLM):
    """``extract`` / ``same_fact`` / ``classify_conflict`` over a JSON-schema-constrained model."""

    model: str
    first_stage: FirstStage | None = None  # the decision model asked first (MEMLANE_LLM_FIRST_STAGE)

    def __init__(
        self, *, categories: Sequence[str] = DEFAULT_CATEGORIES, max_chars: int = MAX_CANDIDATE_CHARS
    ) -> None:
        self.categories = tuple(categories)
        self.max_chars = max_chars

    @abstractmethod
    def _complete(self, system: str, user: str, schema: type[BaseModel]) -> str:
        """One model call constrained to ``schema``; return the raw JSON text.

        Raise :class:`MalformedOutputError` when the reply holds no JSON (no content, no tool use) and
        :class:`ProviderError` for transport failures and timeouts (those are not retried here).
        """

    def generate(self, system: str, user: str, schema: type[T]) -> T:
        """Ask for ``schema``; one retry with a correction note on malformed output, then ProviderError."""
        try:
            return _parse(schema, self._complete(system, user, schema))
        except MalformedOutputError as first:
            note = CORRECTION_V1.user.format(error=_short(str(first)))
            try:
                return _parse(schema, self._complete(system, user + note, schema))
            except MalformedOutputError as second:
                raise ProviderError(
                    f"{self.name} model {self.model!r} returned malformed output twice for "
                    f"{schema.__name__}: {_short(str(second))}"
                ) from second

    # --- the three tasks ----------------------------------------------------------------------

    def extract(self, messages: Sequence[ChatMessage], existing: Sequence[str] = ()) -> Extraction:
        system, user = EXTRACT_V2.render(
            max_chars=str(self.max_chars),
            categories=", ".join(self.categories),
            existing="\n".join(f"- {e}" for e in existing) or "(none)",
            conversation="\n".join(_render_message(m) for m in messages) or "(empty)",
        )
        return enforce_writing_constraints(self.generate(system, user, Extraction), self.max_chars)

    def same_fact(self, existing: str, candidate: str, category: str | None = None) -> SameFact:
        if self.first_stage is not None and (sure := self.first_stage.sure(existing, candidate)) is not None:
            return SameFact(same_fact=sure.relation == "redundancy", reason=sure.reason)
        system, user = SAME_FACT_V1.render(
            existing=existing,
            candidate=candidate,
            category=category or "unknown",
            existing_numbers=", ".join(_NUMBER.findall(existing)) or "none",
            candidate_numbers=", ".join(_NUMBER.findall(candidate)) or "none",
        )
        return self.generate(system, user, SameFact)

    def classify_conflict(self, existing: str, candidate: str) -> ConflictVerdict:
        if self.first_stage is not None and (sure := self.first_stage.sure(existing, candidate)) is not None:
            return sure
        system, user = CONFLICT_V1.render(existing=existing, candidate=candidate)
        return self.generate(system, user, ConflictVerdict)

    def judge(self, candidate: str, existing: Sequence[str]) -> list[ConflictVerdict]:
        """Every stored neighbour in one call (after the first stage, when there is one)."""
        if self.first_stage is not None:
            return self.first_stage.judge(candidate, existing, self._judge)
        return self._judge(candidate, existing)

    def _judge(self, candidate: str, existing: Sequence[str]) -> list[ConflictVerdict]:
        """One call; a reply that skips or repeats a memory is a ProviderError."""
        if not existing:
            return []
        stored = "\n".join(f"{i}. {text}" for i, text in enumerate(existing, 1))
        system, user = JUDGE_V1.render(candidate=candidate, stored=stored)
        reply = self.generate(system, user, Judgements)
        by_index = {j.index: j for j in reply.judgements}
        if sorted(by_index) != list(range(1, len(existing) + 1)) or len(reply.judgements) != len(existing):
            raise ProviderError(f"judge reply covers memories {sorted(by_index)} of 1..{len(existing)}")
        return [
            ConflictVerdict(relation=by_index[i].relation, reason=by_index[i].reasoning)
            for i in range(1, len(existing) + 1)
        ]

    def summarize_episode(self, messages: Sequence[ChatMessage]) -> Episode:
        shown = [m for m in messages if m.role in ("user", "assistant", "tool")]
        system, user = EPISODE_V1.render(
            categories=", ".join(self.categories),
            conversation="\n".join(_render_message(m) for m in shown) or "(empty)",
        )
        return self.generate(system, user, Episode)

    def summarize_session(self, messages: Sequence[ChatMessage]) -> SessionDigest:
        system, user = SESSION_V1.render(
            conversation="\n".join(_render_message(m) for m in messages) or "(empty)"
        )
        return self.generate(system, user, SessionDigest)

    def insights(self, activity: Sequence[str], new_facts: Sequence[str], snippet: str = "") -> Insights:
        system, user = INSIGHTS_V1.render(
            activity="\n".join(f"- {a}" for a in activity) or "(none)",
            facts="\n".join(f"- {f}" for f in new_facts) or "(none)",
            snippet=snippet.strip()[-1000:] or "(none)",
        )
        return self.generate(system, user, Insights)


# --- writing constraints (trimmed, at most max_chars, cut at a sentence), reused by formation ----


def enforce_writing_constraints(extraction: Extraction, max_chars: int = MAX_CANDIDATE_CHARS) -> Extraction:
    """Trim each candidate to at most two sentences; drop empty ones; cut over-long ones at a
    sentence boundary or drop them.

    ``should_create`` ends up true only if a candidate survives; dropped ones are noted in ``reason``.
    """
    if not extraction.should_create:
        return extraction.model_copy(update={"candidates": []})
    kept: list[Candidate] = []
    dropped: list[str] = []
    for cand in extraction.candidates:
        summary = fit(" ".join(sentences(" ".join(cand.summary.split()))[:MAX_SENTENCES]), max_chars)
        if not summary:
            dropped.append("empty summary" if not cand.summary.strip() else f"over {max_chars} chars")
            continue
        key = "_".join(cand.key.strip().lower().split()) if cand.key else None
        tags = list(dict.fromkeys(t.strip().lower() for t in cand.tags if t.strip()))
        entities = list(dict.fromkeys(e.strip() for e in cand.entities if e.strip()))
        kept.append(
            cand.model_copy(
                update={
                    "summary": summary,
                    "category": cand.category.strip() or "Other",
                    "key": key or None,
                    "tags": tags,
                    "entities": entities,
                }
            )
        )
    reason = extraction.reason
    if dropped:
        note = f"dropped {len(dropped)} candidate(s): {', '.join(dropped)}"
        reason = f"{reason}; {note}" if reason else note
    return Extraction(should_create=bool(kept), candidates=kept, reason=reason)


def fit(summary: str, max_chars: int) -> str:
    """``summary`` if it fits, else its longest run of whole sentences that fits, else ``""``."""
    if len(summary) <= max_chars:
        return summary
    ends = [m.end() for m in _SENTENCE_END.finditer(summary) if m.end() <= max_chars]
    return summary[: ends[-1]].strip() if ends else ""


# --- helpers --------------------------------------------------------------------------------


def strict_json_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema in the form strict structured-output endpoints accept.

    ``$ref`` inlined, ``title`` / ``default`` dropped, every object closed (``additionalProperties:
    false``) with every property required (optional fields stay nullable through ``anyOf`` null).
    """
    raw = schema.model_json_schema()
    defs = raw.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(n) for n in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            target = copy.deepcopy(defs[node["$ref"].rsplit("/", 1)[-1]])
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        out = {k: walk(v) for k, v in node.items() if k not in ("title", "default")}
        if out.get("type") == "object" and "properties" in out:
            out["additionalProperties"] = False
            out["required"] = list(out["properties"])
        return out

    result: dict[str, Any] = walk(raw)
    return result


def _parse(schema: type[T], text: str) -> T:
    try:
        return schema.model_validate_json(text)
    except PydanticValidationError as exc:
        errors = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in exc.errors()[:3]
        )
        raise MalformedOutputError(f"not valid {schema.__name__} JSON ({errors})") from exc


def _render_message(message: ChatMessage) -> str:
    when = f"[{message.at:%Y-%m-%d %H:%M}] " if message.at else ""
    who = f"{message.role} ({message.name})" if message.name else message.role
    return f"{when}{who}: {message.content.strip()}"


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


__all__ = ["MAX_CANDIDATE_CHARS", "MalformedOutputError", "StructuredLLM", "enforce_writing_constraints"]
