"""boto3 clients from memlane's settings: ``AWS_REGION``, with ``S3V_TIMEOUT_S`` as connect and read
timeouts and ``S3V_MAX_ATTEMPTS`` attempts per call (botocore's standard retries: throttling, 5xx and
timeouts, with backoff)."""

from __future__ import annotations

from typing import Any

from memlane.model.config import Settings
from memlane.model.errors import MissingExtraError


def aws_client(service: str, settings: Settings) -> Any:
    try:
        import boto3
        from botocore.config import Config
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise MissingExtraError("Amazon S3 Vectors and Bedrock need boto3: pip install 'memlane[aws]'") from e
    config = Config(
        connect_timeout=settings.s3v_timeout_s,
        read_timeout=settings.s3v_timeout_s,
        retries={"mode": "standard", "total_max_attempts": settings.s3v_max_attempts},
    )
    return boto3.client(service, region_name=settings.aws_region, config=config)
