"""Amazon S3 Vectors: one index through boto3, within the service's limits (see ``limits.py``)."""

from __future__ import annotations

from memlane.storage.s3vectors.index import S3VectorsIndex
from memlane.storage.s3vectors.metrics import AwsMetrics

__all__ = ["AwsMetrics", "S3VectorsIndex"]
