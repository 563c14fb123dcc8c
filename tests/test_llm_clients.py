"""The openai and bedrock LLM clients, the retry policy, the strict schema and the registry.

No hosted model is reachable here, so the fakes sit at the provider boundary only:
- openai: the real ``openai`` SDK talks HTTP to a scripted OpenAI-compatible server on 127.0.0.1
  (tests/scripted_chat_server.py) that replies with canned bodies and records requests.
- bedrock: a real boto3 ``bedrock-runtime`` client whose wire is replaced by ``botocore.stub.Stubber``
  (request shapes are validated against the service model); nothing reaches AWS.
What a real model would answer to the prompts is not tested here.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ReadTimeoutError
from botocore.stub import ANY, Stubber

from memlane.model.candidate import Candidate, ChatMessage, Extraction, SameFact
from memlane.model.config import Settings
from memlane.model.errors import ProviderError, ValidationError
from memlane.providers.llm.bedrock import BedrockLLM
from memlane.providers.llm.openai import OpenAILLM
from memlane.providers.llm.prompts import PROMPT_VERSION
from memlane.providers.llm.registry import get_llm, llm_from_settings
from memlane.providers.llm.structured import strict_json_schema
from tests.scripted_chat_server import ScriptedChatServer, openai_llm

EXTRACTION = {
    "should_create": True,
    "candidates": [
        {
            "summary": "User's sister lives in Paris.",
            "type": "semantic",
            "category": "Relationships",
            "importance": 3,
            "key": "profile:sister:residence:city",
            "tags": ["family"],
            "entities": ["Paris"],
            "pinned": False,
        }
    ],
    "reason": "durable fact about a relative",
}
MESSAGES = [
    ChatMessage(role="assistant", content="Hi! How can I help?"),
    ChatMessage(role="user", content="My sister lives in Paris now.", at=datetime(2025, 3, 1, 9, 30)),
]


# --- openai --------------------------------------------------------------------------------------


def test_openai_extract_sends_strict_json_schema_and_returns_extraction(
    server: ScriptedChatServer,
) -> None:
    server.reply(EXTRACTION)
    result = openai_llm(server).extract(MESSAGES, existing=["User is a software engineer."])

    assert result == Extraction.model_validate(EXTRACTION)
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions"
    body = request["json"]
    assert body["model"] == "test-model"
    assert body["temperature"] == 0
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "Extraction"
    assert fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["schema"] == strict_json_schema(Extraction)
    system, user = body["messages"]
    assert system["role"] == "system" and 'starts with "User"' in system["content"]
    assert "- User is a software engineer." in user["content"]
    assert "[2025-03-01 09:30] user: My sister lives in Paris now." in user["content"]


def test_openai_malformed_then_valid_retries_once_with_a_correction(server: ScriptedChatServer) -> None:
    server.reply("{not json")
    server.reply(EXTRACTION)
    result = openai_llm(server).extract(MESSAGES)

    assert result.should_create and result.candidates[0].summary == "User's sister lives in Paris."
    assert len(server.requests) == 2
    first, second = (r["json"] for r in server.requests)
    assert first["response_format"]["type"] == "json_schema"
    assert second["response_format"] == first["response_format"]
    assert "rejected" not in first["messages"][1]["content"]
    assert "Your previous reply was rejected" in second["messages"][1]["content"]


def test_openai_malformed_twice_raises_provider_error(server: ScriptedChatServer) -> None:
    server.reply({"should_create": "maybe"})  # valid JSON, schema violation
    server.reply("")  # no content at all
    with pytest.raises(ProviderError, match="malformed output twice"):
        openai_llm(server).extract(MESSAGES)
    assert len(server.requests) == 2


def test_openai_timeout_raises_provider_error_quickly(server: ScriptedChatServer) -> None:
    server.reply(EXTRACTION, delay=3.0)
    llm = OpenAILLM(model="test-model", base_url=server.url, api_key="k", timeout=0.3)
    started = time.monotonic()
    with pytest.raises(ProviderError, match="timed out after 0.3s"):
        llm.extract(MESSAGES)
    assert time.monotonic() - started < 2.0
    assert len(server.requests) == 1  # no hidden SDK retries


def test_openai_same_fact_and_classify_conflict(server: ScriptedChatServer) -> None:
    llm = openai_llm(server)
    server.reply({"same_fact": True, "reason": "same pet, new age"})
    verdict = llm.same_fact("User's dog Luna is 3.", "User's dog Luna turned 4.", "Personal")
    assert verdict.same_fact is True
    server.reply({"relation": "contradiction", "reason": "moved"})
    conflict = llm.classify_conflict("User lives in NY.", "User moved to LA.")
    assert conflict.relation == "contradiction"

    same_body, conflict_body = (r["json"] for r in server.requests)
    assert same_body["response_format"]["json_schema"]["name"] == "SameFact"
    same_user = same_body["messages"][1]["content"]
    assert "Category: Personal" in same_user and "existing: 3; candidate: 4" in same_user
    assert conflict_body["response_format"]["json_schema"]["name"] == "ConflictVerdict"
    assert "New: User moved to LA." in conflict_body["messages"][1]["content"]


def test_openai_judge_asks_once_for_every_neighbour_with_reasoning_first(server: ScriptedChatServer) -> None:
    llm = openai_llm(server)
    server.reply(
        {
            "judgements": [
                {"index": 2, "reasoning": "same dog, a later age", "relation": "contradiction"},
                {"index": 1, "reasoning": "the city is another attribute", "relation": "new"},
            ]
        }
    )
    verdicts = llm.judge("Biscuit turned 10.", ["User lives in Ghent.", "User's dog Biscuit is 9 years old."])
    assert [(v.relation, v.reason) for v in verdicts] == [
        ("new", "the city is another attribute"),
        ("contradiction", "same dog, a later age"),
    ]
    [request] = server.requests
    schema = request["json"]["response_format"]["json_schema"]
    assert schema["name"] == "Judgements"
    item = (
        schema["schema"]["$defs"]["Judgement"]["properties"]
        if "$defs" in schema["schema"]
        else schema["schema"]["properties"]["judgements"]["items"]["properties"]
    )
    assert list(item)[:3] == ["index", "reasoning", "relation"]  # the model reasons before its verdict
    user = request["json"]["messages"][1]["content"]
    assert "New: Biscuit turned 10." in user and "2. User's dog Biscuit is 9 years old." in user


def test_openai_judge_reply_that_skips_a_neighbour_is_a_provider_error(server: ScriptedChatServer) -> None:
    server.reply({"judgements": [{"index": 1, "reasoning": "same", "relation": "redundancy"}]})
    with pytest.raises(ProviderError, match=r"covers memories \[1\] of 1..2"):
        openai_llm(server).judge("x", ["a", "b"])
    assert openai_llm(server).judge("x", []) == []  # nothing to judge: no call
    assert len(server.requests) == 1


def test_openai_json_mode_puts_the_schema_in_the_prompt(server: ScriptedChatServer) -> None:
    server.reply({"same_fact": False, "reason": "different people"})
    assert openai_llm(server, json_mode=True).same_fact("a", "b").same_fact is False
    body = server.requests[0]["json"]
    assert body["response_format"] == {"type": "json_object"}
    assert json.dumps(strict_json_schema(SameFact)) in body["messages"][0]["content"]


def test_openai_http_error_is_a_provider_error_with_a_hint(server: ScriptedChatServer) -> None:
    server.reply(None, status=400)
    with pytest.raises(ProviderError, match="HTTP 400.*json_mode=True"):
        openai_llm(server).classify_conflict("a", "b")


def test_openai_long_candidate_is_cut_at_a_sentence_boundary(server: ScriptedChatServer) -> None:
    long = "User's sister lives in Paris. " + "She works as an architect " * 12 + "."
    server.reply({**EXTRACTION, "candidates": [{**EXTRACTION["candidates"][0], "summary": long}]})
    [cand] = openai_llm(server).extract(MESSAGES).candidates
    assert cand.summary == "User's sister lives in Paris."


# --- bedrock -------------------------------------------------------------------------------------


def tool_reply(name: str, payload: dict[str, Any] | None) -> dict[str, Any]:
    content = [{"toolUse": {"toolUseId": "t1", "name": name, "input": payload}}] if payload else []
    return {
        "output": {"message": {"role": "assistant", "content": content or [{"text": "Sure!"}]}},
        "stopReason": "tool_use" if payload else "end_turn",
        "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
        "metrics": {"latencyMs": 12},
    }


@pytest.fixture
def bedrock() -> Iterator[tuple[Any, Stubber]]:
    client = boto3.client(
        "bedrock-runtime", region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s"
    )
    with Stubber(client) as stubber:
        yield client, stubber
        stubber.assert_no_pending_responses()


def test_bedrock_converse_request_shape_and_result(bedrock: tuple[Any, Stubber]) -> None:
    client, stubber = bedrock
    expected = {
        "modelId": "amazon.nova-micro-v1:0",
        "system": ANY,
        "messages": ANY,
        "inferenceConfig": {"temperature": 0, "maxTokens": 1024},
        "toolConfig": {
            "tools": [
                {
                    "toolSpec": {
                        "name": "record_extraction",
                        "description": ANY,
                        "inputSchema": {"json": strict_json_schema(Extraction)},
                    }
                }
            ],
            "toolChoice": {"tool": {"name": "record_extraction"}},
        },
    }
    stubber.add_response("converse", tool_reply("record_extraction", EXTRACTION), expected)
    seen: list[dict[str, Any]] = []
    client.meta.events.register(
        "provide-client-params.bedrock-runtime.Converse", lambda params, **_: seen.append(params)
    )

    result = BedrockLLM(client=client).extract(MESSAGES, existing=[])

    assert result == Extraction.model_validate(EXTRACTION)
    [params] = seen
    assert 'starts with "User"' in params["system"][0]["text"]
    assert params["messages"][0]["role"] == "user"
    assert "Existing memories:\n(none)" in params["messages"][0]["content"][0]["text"]


def test_bedrock_missing_tool_use_then_valid_retries(bedrock: tuple[Any, Stubber]) -> None:
    client, stubber = bedrock
    stubber.add_response("converse", tool_reply("record_samefact", None))
    stubber.add_response("converse", tool_reply("record_samefact", {"same_fact": True, "reason": "x"}))
    assert BedrockLLM(client=client).same_fact("User is 30.", "User is 31.").same_fact is True


def test_bedrock_missing_tool_use_twice_raises(bedrock: tuple[Any, Stubber]) -> None:
    client, stubber = bedrock
    stubber.add_response("converse", tool_reply("record_conflictverdict", None))
    stubber.add_response("converse", tool_reply("record_conflictverdict", {"relation": "sideways"}))
    with pytest.raises(ProviderError, match="malformed output twice for ConflictVerdict"):
        BedrockLLM(client=client).classify_conflict("a", "b")


def test_bedrock_client_error_names_model_and_region(bedrock: tuple[Any, Stubber]) -> None:
    client, stubber = bedrock
    stubber.add_client_error("converse", "ThrottlingException", "slow down", http_status_code=429)
    llm = BedrockLLM(model="amazon.nova-lite-v1:0", region="eu-west-1", client=client)
    with pytest.raises(ProviderError, match=r"'amazon.nova-lite-v1:0' in eu-west-1.*ThrottlingException"):
        llm.classify_conflict("a", "b")


def test_bedrock_timeout_is_a_provider_error_without_sdk_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "k")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s")
    llm = BedrockLLM(timeout=0.5)  # builds its own client with memlane's timeouts and retry config
    sends: list[int] = []

    def time_out(request: Any, **_: Any) -> None:
        sends.append(1)
        raise ReadTimeoutError(endpoint_url=request.url)

    llm._client.meta.events.register("before-send.bedrock-runtime.Converse", time_out)
    with pytest.raises(ProviderError, match="timed out after 0.5s"):
        llm.same_fact("a", "b")
    assert sends == [1]


# --- schema -------------------------------------------------------------------------------------


def test_strict_schema_is_closed_and_self_contained() -> None:
    schema = strict_json_schema(Extraction)
    text = json.dumps(schema)
    assert "$ref" not in text and "$defs" not in text and '"default"' not in text
    candidate = schema["properties"]["candidates"]["items"]
    assert candidate["additionalProperties"] is False
    assert set(candidate["required"]) == set(Candidate.model_fields)
    assert schema["required"] == ["should_create", "candidates", "reason"]
    assert PROMPT_VERSION.startswith("extract.v2+")


# --- registry ---------------------------------------------------------------------------------


def test_unknown_llm_lists_the_names() -> None:
    with pytest.raises(
        ValidationError, match="unknown llm 'gpt'; choose one of bedrock, learned, openai, rules"
    ):
        get_llm("gpt")


def test_rules_llm_is_registered() -> None:
    assert get_llm("rules").name == "rules"


def test_learned_llm_is_registered_and_reads_its_weights_only_when_it_judges(tmp_path: Path) -> None:
    assert get_llm("learned").name == "learned"
    empty = get_llm("learned", weights=str(tmp_path))  # nothing read yet: no error
    with pytest.raises(ProviderError, match="no decision model in .*memlane train decisions"):
        empty.judge("User lives in York.", ["User lives in Leeds."])


@pytest.mark.parametrize(
    ("name", "present", "absent"),
    [("openai", "openai", "boto3"), ("bedrock", "boto3", "openai")],
)
def test_sdk_imported_only_when_chosen(name: str, present: str, absent: str) -> None:
    code = f"""
import sys
from memlane.providers.llm.registry import get_llm
assert {present!r} not in sys.modules and {absent!r} not in sys.modules
llm = get_llm({name!r}, base_url="http://127.0.0.1:9/v1") if {name!r} == "openai" else get_llm({name!r})
assert {present!r} in sys.modules, "not imported"
assert {absent!r} not in sys.modules, "imported although not chosen"
"""
    env = {"PATH": "", "AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr


def test_llm_from_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv("MEMLANE_CONFIG", str(tmp_path / "none.toml"))
    llm = llm_from_settings(
        Settings(llm="openai", llm_model="qwen3", openai_base_url="http://127.0.0.1:9/v1", llm_timeout_s=3)
    )
    assert isinstance(llm, OpenAILLM)
    assert (llm.model, llm.timeout, llm.base_url) == ("qwen3", 3.0, "http://127.0.0.1:9/v1/")

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "k")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s")
    llm = llm_from_settings(
        Settings(llm="bedrock", aws_region="eu-central-1", categories=["Personal", "Other"])
    )
    assert isinstance(llm, BedrockLLM)
    assert (llm.model, llm.region, llm.categories) == (
        "amazon.nova-micro-v1:0",
        "eu-central-1",
        ("Personal", "Other"),
    )
