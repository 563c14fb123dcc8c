"""Any OpenAI-compatible chat completions endpoint (OpenAI, Ollama, vLLM, Mistral, ...).

Uses structured outputs (``response_format`` ``json_schema``, strict). Servers that reject it take
``json_mode=True``: ``{"type": "json_object"}`` with the schema written into the system prompt.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import openai
from pydantic import BaseModel

from memlane.model.category import DEFAULT_CATEGORIES
from memlane.model.errors import ProviderError
from memlane.providers.llm.prompts import SCHEMA_HINT_V1
from memlane.providers.llm.structured import (
    MAX_CANDIDATE_CHARS,
    MalformedOutputError,
    StructuredLLM,
    strict_json_schema,
)


class OpenAILLM(StructuredLLM):
    name = "openai"
    remote = True

    def __init__(
        self,
        model: str = "gpt-4o-mini",
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 20.0,
        client: openai.OpenAI | None = None,
        *,
        json_mode: bool = False,
        max_retries: int = 0,
        categories: Sequence[str] = DEFAULT_CATEGORIES,
        max_chars: int = MAX_CANDIDATE_CHARS,
    ) -> None:
        super().__init__(categories=categories, max_chars=max_chars)
        self.model = model
        self.timeout = timeout
        self.json_mode = json_mode
        # Local servers (Ollama, vLLM) need no key, but the SDK insists on one.
        if client is None and api_key is None and base_url is not None:
            api_key = "unused"
        try:
            # SDK retries are off by default: a failed turn is retried as a job, with backoff.
            self._client = client or openai.OpenAI(
                base_url=base_url, api_key=api_key, timeout=timeout, max_retries=max_retries
            )
        except openai.OpenAIError as exc:
            raise ProviderError(f"cannot create the OpenAI client: {exc}") from exc
        self.base_url = str(self._client.base_url)

    def _complete(self, system: str, user: str, schema: type[BaseModel]) -> str:
        json_schema = strict_json_schema(schema)
        response_format: Any
        if self.json_mode:
            system += SCHEMA_HINT_V1.system.format(schema=json.dumps(json_schema))
            response_format = {"type": "json_object"}
        else:
            response_format = {
                "type": "json_schema",
                "json_schema": {"name": schema.__name__, "schema": json_schema, "strict": True},
            }
        where = f"{self.name} model {self.model!r} at {self.base_url}"
        try:
            response = self._client.chat.completions.create(
                model=self.model,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                response_format=response_format,
                temperature=0,
                timeout=self.timeout,
            )
        except openai.APITimeoutError as exc:
            raise ProviderError(f"{where} timed out after {self.timeout:g}s") from exc
        except openai.APIStatusError as exc:
            hint = (
                ""
                if self.json_mode or exc.status_code != 400
                else " (if the server rejects json_schema, set json_mode=True)"
            )
            raise ProviderError(f"{where} answered HTTP {exc.status_code}: {exc.message}{hint}") from exc
        except openai.APIError as exc:
            raise ProviderError(f"{where} failed: {exc}") from exc
        if not response.choices:
            raise MalformedOutputError("the reply has no choices")
        choice = response.choices[0]
        if choice.message.refusal:
            raise MalformedOutputError(f"the model refused: {choice.message.refusal}")
        if choice.finish_reason == "length":
            raise MalformedOutputError("the reply was cut off at the token limit")
        if not choice.message.content:
            raise MalformedOutputError("the reply has no content")
        return choice.message.content
