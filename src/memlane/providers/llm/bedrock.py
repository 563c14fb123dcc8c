"""Amazon Bedrock through the Converse API (default: Nova Micro, a small, cheap model).

The schema goes in as the input schema of a single tool that the model is forced to call; the
tool's ``input`` is the answer. A reply without that tool use counts as malformed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, ConnectTimeoutError, ReadTimeoutError
from pydantic import BaseModel

from memlane.model.category import DEFAULT_CATEGORIES
from memlane.model.errors import ProviderError
from memlane.providers.llm.structured import (
    MAX_CANDIDATE_CHARS,
    MalformedOutputError,
    StructuredLLM,
    strict_json_schema,
)


def tool_name(schema: type[BaseModel]) -> str:
    return f"record_{schema.__name__.lower()}"


class BedrockLLM(StructuredLLM):
    name = "bedrock"
    remote = True

    def __init__(
        self,
        model: str = "amazon.nova-micro-v1:0",
        region: str = "us-east-1",
        timeout: float = 20.0,
        client: Any = None,
        *,
        max_tokens: int = 1024,
        categories: Sequence[str] = DEFAULT_CATEGORIES,
        max_chars: int = MAX_CANDIDATE_CHARS,
    ) -> None:
        super().__init__(categories=categories, max_chars=max_chars)
        self.model = model
        self.region = region
        self.timeout = timeout
        self.max_tokens = max_tokens
        # One attempt per call: a failed turn is retried as a job, with backoff.
        config = Config(connect_timeout=timeout, read_timeout=timeout, retries={"total_max_attempts": 1})
        self._client = client or boto3.client("bedrock-runtime", region_name=region, config=config)

    def _complete(self, system: str, user: str, schema: type[BaseModel]) -> str:
        name = tool_name(schema)
        where = f"{self.name} model {self.model!r} in {self.region}"
        try:
            response = self._client.converse(
                modelId=self.model,
                system=[{"text": system}],
                messages=[{"role": "user", "content": [{"text": user}]}],
                inferenceConfig={"temperature": 0, "maxTokens": self.max_tokens},
                toolConfig={
                    "tools": [
                        {
                            "toolSpec": {
                                "name": name,
                                "description": f"Record the answer as a {schema.__name__} object.",
                                "inputSchema": {"json": strict_json_schema(schema)},
                            }
                        }
                    ],
                    "toolChoice": {"tool": {"name": name}},
                },
            )
        except (ReadTimeoutError, ConnectTimeoutError) as exc:
            raise ProviderError(f"{where} timed out after {self.timeout:g}s") from exc
        except ClientError as exc:
            err = exc.response.get("Error", {})
            raise ProviderError(f"{where} failed: {err.get('Code')}: {err.get('Message')}") from exc
        except BotoCoreError as exc:
            raise ProviderError(f"{where} failed: {exc}") from exc
        for block in response.get("output", {}).get("message", {}).get("content", []):
            use = block.get("toolUse")
            if use and use.get("name") == name:
                return json.dumps(use.get("input"))
        raise MalformedOutputError(
            f"the reply has no {name} tool use (stopReason {response.get('stopReason')!r})"
        )
