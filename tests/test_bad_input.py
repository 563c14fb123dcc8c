"""Bad input through the Python API: a typed ValidationError with a message that says what to fix,
the same on SQLite and PostgreSQL, and the stored memory left exactly as it was."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

from memlane import Memory
from memlane.model.category import UnknownCategoryWarning
from memlane.model.config import Settings
from memlane.model.errors import FilterError, ValidationError
from memlane.providers.embed.hash import HashEmbedder
from memlane.storage.base import Backend

U = "maya"


@pytest.fixture
def mem(backend: Backend) -> Iterator[Memory]:
    emb = HashEmbedder(int(backend.get_meta("embed_dims") or 8))
    backend.set_meta("embedder", emb.identity)  # the fixture's empty store, made for this embedder
    m = Memory(backend=backend, embedder=emb, settings=Settings(memory_metadata_max_bytes=4096))
    yield m


def stored(mem: Memory) -> list[dict[str, Any]]:
    return [r.model_dump(exclude={"updated_at"}) for r in mem.list(user_id=U, include_inactive=True)]


@pytest.mark.parametrize(
    "fields, says",
    [
        ({"pinned": "false"}, "pinned must be true or false"),
        ({"pinned": 1}, "pinned must be true or false"),
        ({"category": 123}, "category must be a string"),
        ({"metadata": "abc"}, "metadata must be an object"),
        ({"importance": 1e300}, "importance must be an integer from 1 to 5"),
        ({"summary": "User lives in \ud800 Lisbon."}, "summary is not valid Unicode"),
        ({"summary": "User lives in\x00 Lisbon."}, "summary contains a NUL character"),
        ({"tags": ["home\x00"]}, "tags contains a NUL character"),
        ({"metadata": {"note": "a\x00b"}}, "metadata.note contains a NUL character"),
        ({"metadata": {"k\ud800": 1}}, "not valid Unicode"),
        (
            {"metadata": {"seen": {"mon", "tue"}}},
            "metadata.seen is a set, which JSON cannot hold; use a list",
        ),
        ({"metadata": {"score": math.nan}}, "metadata.score is nan: JSON has no NaN"),
        ({"metadata": {"nested": [{"x": math.inf}]}}, r"metadata.nested\[0\].x is inf"),
        ({"metadata": {"big": 2**70}}, "does not fit in 64 bits"),
        ({"metadata": {"raw": b"bytes"}}, "metadata.raw is a bytes"),
        ({"metadata": {1: "one"}}, "object keys must be strings"),
        ({"metadata": {"blob": "x" * 5000}}, "over the limit of 4096 \\(MEMORY_METADATA_MAX_BYTES\\)"),
    ],
)
def test_a_bad_put_is_a_validation_error_and_stores_nothing(
    mem: Memory, fields: dict[str, Any], says: str
) -> None:
    mem.put("User likes tea.", user_id=U)
    before = stored(mem)
    with pytest.raises(ValidationError, match=says):
        mem.put(**{"summary": "User lives in Lisbon.", "user_id": U, **fields})
    assert stored(mem) == before


@pytest.mark.parametrize(
    "changes, says",
    [
        ({"pinned": "false"}, "pinned must be true or false"),
        ({"pinned": 0}, "pinned must be true or false"),
        ({"category": 7}, "category must be a string"),
        ({"metadata": ["a", "b"]}, "metadata must be an object"),
        ({"metadata": {"when": {1, 2}}}, "is a set"),
        ({"summary": "User likes \ud83d tea."}, "not valid Unicode"),
    ],
)
def test_a_bad_update_is_a_validation_error_and_changes_nothing(
    mem: Memory, changes: dict[str, Any], says: str
) -> None:
    rec = mem.put("User likes tea.", user_id=U, metadata={"a": 1})
    before = stored(mem)
    with pytest.raises(ValidationError, match=says):
        mem.update(rec.id, user_id=U, **changes)
    assert stored(mem) == before and mem.history(rec.id, user_id=U)[-1].event.value == "ADD"


def test_pinned_takes_real_booleans(mem: Memory) -> None:
    rec = mem.put("User likes tea.", user_id=U, pinned=False)
    assert rec.pinned is False
    assert mem.update(rec.id, user_id=U, pinned=True).pinned is True


@pytest.mark.parametrize(
    "call, says",
    [
        (lambda m: m.search("tea", user_id=U, threshold="abc"), "threshold must be a cosine similarity"),
        (lambda m: m.search("tea", user_id=U, threshold=True), "threshold must be a cosine similarity"),
        (lambda m: m.search("tea \ud800", user_id=U), "query is not valid Unicode"),
        (lambda m: m.context("tea \ud800", user_id=U), "query is not valid Unicode"),
        (lambda m: m.add("I like tea \ud800.", user_id=U), r"messages\[0\].content is not valid Unicode"),
        (lambda m: m.add("I like\x00 tea.", user_id=U), r"messages\[0\].content contains a NUL"),
        (
            lambda m: m.add_facts([{"summary": "User likes tea.", "pinned": "false"}], user_id=U),
            "pinned must be",
        ),
    ],
)
def test_bad_reads_and_turns_are_validation_errors(mem: Memory, call: Any, says: str) -> None:
    mem.put("User likes tea.", user_id=U)
    with pytest.raises(ValidationError, match=says):
        call(mem)
    assert mem.jobs.list(None, user_id=U) == []


@pytest.mark.parametrize(
    "filters, says",
    [
        ({"importance": 1e300}, "out of range"),
        ({"importance_min": 2**64}, "out of range"),
        ({"importance": 2.5}, "expected an integer"),
        ({"category": "Per\x00sonal"}, "NUL character"),
    ],
)
def test_bad_filters_are_filter_errors_on_every_backend(
    mem: Memory, filters: dict[str, Any], says: str
) -> None:
    mem.put("User likes tea.", user_id=U)
    with pytest.raises(FilterError, match=says):
        mem.list(user_id=U, filters=filters)
    with pytest.raises(FilterError, match=says):
        mem.search("tea", user_id=U, filters=filters)


def test_metadata_reads_back_the_same_on_every_backend(mem: Memory) -> None:
    given = {
        "tags": ("a", "b"),
        "n": 3,
        "x": 0.5,
        "ok": True,
        "none": None,
        "deep": {"list": [1, {"k": "ü"}]},
    }
    rec = mem.put("User likes tea.", user_id=U, metadata=given)
    want = {"tags": ["a", "b"], "n": 3, "x": 0.5, "ok": True, "none": None, "deep": {"list": [1, {"k": "ü"}]}}
    assert rec.metadata == want and mem.get(rec.id, user_id=U).metadata == want


def test_an_unknown_category_is_stored_as_other_and_said_so(mem: Memory) -> None:
    with pytest.warns(UnknownCategoryWarning, match="'Zoology' is not configured and was stored as 'Other'"):
        rec = mem.put("User studies beetles.", user_id=U, category="Zoology")
    assert rec.category == "Other"
    with pytest.warns(UnknownCategoryWarning, match="'Hobbies'"):
        assert mem.update(rec.id, user_id=U, category="Hobbies").category == "Other"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # known names (any case) and Other itself are not reported
        assert mem.put("User runs.", user_id=U, category="health").category == "Health"
        assert mem.put("User hums.", user_id=U, category="other").category == "Other"
