"""Runner for memory-behaviour scenarios (format: ../shared/scenarios/README.md).

Each scenario replays steps against a fresh, empty store, then checks what the memory holds and
what it retrieves. Prints ``PASS id`` / ``FAIL id: reason`` and closes with ``N passed, N failed``.

Consent (docs/consent.md): the scenarios' corrections of a city or a name are changes the user has
to accept. ``consent="accept"`` (the default) accepts each proposal after the step that made it, as
the user would (actor ``scenario``), and counts them; ``"hold"`` leaves them pending (what a user who
never answers sees); ``"off"`` runs with no consent fields.

Group chats: a chat step with a ``sender`` is one person's message in a thread several people share.
Its memories are formed for that person (``user`` defaults to the sender), from the thread's shared
history, each message carrying its sender as ``name``. A scenario's ``noise`` entries name what should
not have been stored (a memory of the wrong person, of banter or of a question): every stored memory of
that user, in any state, that matches one counts as noise (:class:`Noise`); it does not fail the
scenario.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memlane.engine.memory import Memory
from memlane.model.config import Settings
from memlane.model.enums import HistoryEvent, MemoryState
from memlane.model.errors import ConflictError
from memlane.model.record import MemoryRecord
from memlane.providers.embed import Embedder

WHY_EVENTS = {HistoryEvent.SUPERSEDE, HistoryEvent.MERGE, HistoryEvent.DELETE}


CONSENT_MODES = ("accept", "hold", "off")


@dataclass
class Noise:
    """What a scenario stored that it should not have. ``stored``: the memories the replay wrote (every
    user, any state); ``noisy``: (why, summary) of each that matches one of the scenario's ``noise``
    entries (counted once, under the first entry it matches); ``unclaimed``: the summaries of those that
    match no ``active``, ``superseded`` or ``noise`` entry of their user; ``queries`` / ``noisy_queries``:
    the queries with ``none_matches`` and those whose results matched it (unexpected evidence retrieved)."""

    declared: bool = False  # the scenario has ``noise`` entries
    stored: int = 0
    noisy: list[tuple[str, str]] = field(default_factory=list)
    unclaimed: list[str] = field(default_factory=list)
    queries: int = 0
    noisy_queries: int = 0


@dataclass
class Outcome:
    id: str
    passed: bool
    reasons: list[str]
    accepted: int = 0  # proposals the runner accepted as the user (consent="accept")
    noise: Noise = field(default_factory=Noise)


def load(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    out = []
    for path in paths:
        for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}:{n}: not valid JSON ({exc.msg})") from None
    return out


def _all(mem: Memory, user: str) -> list[MemoryRecord]:
    return mem.list(user_id=user, include_inactive=True, limit=10_000)


def _match(pattern: str, text: str) -> bool:
    return re.search(pattern, text, re.IGNORECASE) is not None


def _apply_op(mem: Memory, step: dict[str, Any]) -> None:
    user, op = step.get("user", "u1"), step["op"]
    states = {"restore": MemoryState.SOFT_DELETED}.get(op, MemoryState.ACTIVE)
    found = [r for r in _all(mem, user) if r.state is states and _match(step["matches"], r.summary)]
    if len(found) != 1:
        raise AssertionError(f"op {op}: {len(found)} memories match {step['matches']!r}")
    if op == "pin":
        mem.update(found[0].id, user_id=user, pinned=True, actor="scenario")
    elif op == "delete":
        mem.delete(found[0].id, user_id=user, actor="scenario")
    elif op == "restore":
        mem.restore(found[0].id, user_id=user, actor="scenario")
    else:
        raise AssertionError(f"unknown op {op!r}")


def _group_threads(steps: list[dict[str, Any]]) -> set[str]:
    """The threads several people share: those where a chat step names its ``sender``."""
    return {s.get("thread", "t1") for s in steps if "text" in s and "sender" in s}


def _users(steps: list[dict[str, Any]]) -> list[str]:
    """Each step's user: ``user``, else its ``sender``; an assistant message of a group thread without
    either answers (and belongs to) the thread's last speaker; else ``u1``."""
    groups, out = _group_threads(steps), []
    last: dict[str, str] = {}
    for step in steps:
        thread = step.get("thread", "t1")
        user = step.get("user") or step.get("sender")
        if user is None and "text" in step and thread in groups:
            user = last.get(thread)
        out.append(user or "u1")
        if "text" in step and thread in groups and step.get("role", "user") == "user":
            last[thread] = out[-1]
    return out


def _answered(steps: list[dict[str, Any]], n: int, users: list[str] | None = None) -> bool:
    """Whether the chat step ``n`` (a user message) gets an assistant reply next in its thread (of its
    user, or of anyone in a group thread)."""
    step, users = steps[n], users or _users(steps)
    thread = step.get("thread", "t1")
    group = thread in _group_threads(steps)
    for m, later in enumerate(steps[n + 1 :], start=n + 1):
        if "text" in later and later.get("thread", "t1") == thread and (group or users[m] == users[n]):
            return later.get("role", "user") == "assistant"
    return False


