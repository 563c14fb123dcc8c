"""Configuration: environment variables, then a TOML config file, then defaults.

Tuning knobs have plain names (``SEMANTIC_AUTO_UPDATE``, ``MEMORY_NEIGHBORS_K``, ...); the
service's own settings start with ``MEMLANE_``. The config file is ``$MEMLANE_CONFIG`` or
``~/.memlane/config.toml`` and uses the same names in lower case. A name memlane does not know is an
error (``config_check.py``); every knob is described in ``docs/configuration.md``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, ValidationInfo, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from memlane.model.api_keys import check_api_keys
from memlane.model.candidate import MAX_CANDIDATES
from memlane.model.category import DEFAULT_CATEGORIES
from memlane.model.category_bands import Triple, parse_category_bands
from memlane.model.config_check import check_environment, check_keys, setting_names
from memlane.model.consent import BENIGN_FIELDS, SENSITIVE_FIELDS, ConsentPolicy, check_fields
from memlane.model.search_presets import DEFAULT_PRESET, PRESETS, unknown_preset

DEFAULT_HOME = Path("~/.memlane").expanduser()
TASKS = (
    "ttl",
    "purge",
    "consolidate",
    "insights",
    "consent",
    "sessions",
)  # the periodic tasks a worker can run (memlane.lifecycle)


def _alias(*names: str) -> AliasChoices:
    return AliasChoices(*names, *(n.lower() for n in names))


def _config_file() -> Path:
    return Path(os.environ.get("MEMLANE_CONFIG", str(DEFAULT_HOME / "config.toml"))).expanduser()


class Settings(BaseSettings):
    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True, case_sensitive=False)

    # --- where and with what -------------------------------------------------------------
    db: str = Field(str(DEFAULT_HOME / "memlane.db"), validation_alias=_alias("MEMLANE_DB"))
    # SQLite overwrites deleted content with zeros (a purge leaves no text in free pages; docs/lifecycle.md)
    sqlite_secure_delete: bool = Field(True, validation_alias=_alias("MEMLANE_SQLITE_SECURE_DELETE"))
    # PostgreSQL's pgvector: "auto" uses it where the server has it (keyword search only where it has
    # not); "off" runs as if the server had none (docs/postgres.md)
    pg_vector: Literal["auto", "off"] = Field("auto", validation_alias=_alias("MEMLANE_PG_VECTOR"))
    embedder: str = Field("local", validation_alias=_alias("MEMLANE_EMBEDDER", "VECTOR_EMBEDDING_PROVIDER"))
    embed_model: str | None = Field(
        None, validation_alias=_alias("MEMLANE_EMBED_MODEL", "VECTOR_EMBEDDING_MODEL")
    )
    embed_dims: int | None = Field(None, validation_alias=_alias("MEMLANE_EMBED_DIMS"))
    embed_batch_size: int = Field(64, validation_alias=_alias("MEMLANE_EMBED_BATCH_SIZE"))
    embed_cache_size: int = Field(10_000, validation_alias=_alias("MEMLANE_EMBED_CACHE_SIZE"))
    # a remote embedder's request timeout (openai, mistral, bedrock); texts cut to this many characters
    # before any embedder sees them (None: the embedder's own limit)
    embed_timeout_s: float = Field(
        30.0, gt=0, le=600, validation_alias=_alias("MEMLANE_EMBED_TIMEOUT_S", "VECTOR_EMBEDDING_TIMEOUT_S")
    )
    embed_max_input_chars: int | None = Field(
        None,
        ge=16,
        le=1_000_000,
        validation_alias=_alias("MEMLANE_EMBED_MAX_INPUT_CHARS", "VECTOR_EMBEDDING_MAX_INPUT_CHARS"),
    )
    # CPU threads of the local model; None: OMP_NUM_THREADS if set, else half the cores, at least 1
    # (providers/embed/local.py; docs/benchmarks.md has the measured effect).
    torch_threads: int | None = Field(None, ge=1, le=256, validation_alias=_alias("MEMLANE_TORCH_THREADS"))
    openai_base_url: str | None = Field(
        None, validation_alias=_alias("MEMLANE_OPENAI_BASE_URL", "OPENAI_BASE_URL")
    )
    openai_api_key: str | None = Field(
        None, validation_alias=_alias("MEMLANE_OPENAI_API_KEY", "OPENAI_API_KEY")
    )
    aws_region: str = Field("us-east-1", validation_alias=_alias("AWS_REGION"))
    bedrock_embed_model_id: str = Field(
        "amazon.titan-embed-text-v2:0", validation_alias=_alias("BEDROCK_EMBED_MODEL_ID")
    )
    # Where the vectors are searched: "local" (the database's own index) or "s3vectors" (an S3 Vectors
    # index in S3V_BUCKET / S3V_INDEX_VECTORS; the database keeps the records; docs/s3vectors.md)
    vectors: Literal["local", "s3vectors"] = Field("local", validation_alias=_alias("MEMLANE_VECTORS"))
    # Amazon S3 Vectors: the LangGraph S3VectorsStore (integrations/langgraph/s3v_factory.py)
    # and the vector channel (storage/s3vectors/channel.py)
    s3v_bucket: str | None = Field(None, validation_alias=_alias("S3V_BUCKET"))
    s3v_index_memory: str = Field("memory-search", validation_alias=_alias("S3V_INDEX_MEMORY"))
    s3v_index_vectors: str = Field("memlane-vectors", validation_alias=_alias("S3V_INDEX_VECTORS"))
    s3v_distance: str = Field("cosine", validation_alias=_alias("S3V_DISTANCE"))
    s3v_timeout_s: float = Field(10.0, gt=0, validation_alias=_alias("S3V_TIMEOUT_S"))
    s3v_max_attempts: int = Field(3, ge=1, validation_alias=_alias("S3V_MAX_ATTEMPTS"))
    llm: str = Field("rules", validation_alias=_alias("MEMLANE_LLM"))
    llm_model: str | None = Field(None, validation_alias=_alias("MEMLANE_LLM_MODEL"))
    # the learned provider's decision model: a folder with decision.safetensors and decision.json
    # (``memlane train decisions --out``); None: the weights shipped in the package
    decision_model_dir: str | None = Field(None, validation_alias=_alias("MEMLANE_DECISION_MODEL_DIR"))
    # openai / bedrock: the decision model answers a pair first when its verdict is at least this probable,
    # and the LLM judges only the rest (providers/llm/first_stage.py); None: the LLM judges every pair
    llm_first_stage: float | None = Field(
        None, ge=0.5, le=1.0, validation_alias=_alias("MEMLANE_LLM_FIRST_STAGE")
    )
    memory_tiny_llm_model_id: str = Field(
        "amazon.nova-micro-v1:0", validation_alias=_alias("MEMORY_TINY_LLM_MODEL_ID")
    )
    llm_timeout_s: float = Field(20.0, validation_alias=_alias("MEMLANE_LLM_TIMEOUT_S"))
    timezone: str = Field("UTC", validation_alias=_alias("MEMLANE_TIMEZONE"))
    categories: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: list(DEFAULT_CATEGORIES), validation_alias=_alias("MEMLANE_CATEGORIES")
    )
    categories_file: str | None = Field(None, validation_alias=_alias("MEMLANE_CATEGORIES_FILE"))

    # --- formation: extraction, decision bands, write caps ---------------------------------------
    # None means "the embedder's measured default" (see providers/embed/bands.py).
    semantic_auto_update: float | None = Field(
        None, validation_alias=_alias("SEMANTIC_AUTO_UPDATE", "MEMORY_SEM_AUTO")
    )
    semantic_check_low: float | None = Field(
        None, validation_alias=_alias("SEMANTIC_CHECK_LOW", "MEMORY_SEM_LOW")
    )
    episodic_auto_update: float | None = Field(None, validation_alias=_alias("EPISODIC_AUTO_UPDATE"))
    episodic_check_low: float | None = Field(None, validation_alias=_alias("EPISODIC_CHECK_LOW"))
    # A category's own auto,low,floor for its semantic or episodic memories, over the embedder's bands
    # ("Health:0.85,0.70,0.45;Travel.episodic:0.90,0.85,0.60"; model/category_bands.py).
    memory_bands_by_category: Annotated[dict[str, Triple], NoDecode] = Field(
        default_factory=dict, validation_alias=_alias("MEMORY_BANDS_BY_CATEGORY")
    )
    episodic_merge_window_hours: float = Field(72, validation_alias=_alias("EPISODIC_MERGE_WINDOW_HOURS"))
    memory_neighbors_k: int = Field(10, validation_alias=_alias("MEMORY_NEIGHBORS_K"))
    # Caps on formation's writes per user (candidate jobs), each reported when it bites.
    memory_write_rate_limit_per_hour: int = Field(
        20, ge=0, validation_alias=_alias("MEMORY_WRITE_RATE_LIMIT_PER_HOUR")
    )
    memory_write_rate_limit_per_day: int = Field(
        200, ge=0, validation_alias=_alias("MEMORY_WRITE_RATE_LIMIT_PER_DAY")
    )
    # as many as an extractor proposes (5): a turn's facts are not dropped by default; a lower cap is reported
    memory_max_writes_per_turn: int = Field(5, ge=0, validation_alias=_alias("MEMORY_MAX_WRITES_PER_TURN"))
    # the proposals considered at all, in the extractor's order, before the episodic guard and the write caps
    memory_max_candidates_per_turn: int = Field(
        MAX_CANDIDATES, ge=1, le=MAX_CANDIDATES, validation_alias=_alias("MEMORY_MAX_CANDIDATES_PER_TURN")
    )
    memory_enable_entity_heuristics: bool = Field(
        True, validation_alias=_alias("MEMORY_ENABLE_ENTITY_HEURISTICS")
    )
    memory_link_min: float | None = Field(None, validation_alias=_alias("MEMORY_LINK_MIN"))
    # The episodic guard (formation/episodic_guard.py): cooldown since the last episode (over once
    # either many turns or minutes have passed; 0 turns it off), a daily quota, novelty vs the last
    # EPISODIC_WINDOW_N episodes (also the extractor's message window).
    episodic_cooldown_turns: int = Field(3, ge=0, validation_alias=_alias("EPISODIC_COOLDOWN_TURNS"))
    episodic_cooldown_minutes: float = Field(10, ge=0, validation_alias=_alias("EPISODIC_COOLDOWN_MINUTES"))
    episodic_max_per_day: int = Field(5, ge=0, validation_alias=_alias("EPISODIC_MAX_PER_DAY"))
    episodic_novelty_min: float = Field(0.15, ge=0, le=1, validation_alias=_alias("EPISODIC_NOVELTY_MIN"))
    episodic_window_n: int = Field(10, ge=1, validation_alias=_alias("EPISODIC_WINDOW_N"))
    # Seed 002: the hot path writes semantic memories only; episodes come from the post-turn capture
    # (Memory.capture_turn). Off: the hot path proposes episodes from the user's words, as before.
    episodic_capture: bool = Field(True, validation_alias=_alias("EPISODIC_CAPTURE"))
    job_max_attempts: int = Field(5, validation_alias=_alias("MEMLANE_JOB_MAX_ATTEMPTS"))
    # A job failing because a provider is unavailable (an LLM outage) is retried with backoff until it is
    # this old, however many attempts that takes; then parked for a person (formation/retry.py).
    job_retry_hours: float = Field(24.0, ge=0, validation_alias=_alias("MEMLANE_JOB_RETRY_HOURS"))
    job_backoff_max_s: float = Field(300.0, gt=0, validation_alias=_alias("MEMLANE_JOB_BACKOFF_MAX_S"))
    # How long a call with wait=true waits for formation before it answers that formation is pending.
    wait_timeout_s: float = Field(30.0, gt=0, validation_alias=_alias("MEMLANE_WAIT_TIMEOUT_S"))

    # --- retrieval: search, rerank, context block -----------------------------------------------
    # The named preset calls use when they name none (model/search_presets.py; docs/configuration.md).
    search_preset: str = Field(DEFAULT_PRESET, validation_alias=_alias("MEMLANE_SEARCH_PRESET"))
    memory_context_topk: int = Field(24, validation_alias=_alias("MEMORY_CONTEXT_TOPK"))
    memory_context_topn: int = Field(5, validation_alias=_alias("MEMORY_CONTEXT_TOPN"))
    memory_rerank_weights: Annotated[dict[str, float], NoDecode] = Field(
        default_factory=lambda: {"similarity": 0.55, "importance": 0.20, "recency": 0.15, "pinned": 0.50},
        validation_alias=_alias("MEMORY_RERANK_WEIGHTS"),
    )
    # A pin counts in a search when the pinned memory's relevance (cosine plus keyword evidence) is within
    # this margin of the best candidate's (measured for all-MiniLM-L6-v2: docs/benchmarks.md).
    memory_pin_margin: float = Field(0.15, ge=0, validation_alias=_alias("MEMORY_PIN_MARGIN"))
    # Inferred insights rank low: their final score is multiplied by this.
    memory_insight_weight: float = Field(0.5, ge=0, le=1, validation_alias=_alias("MEMORY_INSIGHT_WEIGHT"))
    memory_relation_weight: float = Field(0.05, validation_alias=_alias("MEMORY_RELATION_WEIGHT"))
    memory_recency_half_life_days: float = Field(
        30.0, validation_alias=_alias("MEMORY_RECENCY_HALF_LIFE_DAYS")
    )
    memory_decay_enabled: bool = Field(False, validation_alias=_alias("MEMORY_DECAY_ENABLED"))
    memory_decay_half_life_days: float = Field(180.0, validation_alias=_alias("MEMORY_DECAY_HALF_LIFE_DAYS"))
    memory_score_threshold: float = Field(0.0, validation_alias=_alias("MEMORY_SCORE_THRESHOLD"))
    memory_context_budget_tokens: int = Field(400, validation_alias=_alias("MEMORY_CONTEXT_BUDGET_TOKENS"))
    # The block's recent episodic memories: at most 3, and up to this many for a recall-intent question
    # ("what did we talk about last week?"), within the budget the semantic part leaves.
    memory_context_recall_episodic: int = Field(
        8, ge=3, le=24, validation_alias=_alias("MEMORY_CONTEXT_RECALL_EPISODIC")
    )
    # The context block (and so the chat proxy) leaves out a retrieved memory whose relevance (cosine
    # plus keyword evidence) is under this; pinned memories and context-mode `all` categories stay.
    # None: the embedder's measured default (retrieval/context.py); 0: off.
    memory_context_min_relevance: float | None = Field(
        None, validation_alias=_alias("MEMORY_CONTEXT_MIN_RELEVANCE")
    )
    # Up to two memories linked to a shown one, as indented "related:" bullets (retrieval/related.py).
    memory_context_related: bool = Field(True, validation_alias=_alias("MEMORY_CONTEXT_RELATED"))
    memory_embedding_header: bool = Field(False, validation_alias=_alias("MEMORY_EMBEDDING_HEADER"))
    # Hybrid search and rerank: the keyword share is in cosine units per standard deviation
    # of the keyword score; relation weights by relation type (others use memory_relation_weight).
    memory_embedding_header_fields: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["context", "speaker"],
        validation_alias=_alias("MEMORY_EMBEDDING_HEADER_FIELDS"),
    )
    memory_keyword_weight: float = Field(0.08, validation_alias=_alias("MEMORY_KEYWORD_WEIGHT"))
    memory_relation_type_weights: Annotated[dict[str, float], NoDecode] = Field(
        default_factory=lambda: {"follows": 0.22}, validation_alias=_alias("MEMORY_RELATION_TYPE_WEIGHTS")
    )
    memory_thread_weight: float = Field(0.165, validation_alias=_alias("MEMORY_THREAD_WEIGHT"))
    # A short message stored with its context loses up to the weight, linearly below the word count.
    memory_brevity_weight: float = Field(0.15, validation_alias=_alias("MEMORY_BREVITY_WEIGHT"))
    memory_brevity_words: int = Field(48, validation_alias=_alias("MEMORY_BREVITY_WORDS"))
    # A memory about someone other than whom the question asks about loses this (retrieval/subject.py).
    memory_subject_penalty: float = Field(0.25, ge=0, validation_alias=_alias("MEMORY_SUBJECT_PENALTY"))
    # A memory holding no answer of the kind a question asks for (a job, a home, an age) loses this
    # (retrieval/answer_kind.py).
    memory_answer_kind_penalty: float = Field(
        0.2, ge=0, validation_alias=_alias("MEMORY_ANSWER_KIND_PENALTY")
    )
    memory_time_phrases: bool = Field(True, validation_alias=_alias("MEMORY_TIME_PHRASES"))
    memory_time_phrase_mode: str = Field("boost", validation_alias=_alias("MEMORY_TIME_PHRASE_MODE"))
    memory_time_phrase_weight: float = Field(0.5, validation_alias=_alias("MEMORY_TIME_PHRASE_WEIGHT"))
    memory_recall_recency_factor: float = Field(2.0, validation_alias=_alias("MEMORY_RECALL_RECENCY_FACTOR"))
    # A question asking what to be careful about (retrieval/intent.py CAUTION) multiplies the importance weight.
    memory_caution_importance_factor: float = Field(
        3.0, ge=1, validation_alias=_alias("MEMORY_CAUTION_IMPORTANCE_FACTOR")
    )
    memory_history_recency_factor: float = Field(
        1 / 3, validation_alias=_alias("MEMORY_HISTORY_RECENCY_FACTOR")
    )
    context_session_memory_enabled: bool = Field(
        True, validation_alias=_alias("CONTEXT_SESSION_MEMORY_ENABLED")
    )
    context_session_max_retrieved: int = Field(3, validation_alias=_alias("CONTEXT_SESSION_MAX_RETRIEVED"))
    # Recorded group-chat messages the context block shows at most (message-level recall).
    context_session_max_messages: int = Field(
        4, ge=0, validation_alias=_alias("CONTEXT_SESSION_MAX_MESSAGES")
    )
    # Group chats: a silence longer than this closes a chat's session and opens a new one.
    context_session_gap_minutes: float = Field(
        30, gt=0, validation_alias=_alias("CONTEXT_SESSION_GAP_MINUTES")
    )
    # The sessions task summarises closed sessions of at least this many messages; a new version
    # re-summarises those summarised under an older one.
    context_session_min_messages: int = Field(
        4, ge=1, validation_alias=_alias("CONTEXT_SESSION_MIN_MESSAGES")
    )
    context_session_summary_version: int = Field(
        1, ge=1, validation_alias=_alias("CONTEXT_SESSION_SUMMARY_VERSION")
    )
    context_session_summarization_enabled: bool = Field(
        True, validation_alias=_alias("CONTEXT_SESSION_SUMMARIZATION_ENABLED")
    )
    # The model of session summaries, with the configured provider (MEMLANE_LLM); None: MEMLANE_LLM_MODEL's.
    context_session_summary_model: str | None = Field(
        None, min_length=1, validation_alias=_alias("CONTEXT_SESSION_SUMMARY_MODEL")
    )
    # The chat proxy records a named chat's new user messages and the answer (docs/sessions.md).
    context_session_proxy_recording_enabled: bool = Field(
        True, validation_alias=_alias("CONTEXT_SESSION_PROXY_RECORDING_ENABLED")
    )

    # --- lifecycle (expiry of unimportant memories, purge of deleted ones) and limits -------------
    memory_ttl_days: float = Field(60, validation_alias=_alias("MEMORY_TTL_DAYS"))
    memory_ttl_importance_below: int = Field(3, validation_alias=_alias("MEMORY_TTL_IMPORTANCE_BELOW"))
    memory_purge_after_days: float = Field(30, validation_alias=_alias("MEMORY_PURGE_AFTER_DAYS"))
    # Global memories are linked to a user with fewer than this many personal (own, active) memories
    # when they read; 0 = never. Links made stay when the user has more memories.
    memory_global_bootstrap_below: int = Field(
        5, ge=0, validation_alias=_alias("MEMORY_GLOBAL_BOOTSTRAP_BELOW")
    )
    # Daily consolidation, per user and run: pairs judged at most, and the judge's token budget.
    memory_consolidation_max_pairs: int = Field(
        50, ge=0, validation_alias=_alias("MEMORY_CONSOLIDATION_MAX_PAIRS")
    )
    memory_consolidation_token_budget: int = Field(
        20_000, ge=0, validation_alias=_alias("MEMORY_CONSOLIDATION_TOKEN_BUDGET")
    )
    # Run background work (formation jobs; periodic tasks in `memlane serve`) in this process; off when
    # a separate `memlane worker` process runs it.
    worker: bool = Field(True, validation_alias=_alias("MEMLANE_WORKER"))
    # The periodic tasks a worker runs and every how many hours, per user ("ttl=24,purge=24"; 0 = off).
    memlane_schedule: Annotated[dict[str, float], NoDecode] = Field(
        default_factory=lambda: {
            "ttl": 24.0,
            "purge": 24.0,
            "consolidate": 24.0,
            "insights": 24.0,
            "consent": 24.0,
            "sessions": 1.0,
        },
        validation_alias=_alias("MEMLANE_SCHEDULE"),
    )
    # Consent (docs/consent.md): formation's changes to these fields wait as proposals
    # (sensitive: for a decision; benign: for MEMORY_CONSENT_SIGNALS statements); empty lists turn it off.
    memory_consent_fields: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: list(SENSITIVE_FIELDS), validation_alias=_alias("MEMORY_CONSENT_FIELDS")
    )
    memory_consent_benign_fields: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: list(BENIGN_FIELDS), validation_alias=_alias("MEMORY_CONSENT_BENIGN_FIELDS")
    )
    memory_consent_ttl_days: float = Field(7, gt=0, validation_alias=_alias("MEMORY_CONSENT_TTL_DAYS"))
    memory_consent_signals: int = Field(2, ge=1, validation_alias=_alias("MEMORY_CONSENT_SIGNALS"))
    memory_summary_max_chars: int = Field(2000, validation_alias=_alias("MEMORY_SUMMARY_MAX_CHARS"))
    memory_candidate_max_chars: int = Field(280, validation_alias=_alias("MEMORY_CANDIDATE_MAX_CHARS"))
    memory_metadata_max_bytes: int = Field(65_536, ge=2, validation_alias=_alias("MEMORY_METADATA_MAX_BYTES"))

    # --- HTTP server, `memlane serve` ------------------------------------------------------------
    server_host: str = Field("127.0.0.1", validation_alias=_alias("MEMLANE_HOST"))
    server_port: int = Field(8765, ge=0, le=65535, validation_alias=_alias("MEMLANE_PORT"))
    # Bearer keys, comma-separated in the environment. "KEY" is an admin key (acts for the user named
    # by the X-Memlane-User or X-OpenWebUI-User-Id header); "KEY:USER" acts for USER only.
    api_keys: Annotated[list[str], NoDecode] = Field(
        default_factory=list, validation_alias=_alias("MEMLANE_API_KEYS")
    )
    upstream_base_url: str | None = Field(None, validation_alias=_alias("MEMLANE_UPSTREAM_BASE_URL"))
    upstream_api_key: str | None = Field(None, validation_alias=_alias("MEMLANE_UPSTREAM_API_KEY"))
    upstream_model: str | None = Field(None, validation_alias=_alias("MEMLANE_UPSTREAM_MODEL"))
    upstream_timeout_s: float = Field(120.0, gt=0, validation_alias=_alias("MEMLANE_UPSTREAM_TIMEOUT_S"))
    # Open WebUI's FORWARD_USER_INFO_HEADER_JWT_SECRET: the chat proxy verifies the X-OpenWebUI-User-Jwt header
    # with it and acts for the token's user (server/owui_jwt.py).
    openwebui_jwt_secret: str | None = Field(
        None,
        min_length=1,
        validation_alias=_alias("MEMLANE_OPENWEBUI_JWT_SECRET", "FORWARD_USER_INFO_HEADER_JWT_SECRET"),
    )
    # Requests with a larger body are refused (413) before they are read or parsed.
    server_max_body_bytes: int = Field(1_048_576, ge=1024, validation_alias=_alias("MEMLANE_MAX_BODY_BYTES"))
    # /metrics names the users with the most active memories, this many at most (0: none). Off by
    # default: metric labels carry no user ids unless the operator asks (server/metrics_totals.py).
    metrics_top_users: int = Field(0, ge=0, le=100, validation_alias=_alias("MEMLANE_METRICS_TOP_USERS"))

    @field_validator("context_session_summary_model")
    @classmethod
    def _summary_model_needs_a_provider(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and str(info.data.get("llm", "")).strip().lower() in ("rules", "learned"):
            raise ValueError(
                "CONTEXT_SESSION_SUMMARY_MODEL names a model of the configured provider; "
                "set MEMLANE_LLM=openai or bedrock (the offline rules digest has no model)"
            )
        return value

    @field_validator("memory_bands_by_category", mode="before")
    @classmethod
    def _category_bands(cls, value: Any, info: ValidationInfo) -> Any:
        return parse_category_bands(value, info.data.get("categories", DEFAULT_CATEGORIES))

    @field_validator("memory_context_min_relevance")
    @classmethod
    def _min_relevance(cls, value: float | None) -> float | None:
        if value is not None and not 0.0 <= value <= 1.0:
            raise ValueError(
                f"MEMORY_CONTEXT_MIN_RELEVANCE must be a relevance from 0 to 1 (0: no cutoff; unset: the "
                f"embedder's measured default), got {value!r}"
            )
        return value

    @field_validator("search_preset")
    @classmethod
    def _preset_known(cls, value: str) -> str:
        if value not in PRESETS:
            raise ValueError(unknown_preset(value))
        return value

    @field_validator("api_keys", mode="before")
    @classmethod
    def _api_keys(cls, value: Any) -> Any:
        """``"k1,k2:maya"`` or a JSON list, from the environment; a list from the config file."""
        if isinstance(value, str):
            text = value.strip()
            return (
                json.loads(text)
                if text.startswith("[")
                else [k.strip() for k in text.split(",") if k.strip()]
            )
        return value

    @field_validator("api_keys")
    @classmethod
    def _api_keys_valid(cls, value: list[str]) -> list[str]:
        check_api_keys(value)
        return value

    @field_validator("memory_rerank_weights", mode="before")
    @classmethod
    def _weights(cls, value: Any) -> Any:
        """Accept ``"0.55,0.2,0.15,0.1"`` (similarity, importance, recency, pinned) as well as a dict."""
        if isinstance(value, str) and value.strip().startswith("{"):
            return json.loads(value)
        if isinstance(value, str):
            names = ("similarity", "importance", "recency", "pinned")
            parts = [float(p) for p in value.split(",")]
            if len(parts) != len(names):
                raise ValueError(
                    "MEMORY_RERANK_WEIGHTS needs 4 numbers: similarity,importance,recency,pinned"
                )
            return dict(zip(names, parts, strict=True))
        return value

    @field_validator("memory_embedding_header_fields", mode="before")
    @classmethod
    def _header_fields(cls, value: Any) -> Any:
        return [f.strip().lower() for f in value.split(",") if f.strip()] if isinstance(value, str) else value

    @field_validator("memory_relation_type_weights", "memlane_schedule", mode="before")
    @classmethod
    def _named_numbers(cls, value: Any) -> Any:
        """``"follows=0.22,related_to=0.05"`` or ``"ttl=24,purge=6"`` (hours), or JSON."""
        if isinstance(value, str):
            if value.strip().startswith("{"):
                return json.loads(value)
            return {k.strip(): float(v) for k, v in (p.split("=", 1) for p in value.split(",") if p.strip())}
        return value

    @field_validator("memlane_schedule")
    @classmethod
    def _schedule_valid(cls, value: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(value) - set(TASKS))
        if unknown:
            raise ValueError(
                f"MEMLANE_SCHEDULE: unknown task(s) {', '.join(unknown)}; known: {', '.join(TASKS)}"
            )
        if any(h < 0 for h in value.values()):
            raise ValueError("MEMLANE_SCHEDULE: hours must be >= 0 (0 turns a task off)")
        return value

    @field_validator("memory_consent_fields", "memory_consent_benign_fields", mode="before")
    @classmethod
    def _consent_lists(cls, value: Any) -> Any:
        """``"city,pronouns"`` (empty: none) or a list."""
        if isinstance(value, str):
            return [f.strip() for f in value.split(",") if f.strip()]
        return value

    @field_validator("memory_consent_fields")
    @classmethod
    def _consent_fields_valid(cls, value: list[str]) -> list[str]:
        return check_fields(value, "MEMORY_CONSENT_FIELDS")

    @field_validator("memory_consent_benign_fields")
    @classmethod
    def _benign_fields_valid(cls, value: list[str], info: ValidationInfo) -> list[str]:
        both = sorted(set(value) & set(info.data.get("memory_consent_fields", ())))
        if both:
            raise ValueError(
                f"MEMORY_CONSENT_BENIGN_FIELDS: {', '.join(both)} is also a sensitive field "
                "(MEMORY_CONSENT_FIELDS); a field is one or the other"
            )
        return check_fields(value, "MEMORY_CONSENT_BENIGN_FIELDS")

    @property
    def consent(self) -> ConsentPolicy:
        return ConsentPolicy(
            tuple(self.memory_consent_fields),
            tuple(self.memory_consent_benign_fields),
            self.memory_consent_signals,
        )

    @field_validator("categories", mode="before")
    @classmethod
    def _categories(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().startswith("["):
            return json.loads(value)
        return [c.strip() for c in value.split(",") if c.strip()] if isinstance(value, str) else value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Keyword arguments, then the environment, then the config file; an unknown name in any of
        them is a :class:`~memlane.model.errors.ConfigError` (see ``config_check.py``)."""
        aliases = {name: f.validation_alias for name, f in settings_cls.model_fields.items()}
        keys = setting_names(aliases, field_names=True)
        check_keys(getattr(init_settings, "init_kwargs", {}), keys, "given as an argument")
        check_environment(os.environ, setting_names(aliases, field_names=False))
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        path = _config_file()
        if path.is_file():
            toml = TomlConfigSettingsSource(settings_cls, toml_file=path)
            check_keys(toml.toml_data, keys, f"in {path}")
            sources.append(toml)
        return tuple(sources)
