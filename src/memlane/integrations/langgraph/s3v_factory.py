"""The seed's store factory: an :class:`S3VectorsStore` from the environment (``AWS_REGION``,
``S3V_BUCKET``, ``S3V_INDEX_MEMORY``, ``S3V_DISTANCE``, ``BEDROCK_EMBED_MODEL_ID``, ``MEMLANE_EMBED_DIMS``,
``S3V_TIMEOUT_S``, ``S3V_MAX_ATTEMPTS``; see docs/configuration.md), with boto3 clients whose timeouts and
retries come from those settings."""

from __future__ import annotations

from typing import Any

from memlane.integrations.langgraph.s3v_store import S3VectorsStore
from memlane.model.config import Settings
from memlane.model.errors import ConfigError
from memlane.storage.s3vectors.clients import aws_client

TITAN_DEFAULT_DIMS = 1024


def aws_clients(settings: Settings) -> tuple[Any, Any]:
    """``(s3vectors, bedrock-runtime)`` clients in ``AWS_REGION`` with the configured timeouts and retries."""
    return aws_client("s3vectors", settings), aws_client("bedrock-runtime", settings)


def store_from_settings(
    settings: Settings | None = None,
    *,
    create_index: bool = False,
    s3v_client: Any = None,
    bedrock_client: Any = None,
    **options: Any,
) -> S3VectorsStore:
    """The store the settings describe; ``create_index`` makes the bucket and index when missing (else
    they must exist). Clients given here are used as they are; ``options`` go to the constructor."""
    s = settings or Settings()
    if not s.s3v_bucket:
        raise ConfigError(
            "S3VectorsStore needs S3V_BUCKET (the vector bucket); S3V_INDEX_MEMORY names the index"
        )
    if s3v_client is None or bedrock_client is None:
        made = aws_clients(s)
        s3v_client, bedrock_client = s3v_client or made[0], bedrock_client or made[1]
    store = S3VectorsStore(
        s3v_client,
        bedrock_client,
        s.s3v_bucket,
        s.s3v_index_memory,
        dims=s.embed_dims or TITAN_DEFAULT_DIMS,
        model_id=s.bedrock_embed_model_id,
        distance=s.s3v_distance.upper(),  # type: ignore[arg-type]  # checked by the store
        validate_index=not create_index,
        **options,
    )
    if create_index:
        store.setup()
    return store