def _accept_proposals(mem: Memory, user: str) -> int:
    """Accept the user's pending proposals as the user would; one made stale by a later change of its
    memory (a ConflictError: "changed since proposal") is left, as the user could only reject it."""
    accepted = 0
    for p in mem.proposals.list(user_id=user):
        try:
            mem.proposals.accept(p.id, user_id=user, actor="scenario")
        except ConflictError:
            continue
        accepted += 1
    return accepted


def replay(mem: Memory, scenario: dict[str, Any], *, accept: bool = False) -> int:
    """Apply the steps: facts through the decision path; chat messages as an assistant's host sends them
    (each user message through the hot path, each finished turn, after the reply or at once when the
    scenario gives none, through the episodic capture). With ``accept``, accept the proposals each step
    made. Returns how many were accepted."""
    threads: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    accepted = 0
    steps = scenario["steps"]
    users, groups = _users(steps), _group_threads(steps)
    for n, step in enumerate(steps):
        user = users[n]
        accepted += _accept_proposals(mem, user) if accept else 0  # left by the previous step
        if "op" in step:
            _apply_op(mem, step)
        elif "fact" in step:
            fact = {k: step[k] for k in ("type", "category", "key", "importance", "pinned") if k in step}
            mem.add_facts(
                [{"summary": step["fact"], **fact}],
                user_id=user,
                thread_id=step.get("thread"),
                at=step["at"],
                wait=True,
            )
        else:
            thread = step.get("thread", "t1")
            history = threads[("", thread) if thread in groups else (user, thread)]
            message = {"role": step.get("role", "user"), "content": step["text"], "at": step["at"]}
            history.append({**message, **({"name": step["sender"]} if "sender" in step else {})})
            if history[-1]["role"] == "user":
                mem.add(history[-12:], user_id=user, thread_id=thread, at=step["at"], wait=True)
            if history[-1]["role"] == "assistant" or not _answered(steps, n, users):
                mem.capture_turn(history[-12:], user_id=user, thread_id=thread, at=step["at"], wait=True)
    for user in set(users) if accept else ():
        accepted += _accept_proposals(mem, user)
    return accepted


def noise(mem: Memory, scenario: dict[str, Any]) -> Noise:
    """What the replay stored that the scenario says it should not have (see :class:`Noise`)."""
    exp = scenario.get("expect", {})
    entries = scenario.get("noise", [])
    users = sorted(
        set(_users(scenario["steps"]))
        | {e.get("user", "u1") for e in entries}
        | {e.get("user", "u1") for kind in ("active", "superseded") for e in exp.get(kind, [])}
    )
    out = Noise(declared=bool(entries))
    for user in users:
        claims = [
            e["matches"]
            for kind in ("active", "superseded")
            for e in exp.get(kind, [])
            if e.get("user", "u1") == user
        ]
        mine = [e for e in entries if e.get("user", "u1") == user]
        for r in _all(mem, user):
            out.stored += 1
            why = next((e.get("why", "noise") for e in mine if _match(e["matches"], r.summary)), None)
            if why is not None:
                out.noisy.append((why, f"{user}: {r.summary}"))
            elif not any(_match(c, r.summary) for c in claims):
                out.unclaimed.append(f"{user}: {r.summary}")
    return out


def check(mem: Memory, scenario: dict[str, Any], events: Counter[str]) -> list[str]:
    exp, bad = scenario.get("expect", {}), []
    for e in exp.get("active", []):
        user = e.get("user", "u1")
        ok = [
            r
            for r in mem.list(user_id=user, limit=10_000)
            if _match(e["matches"], r.summary)
            and (not e.get("type") or r.type.value == e["type"])
            and (not e.get("category") or r.category == e["category"])
        ]
        if not ok:
            bad.append(
                f"no active memory of {user} matches {e['matches']!r}"
                + (f" ({e.get('type')})" if e.get("type") else "")
            )
    for e in exp.get("not_active", []):
        user = e.get("user", "u1")
        hits = [r.summary for r in mem.list(user_id=user, limit=10_000) if _match(e["matches"], r.summary)]
        if hits:
            bad.append(f"active memory of {user} should not match {e['matches']!r}: {hits}")
    for e in exp.get("superseded", []):
        user = e.get("user", "u1")
        old = [r for r in _all(mem, user) if not r.is_active and _match(e["matches"], r.summary)]
        explained = [
            r for r in old if any(h.event in WHY_EVENTS and h.reason for h in mem.history(r.id, user_id=user))
        ]
        if not explained:
            bad.append(f"no inactive memory of {user} with a reason in history matches {e['matches']!r}")
    if "active_count" in exp:
        e = exp["active_count"]
        user = e.get("user", "u1")
        n = len(
            [
                r
                for r in mem.list(user_id=user, limit=10_000)
                if not e.get("type") or r.type.value == e["type"]
            ]
        )
        if n < e.get("min", 0) or n > e.get("max", 10**9):
            summaries = [r.summary for r in mem.list(user_id=user, limit=10_000)]
            bad.append(
                f"{n} active memories of {user} (want {e.get('min', 0)}..{e.get('max', '∞')}): {summaries}"
            )
    for kind, want in exp.get("events", {}).items():
        if events[f"memory.{kind}"] != want:
            bad.append(f"{events[f'memory.{kind}']} memory.{kind} events, want {want}")
    return bad


