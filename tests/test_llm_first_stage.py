"""The decision model as a first stage in front of a model judge (MEMLANE_LLM_FIRST_STAGE).

The LLM is the real ``openai`` SDK talking to a scripted OpenAI-compatible server on 127.0.0.1; the
decision model is the one shipped in the package. Thresholds are set from the model's own probability for
a pair, so each test knows whether the pair is decided here or passed on, whatever the shipped weights.
"""

from __future__ import annotations

import pytest

from memlane.model.config import Settings
from memlane.model.errors import ValidationError
from memlane.providers.llm.first_stage import FirstStage
from memlane.providers.llm.learned.decision_model import shared_model
from memlane.providers.llm.openai import OpenAILLM
from memlane.providers.llm.registry import llm_from_settings
from tests.scripted_chat_server import ScriptedChatServer, openai_llm

STORED, CANDIDATE = "User lives in Lisbon.", "User lives in Lisbon, Portugal."
OTHER = "User's sister plays the cello."


def _top(stored: str, candidate: str) -> float:
    return float(shared_model().probabilities([(stored, candidate)])[0].max())


def test_a_confident_verdict_makes_no_llm_call(server: ScriptedChatServer) -> None:
    llm = openai_llm(server)
    llm.first_stage = FirstStage(shared_model(), _top(STORED, CANDIDATE))
    verdict = llm.classify_conflict(STORED, CANDIDATE)
    assert (verdict.reason or "").startswith("decision model (first stage)")
    assert llm.judge(CANDIDATE, [STORED])[0].relation == verdict.relation
    assert server.requests == []
    assert (llm.first_stage.decided_pairs, llm.first_stage.saved_calls, llm.first_stage.calls) == (2, 2, 0)


def test_an_unsure_pair_goes_to_the_llm_alone_in_one_call(server: ScriptedChatServer) -> None:
    # of the two stored memories, the one the model is surer of is decided here, the other is asked; the
    # threshold sits between their probabilities (a margin: a pair scored in a padded batch differs from the
    # pair scored alone in the last digits)
    (sure, sure_p), (unsure, unsure_p) = sorted(
        ((m, _top(m, CANDIDATE)) for m in (OTHER, STORED)), key=lambda item: -item[1]
    )
    assert sure_p - unsure_p > 2e-4, "the two pairs must differ in the model's certainty"
    llm = openai_llm(server)
    llm.first_stage = FirstStage(shared_model(), unsure_p + 1e-4)
    server.reply({"judgements": [{"index": 1, "reasoning": "scripted", "relation": "redundancy"}]})
    verdicts = dict(zip((OTHER, STORED), llm.judge(CANDIDATE, [OTHER, STORED]), strict=True))
    assert verdicts[unsure].relation == "redundancy" and verdicts[unsure].reason == "scripted"
    assert (verdicts[sure].reason or "").startswith("decision model (first stage)")
    [request] = server.requests
    user = request["json"]["messages"][1]["content"]
    assert f"1. {unsure}" in user and sure not in user  # only the unsure memory is asked
    assert (llm.first_stage.decided_pairs, llm.first_stage.asked_pairs, llm.first_stage.calls) == (1, 1, 1)


def test_same_fact_is_answered_by_a_confident_model(server: ScriptedChatServer) -> None:
    llm = openai_llm(server)
    llm.first_stage = FirstStage(shared_model(), _top(OTHER, CANDIDATE))
    assert (llm.same_fact(OTHER, CANDIDATE).reason or "").startswith("decision model (first stage)")
    assert server.requests == []


def test_the_setting_puts_the_first_stage_in_front_of_a_model_judge_only() -> None:
    llm = llm_from_settings(Settings(llm="openai", llm_first_stage=0.97, openai_api_key="k"))
    assert isinstance(llm, OpenAILLM) and llm.first_stage is not None and llm.first_stage.confident == 0.97
    assert not hasattr(llm_from_settings(Settings(llm="rules", llm_first_stage=0.97)), "first_stage")
    plain = llm_from_settings(Settings(llm="openai", openai_api_key="k"))
    assert isinstance(plain, OpenAILLM) and plain.first_stage is None
    with pytest.raises((ValidationError, ValueError), match="MEMLANE_LLM_FIRST_STAGE|llm_first_stage"):
        Settings(llm="openai", llm_first_stage=0.2)
