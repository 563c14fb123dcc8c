"""The flat names of namespace calls (``mem.accept_proposal``, ``mem.proposals(...)``) still work for
one release and warn with the new call; memlane's own interfaces never use them."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from memlane import AsyncMemory, Memory
from memlane.model.errors import NotFoundError

U = "maya"


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    m = Memory(str(tmp_path / "m.db"), embedder="hash")
    yield m
    m.close()


def test_old_procedure_names_work_and_name_the_new_call(mem: Memory) -> None:
    with pytest.warns(DeprecationWarning, match=r"use mem\.procedures\.add\(\)"):
        saved = mem.add_procedure("Deploy", ["Run the tests"], user_id=U)
    with pytest.warns(DeprecationWarning, match=r"use mem\.procedures\.get\(\)"):
        assert mem.procedure("Deploy", user_id=U).id == saved.id
    with pytest.warns(DeprecationWarning, match=r"use mem\.procedures\.list\(\)"):
        assert [p.id for p in mem.procedures(user_id=U)] == [saved.id]


def test_old_proposal_names_work_and_name_the_new_call(mem: Memory) -> None:
    with pytest.warns(DeprecationWarning, match=r"use mem\.proposals\.list\(\)"):
        assert mem.proposals(user_id=U) == []
    with pytest.warns(DeprecationWarning, match=r"use mem\.proposals\.get\(\)"), pytest.raises(NotFoundError):
        mem.proposal("p1", user_id=U)
    for old, new in (("accept_proposal", "accept"), ("reject_proposal", "reject")):
        with (
            pytest.warns(DeprecationWarning, match=rf"use mem\.proposals\.{new}\(\)"),
            pytest.raises(NotFoundError),
        ):
            getattr(mem, old)("p1", user_id=U)


def test_old_names_work_on_async_memory_too(mem: Memory) -> None:
    amem = AsyncMemory(memory=mem)

    async def run() -> None:
        with pytest.warns(DeprecationWarning, match=r"mem\.procedures\.add\(\)"):
            await amem.add_procedure("Deploy", ["Run the tests"], user_id=U)
        with pytest.warns(DeprecationWarning, match=r"mem\.proposals\.list\(\)"):
            assert await amem.proposals(user_id=U) == []

    asyncio.run(run())


def test_new_names_do_not_warn(mem: Memory) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        saved = mem.procedures.add("Deploy", ["Run the tests"], user_id=U)
        assert [p.id for p in mem.procedures.list(user_id=U)] == [saved.id]
        assert mem.proposals.list(user_id=U) == []


def test_old_sharing_names_work_and_name_the_new_call(mem: Memory) -> None:
    rec = mem.put("The team office is in Lisbon.", user_id="alice")
    with pytest.warns(DeprecationWarning, match=r"use mem\.sharing\.share\(\)"):
        assert [k.user_id for k in mem.share(rec.id, user_id="alice", with_users=["bob"])] == ["bob"]
    with pytest.warns(DeprecationWarning, match=r"use mem\.sharing\.shared_with\(\)"):
        assert [k.user_id for k in mem.shared_with(rec.id, user_id="alice")] == ["bob"]
    with pytest.warns(DeprecationWarning, match=r"use mem\.sharing\.unshare\(\)"):
        mem.unshare(rec.id, user_id="bob")
    assert mem.sharing.shared_with(rec.id, user_id="alice")[0].is_open is False


def test_old_job_names_work_and_name_the_new_call(mem: Memory) -> None:
    turn, _ = mem.add_turn("I live in Lisbon.", user_id=U, wait=True)
    with pytest.warns(DeprecationWarning, match=r"use mem\.jobs\.list\(\)"):
        assert turn in [j.id for j in mem.jobs(user_id=U)]
    with pytest.warns(DeprecationWarning, match=r"use mem\.jobs\.pending\(\)"):
        assert mem.pending([turn], user_id=U) is None
    with pytest.warns(DeprecationWarning, match=r"use mem\.jobs\.outcomes\(\)"):
        assert mem.outcomes(turn, user_id=U) == mem.jobs.outcomes(turn, user_id=U)
    with pytest.warns(DeprecationWarning, match=r"use mem\.jobs\.retry_many\(\)"):
        assert mem.retry_jobs() == []


def test_old_session_names_work_and_name_the_new_call(mem: Memory) -> None:
    with pytest.warns(DeprecationWarning, match=r"use mem\.sessions\.record_message\(\)"):
        sent = mem.record_message("Lunch at noon?", user_id=U, chat_id="team", sender="ana")
    with pytest.warns(DeprecationWarning, match=r"use mem\.sessions\.list\(\)"):
        assert [s.id for s in mem.sessions(user_id=U)] == [sent.session_id]
    with pytest.warns(DeprecationWarning, match=r"use mem\.sessions\.messages\(\)"):
        assert [m.text for m in mem.session_messages(sent.session_id, user_id=U)] == ["Lunch at noon?"]
    with pytest.warns(DeprecationWarning, match=r"use mem\.sessions\.delete\(\)"):
        mem.delete_session(sent.session_id, user_id=U)
    assert mem.sessions.list(user_id=U) == []