def ask(
    mem: Memory,
    scenario: dict[str, Any],
    search: Callable[..., list[Any]] | None = None,
    found: Noise | None = None,
) -> list[str]:
    """Run the queries; with ``found``, count those with ``none_matches`` and those that retrieved it."""
    bad = []
    last_at = scenario["steps"][-1]["at"] if scenario["steps"] else None
    for q in scenario.get("queries", []):
        user, k = q.get("user", "u1"), q.get("topk", 3)
        run = search or mem.search
        hits = [h.memory.summary for h in run(q["query"], user_id=user, limit=k, at=q.get("at", last_at))]
        if "top1_matches" in q and not (hits and _match(q["top1_matches"], hits[0])):
            bad.append(f"query {q['query']!r}: top1 {hits[:1]} does not match {q['top1_matches']!r}")
        if "any_matches" in q and not any(_match(q["any_matches"], h) for h in hits):
            bad.append(f"query {q['query']!r}: none of {hits} matches {q['any_matches']!r}")
        if "none_matches" in q and any(_match(q["none_matches"], h) for h in hits):
            bad.append(f"query {q['query']!r}: {hits} should not match {q['none_matches']!r}")
            if found is not None:
                found.noisy_queries += 1
        if "none_matches" in q and found is not None:
            found.queries += 1
    return bad


def run_one(
    scenario: dict[str, Any],
    embedder: Embedder,
    workdir: Path,
    llm: str | None = None,
    consent: str = "accept",
) -> Outcome:
    if consent not in CONSENT_MODES:
        raise ValueError(f"consent must be one of {', '.join(CONSENT_MODES)}, got {consent!r}")
    settings = Settings()
    if consent == "off":
        settings = settings.model_copy(
            update={"memory_consent_fields": [], "memory_consent_benign_fields": []}
        )
    mem = Memory(str(workdir / f"{scenario['id']}.db"), embedder=embedder, llm=llm, settings=settings)
    events: Counter[str] = Counter()
    mem.events.subscribe(lambda ev: events.update([ev.type]))
    accepted, found = 0, Noise()
    try:
        accepted = replay(mem, scenario, accept=consent == "accept")
        found = noise(mem, scenario)
        reasons = check(mem, scenario, events) + ask(mem, scenario, found=found)
    except AssertionError as exc:
        reasons = [str(exc)]
    finally:
        mem.close()
    return Outcome(scenario["id"], not reasons, reasons, accepted, found)


def noise_line(outcomes: Sequence[Outcome]) -> str | None:
    """The closing noise figures, or None when no scenario declares ``noise``."""
    declared = [o for o in outcomes if o.noise.declared]
    if not declared:
        return None
    stored = sum(o.noise.stored for o in declared)
    noisy = [why for o in declared for why, _ in o.noise.noisy]
    share = f" ({100 * len(noisy) / stored:.1f}%)" if stored else ""
    kinds = ", ".join(f"{why} {n}" for why, n in sorted(Counter(noisy).items()))
    hit = sum(1 for o in declared if o.noise.noisy)
    unclaimed = sum(len(o.noise.unclaimed) for o in declared)
    queries = sum(o.noise.queries for o in outcomes)
    noisy_queries = sum(o.noise.noisy_queries for o in outcomes)
    return (
        f"noise: {len(noisy)} of {stored} stored memories{share} should not have been stored"
        f"{f' ({kinds})' if kinds else ''}, in {hit} of {len(declared)} scenario(s) that declare noise; "
        f"{unclaimed} more matched no expectation; {noisy_queries} of {queries} query(ies) with "
        "none_matches retrieved unexpected evidence"
    )


def run(
    scenarios: Sequence[dict[str, Any]],
    embedder: Embedder,
    *,
    llm: str | None = None,
    report: Callable[[Outcome], None] | None = None,
    consent: str = "accept",
) -> list[Outcome]:
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="memlane-scenarios-") as tmp:
        for scenario in scenarios:
            outcome = run_one(scenario, embedder, Path(tmp), llm, consent)
            outcomes.append(outcome)
            if report:
                report(outcome)
    return outcomes
