"""``memlane eval locomo`` on a tiny LoCoMo-shaped file (hash embedder: fast, no model)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memlane.cli.app import app
from memlane.evaluation import locomo, locomo_data
from memlane.evaluation.metrics import distinct, ndcg_at, percentile, recall_at, session_recall_at
from memlane.model.config import Settings
from memlane.providers.embed.hash import HashEmbedder


def turn(dia: str, speaker: str, text: str, **extra: str) -> dict[str, Any]:
    return {"speaker": speaker, "dia_id": dia, "text": text, **extra}


SAMPLE = {
    "sample_id": "conv-x",
    "conversation": {
        "speaker_a": "Ann",
        "speaker_b": "Bob",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            turn("D1:1", "Ann", "Hey Bob! How have you been?"),
            turn(
                "D1:2",
                "Bob",
                "Great! I adopted a puppy named Rex last week.",
                blip_caption="a photo of a small brown dog",
                query="puppy",
            ),
            turn("D1:3", "Ann", "Lovely. I started pottery classes on Mondays."),
            turn("D1:4", "Bob", "What do you make there?"),
            turn("D1:5", "Ann", "Mostly bowls and a big green vase."),
        ],
        "session_2_date_time": "10:00 am on 3 June, 2023",
        "session_2": [
            turn("D2:1", "Bob", "Rex chewed my sneakers yesterday."),
            turn("D2:2", "Ann", "I sold my first vase at the market!"),
            turn("D2:3", "Bob", "Congrats, that is a milestone."),
        ],
    },
    "qa": [
        {
            "question": "What is the name of Bob's puppy?",
            "answer": "Rex",
            "evidence": ["D1:2"],
            "category": 4,
        },
        {
            "question": "What did Ann make in pottery class?",
            "answer": "bowls, vase",
            "evidence": ["D1:5; D2:2"],
            "category": 1,
        },
        {
            "question": "What did Ann sell on 3 June, 2023?",
            "answer": "a vase",
            "evidence": ["D:2:02"],
            "category": 2,
        },
        {"question": "Would Bob like cats?", "answer": "maybe", "evidence": [], "category": 3},
        {"question": "What did Rex chew?", "adversarial_answer": "x", "evidence": ["D9:9"], "category": 5},
    ],
    "observation": {"ignored": True},
}


@pytest.fixture
def data(tmp_path: Path) -> Path:
    other = json.loads(json.dumps(SAMPLE).replace("conv-x", "conv-y"))
    path = tmp_path / "locomo_tiny.json"
    path.write_text(json.dumps([SAMPLE, other]))
    return path


def test_load_cleans_evidence_and_reads_turns(data: Path) -> None:
    convs = locomo_data.load(data)
    assert [c.sample_id for c in convs] == ["conv-x", "conv-y"]
    conv = convs[0]
    assert (
        len(conv.turns) == 8
        and conv.turns[1].summary
        == "Bob: Great! I adopted a puppy named Rex last week. [shares puppy; a photo of a small brown dog]"
    )
    assert [q.evidence for q in conv.questions] == [("D1:2",), ("D1:5", "D2:2"), ("D2:2",), (), ()]
    assert conv.last_at.isoformat() == "2023-06-03T10:00:00+00:00"
    assert locomo_data.clean_evidence(["D8:6; D9:17", "D30:05", "D8:6"], {"D8:6", "D9:17", "D30:5"}) == (
        "D8:6",
        "D9:17",
        "D30:5",
    )
    with pytest.raises(ValueError):
        locomo_data.parse_date("yesterday-ish")


def test_metrics() -> None:
    ranked = ["a", "b", "a", "c", "d"]
    assert distinct(ranked, 3) == ["a", "b", "c"]
    assert recall_at(ranked, ["c", "z"], 2) == 0.0
    assert recall_at(ranked, ["c", "z"], 3) == 0.5
    assert ndcg_at(ranked, ["a"], 10) == 1.0
    assert ndcg_at(["x", "a"], ["a"], 10) == pytest.approx(1 / 1.5849625, rel=1e-6)
    assert percentile([1, 2, 3, 4], 50) == 2.5 and percentile([], 95) == 0.0
    sessions = {"D1:1": 1, "D1:2": 1, "D2:1": 2, "D3:1": 3}
    ranked = ["D1:1", "D1:2", "D2:1", "x"]  # two distinct sessions in three turns; "x" has none
    assert session_recall_at(ranked, ["D2:1", "D3:1"], 1, sessions) == 0.0
    assert session_recall_at(ranked, ["D2:1", "D3:1"], 2, sessions) == 0.5  # session 2 is the second
    assert session_recall_at(ranked, ["D1:2", "D1:1"], 1, sessions) == 1.0  # one session holds both


def test_run_reports_every_method_and_category(data: Path) -> None:
    convs = locomo_data.load(data)
    # every turn of the toy is short, so brevity (tested on its own) would only reorder them by length
    settings = locomo.eval_settings(Settings(timezone="UTC", memory_brevity_weight=0.0))
    report = locomo.run(convs, HashEmbedder(128), settings, ks=(1, 5))
    assert report["questions"] == 6 and report["skipped"] == {
        "total": 4,
        "by_category": {"adversarial": 2, "open-domain": 2},
    }
    assert report["turns"] == 16 and report["embedding"] == "header:context,speaker"
    assert set(report["methods"]) == {"memlane", "keyword", "dense"}
    for method in report["methods"].values():
        assert set(method) == {"overall", "multi-hop", "single-hop", "temporal"}
        for figures in method.values():
            assert 0.0 <= figures["recall@1"] <= figures["recall@5"] <= 1.0
            assert 0.0 <= figures["ndcg@10"] <= 1.0 and figures["latency_ms_p95"] >= figures["latency_ms_p50"]
    assert report["methods"]["memlane"]["single-hop"]["recall@1"] == 1.0
    assert report["methods"]["memlane"]["temporal"]["recall@1"] == 1.0  # the date names the session


def test_ingest_writes_turns_and_follows_links(tmp_path: Path) -> None:
    from memlane.engine.memory import Memory

    conv = locomo_data.parse_sample(SAMPLE)
    mem = Memory(str(tmp_path / "i.db"), embedder=HashEmbedder(64), settings=locomo.eval_settings(Settings()))
    assert locomo.ingest(mem, conv) == 8
    recs = {r.source_ref: r for r in mem.list(user_id="conv-x")}
    assert recs["D1:2"].metadata["context"] == "Ann: Hey Bob! How have you been?"
    assert recs["D2:1"].metadata == {} and recs["D2:1"].thread_id == "session_2"
    assert recs["D1:2"].actor_id == "Bob" and recs["D1:2"].type.value == "episodic"
    links = mem.backend.memories.relations("conv-x", [r.id for r in recs.values()])
    assert len(links) == 6 and {link.relation_type for link in links} == {"follows"}  # none across sessions
    mem.close()


def test_cli_writes_json(data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "none.toml"))
    out = tmp_path / "figures.json"
    cache = tmp_path / "cache.db"
    args = [
        "eval",
        "locomo",
        "--data",
        str(data),
        "--k",
        "5,10,25",
        "--json",
        str(out),
        "--embedder",
        "hash",
        "--embed-cache",
        str(cache),
        "--conversations",
        "1",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["k"] == [5, 10, 25] and report["conversations"] == 1 and report["data"] == str(data)
    assert "recall@25" in report["methods"]["dense"]["overall"]
    assert "memlane" in result.output and "single-hop" in result.output
    assert "Session-level recall" in result.output and "S@10" in result.output
    assert "session_recall@10" in report["methods"]["memlane"]["overall"]
    again = CliRunner().invoke(app, args)  # the second run reads the cached vectors
    rerun = json.loads(out.read_text())["methods"]["memlane"]["overall"]
    assert again.exit_code == 0 and rerun["recall@10"] == report["methods"]["memlane"]["overall"]["recall@10"]
    held_out = CliRunner().invoke(app, [*args[:-2], "--skip", "1"])  # the second conversation only
    assert held_out.exit_code == 0 and json.loads(out.read_text())["conversations"] == 1
    bad = CliRunner().invoke(app, ["eval", "locomo", "--data", str(data), "--k", "five"])
    assert bad.exit_code == 2 and "error:" in bad.output


def test_sessions_record_each_conversation_as_a_chat_and_report_its_recall(data: Path) -> None:
    convs = locomo_data.load(data)[:1]
    settings = locomo.eval_settings(Settings(timezone="UTC", memory_brevity_weight=0.0))
    report = locomo.run(convs, HashEmbedder(128), settings, ks=(1, 5), sessions=True)
    assert set(report["methods"]) == {"memlane", "keyword", "dense", *locomo.CHAT_METHODS}
    # two LoCoMo sessions, weeks apart: two chat sessions, both summarised (each has at least 3 turns... the
    # first has 5, the second 3: under CONTEXT_SESSION_MIN_MESSAGES=4 it is closed, not summarised)
    assert report["chat_sessions"] == {"summarized": 1, "closed": 1}
    # the puppy's name is said in one message: the message channel finds it first
    assert report["methods"]["chat-messages"]["single-hop"]["recall@1"] == 1.0
    for name in locomo.CHAT_METHODS:
        for figures in report["methods"][name].values():
            assert 0.0 <= figures["recall@1"] <= figures["recall@5"] <= 1.0
    for figures in (f for method in report["methods"].values() for f in method.values()):
        assert 0.0 <= figures["session_recall@1"] <= figures["session_recall@5"] <= 1.0
    # the puppy's turn is memlane's first: its session is the first too, and the session prior keeps it
    for name in ("memlane", "fused"):
        single = report["methods"][name]["single-hop"]
        assert single["recall@1"] == single["session_recall@1"] == 1.0
