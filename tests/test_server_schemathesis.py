"""schemathesis against the served OpenAPI document: no 5xx and no schema violations.

A real server on loopback (SQLite, hash embedder, an admin key, the scripted upstream behind the chat
proxy). Every operation but the endless SSE stream (tested in test_server_events.py) gets positive and
negative generated requests checked by schemathesis's default checks. ``MEMLANE_SCHEMATHESIS_EXAMPLES``
(default 60 per operation and mode) sets the size; the run asserts at least 1,000 requests in total.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.config import SchemathesisConfig

from memlane import Memory
from memlane.model.config import Settings
from memlane.providers.embed.hash import HashEmbedder
from tests.scripted_upstream import running_memlane, scripted_upstream

EXAMPLES = int(os.environ.get("MEMLANE_SCHEMATHESIS_EXAMPLES", "60"))
KEY = "schemathesis-admin"
SENT: list[int] = []  # status of every generated request
SESSION = requests.Session()  # keep-alive: the run measures the API, not TCP handshakes


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    location = str(Path(tmp_path_factory.mktemp("st")) / "st.db")
    mem = Memory(location, embedder=HashEmbedder(64), settings=Settings(db=location))
    mem.put("User lives in Lisbon.", user_id="maya", key="profile:residence:city")
    with (
        scripted_upstream() as (_, up_url),
        running_memlane(
            mem, api_keys=[KEY], upstream_base_url=up_url, upstream_model="scripted-model"
        ) as url,
    ):
        yield url
    mem.close()


@pytest.fixture(scope="module")
def api_schema(served: str) -> Any:
    # A body over MEMLANE_MAX_BODY_BYTES is refused with 413 before it is parsed: a rejection too.
    rejected = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429", "5xx"]
    # A procedure's steps are checked for meaning, which a schema cannot say: a step that states what
    # someone does ("I run the tests") instead of an instruction is refused with a 400.
    accepted = ["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]
    config = SchemathesisConfig.from_dict(
        {
            "checks": {"negative_data_rejection": {"expected-statuses": rejected}},
            "operations": [
                {
                    "include-path": "/v1/memory/procedures",
                    "include-method": "POST",
                    "checks": {"positive_data_acceptance": {"expected-statuses": accepted}},
                },
                # a procedure name needs a letter or digit of any script, which a pattern that means
                # the same in JavaScript's regexes cannot say (its \w is ASCII): the schema lets any
                # non-ASCII character through and a name without a letter ("–") is refused with a 400
                {
                    "include-path-regex": "^/v1/memory/procedures/\\{name\\}$",
                    "checks": {"positive_data_acceptance": {"expected-statuses": accepted}},
                },
                # a chat's messages are recorded in time order, which a schema cannot say: one older
                # than the chat's latest session is refused with a 400; nor can it say that a body's
                # thread_id / chat_id and the X-OpenWebUI-Chat-Id header must agree (else a 400)
                {
                    "include-path-regex": "^/v1/memory/(sessions/messages|turns|facts|context)$",
                    "include-method": "POST",
                    "checks": {"positive_data_acceptance": {"expected-statuses": accepted}},
                },
            ],
        }
    )
    return schemathesis.openapi.from_url(f"{served}/openapi.json", config=config)


schema = schemathesis.pytest.from_fixture("api_schema").exclude(path="/v1/memory/events")


@schema.auth()
class AdminKey:
    """The admin key, set by schemathesis (so its own no-auth cases know they have none)."""

    def get(self, case: Any, ctx: Any) -> str:
        return KEY

    def set(self, case: Any, data: str, ctx: Any) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
def test_openapi_conformance(case: Any) -> None:
    headers = {}
    if not {k.lower() for k in (case.headers or {})} & {"x-memlane-user", "x-openwebui-user-id"}:
        headers["X-Memlane-User"] = "maya"  # the optional user header an admin key needs
    response = case.call_and_validate(headers=headers, session=SESSION, timeout=30)
    SENT.append(response.status_code)


def test_no_server_errors_over_at_least_1000_requests(served: str) -> None:
    if not SENT:
        pytest.skip("counts the requests of the conformance test above, which was not selected in this run")
    metrics = httpx.get(f"{served}/metrics", headers={"Authorization": f"Bearer {KEY}"}).text
    server_errors = re.findall(
        r'memlane_http_request_duration_seconds_count\{[^}]*status="5\d\d"[^}]*\} (\S+)', metrics
    )
    print(f"schemathesis: {len(SENT)} requests, statuses {sorted(set(SENT))}")
    assert len(SENT) >= 1000, f"only {len(SENT)} generated requests"
    assert not [s for s in SENT if s >= 500] and not server_errors
