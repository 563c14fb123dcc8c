"""AWS errors of S3 Vectors calls as memlane errors whose message says what to do."""

from __future__ import annotations

from typing import Any

from memlane.model.errors import BackendError, MissingExtraError, ValidationError

try:
    from botocore.exceptions import (
        BotoCoreError,
        ClientError,
        ConnectTimeoutError,
        EndpointConnectionError,
        NoCredentialsError,
        ReadTimeoutError,
    )
except ImportError as e:  # pragma: no cover - depends on the environment
    raise MissingExtraError("Amazon S3 Vectors needs boto3: pip install 'memlane[aws]'") from e

AWS_ERRORS = (BotoCoreError, ClientError)  # what a boto3 call raises for AWS or transport failures
THROTTLED = (
    "TooManyRequestsException",
    "ThrottlingException",
    "ServiceUnavailableException",
    "InternalServerException",
    "RequestTimeoutException",
)


def error_code(e: BaseException) -> str:
    return str(e.response.get("Error", {}).get("Code", "")) if isinstance(e, ClientError) else ""


def wrap(e: BotoCoreError | ClientError, operation: str, where: str) -> Exception:
    """The memlane error for an AWS failure of ``operation`` on ``where`` (``index I in vector bucket B``).
    A refused request is a :class:`ValidationError` (nothing was written); the rest are
    :class:`BackendError`."""
    if isinstance(e, NoCredentialsError):
        return BackendError(
            f"S3 Vectors {operation} on {where}: no AWS credentials; configure a profile, role "
            "or the AWS_* variables"
        )
    if isinstance(e, ReadTimeoutError | ConnectTimeoutError | EndpointConnectionError):
        return BackendError(
            f"S3 Vectors {operation} on {where}: {e} (after the client's retries); check the "
            "network and region, or raise S3V_TIMEOUT_S / S3V_MAX_ATTEMPTS"
        )
    if isinstance(e, BotoCoreError):
        return BackendError(f"S3 Vectors {operation} on {where}: {e}")
    code = error_code(e)
    message = e.response.get("Error", {}).get("Message", str(e))
    text = f"S3 Vectors {operation} on {where}: {code}: {message}"
    if code == "AccessDeniedException":
        return BackendError(f"{text}; grant the caller the IAM action s3vectors:{operation} on this index")
    if code == "NotFoundException":
        return BackendError(
            f"{text}; check the bucket and index names and the region, or create the index "
            "(the store's setup(), docs/s3vectors.md)"
        )
    if code == "ValidationException":
        return ValidationError(f"{text} (limits: docs/s3vectors.md); nothing was written by this call")
    if code in THROTTLED:
        return BackendError(
            f"{text}; still failing after the client's retries: lower the request rate or raise "
            "S3V_MAX_ATTEMPTS"
        )
    if code.startswith("Kms"):
        return BackendError(f"{text}; the bucket's KMS key must be usable by the caller")
    return BackendError(text)


def is_not_found(e: BaseException) -> bool:
    return error_code(e) == "NotFoundException"


def response_list(response: Any, name: str) -> list[dict[str, Any]]:
    """``response[name]`` as a list of dicts, or a BackendError for a response of another shape."""
    found = response.get(name) if isinstance(response, dict) else None
    if not isinstance(found, list) or not all(isinstance(v, dict) for v in found):
        raise BackendError(f"S3 Vectors answered without a {name!r} list; is the client an s3vectors client?")
    return found
