"""The extraction data in the repository: every row reads, training never holds a development or blind
message, and the scoring and the third-person rewrite do what the data card says."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlane.model.errors import ValidationError
from memlane.providers.llm.learned.rewrite import summary_of
from memlane.training.extraction_data import load_messages, read_messages
from memlane.training.extraction_eval import Proposal, score

DATA = Path(__file__).resolve().parents[1] / "data" / "extraction"


def _key(assistant: str, message: str) -> tuple[str, str]:
    return assistant.lower().strip(), " ".join(message.lower().split())


def test_every_split_reads_and_training_has_every_kind() -> None:
    train = read_messages([DATA / "train"])
    assert len(train) >= 1500
    assert {m.kind for row in train for m in row.memories} == {
        "fact",
        "event",
        "answer_style",
        "other_person",
    }
    assert sum(not row.memories for row in train) >= len(train) // 4  # messages with nothing to keep
    for part in ("dev", "blind"):
        assert read_messages([DATA / part])


@pytest.mark.parametrize("part", ["dev", "blind"])
def test_no_held_out_message_is_in_the_training_data(part: str) -> None:
    train = {_key(r.assistant, r.message) for r in read_messages([DATA / "train"])}
    leaked = [r.id for r in read_messages([DATA / part]) if _key(r.assistant, r.message) in train]
    assert not leaked, f"{part}: {len(leaked)} messages also in training: {leaked[:5]}"


def test_a_span_missing_from_its_message_is_refused_with_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"id": "x1", "voice": "v", "domain": "d", "message": "I live in Oslo", "memories": [{"span": '
        '"I live in Bergen", "kind": "fact", "type": "semantic", "category": "personal", "importance": 4, '
        '"summary": "User lives in Bergen."}]}\n',
        encoding="utf-8",
    )
    with pytest.raises(ValidationError, match=r"(?s)bad.jsonl:1: .*not in the message"):
        load_messages(bad)


def test_the_written_memories_score_full_marks_and_silence_scores_none() -> None:
    rows = read_messages([DATA / "dev"])
    perfect = score(rows, [[Proposal(m.summary, m.kind) for m in r.memories] for r in rows])
    silent = score(rows, [[] for _ in rows])
    assert perfect.recall == perfect.precision == 1.0 and perfect.kind_agrees == perfect.gold
    assert silent.found == 0 and silent.empty_kept_empty == silent.empty > 0


@pytest.mark.parametrize(
    ("span", "kind", "summary"),
    [
        ("im allergic to penicillin", "fact", "User is allergic to penicillin."),
        ("my brother lives in Porto lol", "other_person", "User's brother lives in Porto."),
        ("quit smoking 10 days ago!!", "fact", "User quit smoking 10 days ago."),
        ("keep it short pls", "answer_style", "User wants the assistant to keep it short please."),
        ("i dont eat pork", "fact", "User does not eat pork."),
        ("been vegan since march", "fact", "User has been vegan since march."),
        ("short answers pls, no essays", "answer_style", "User wants short answers please, no essays."),
    ],
)
def test_a_span_is_rewritten_in_the_third_person_in_the_users_words(
    span: str, kind: str, summary: str
) -> None:
    assert summary_of(span, kind) == summary
