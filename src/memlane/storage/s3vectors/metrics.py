"""Latency of the AWS calls behind the S3 Vectors store and backend (S3 Vectors, and the embedder:
``bedrock-runtime`` ``embed``, one observation per embedding call, whatever the number of texts).

One histogram, ``memlane_aws_call_duration_seconds{service, operation, outcome}``, and the number of
results each ``QueryVectors`` returned. They live in a ``prometheus_client`` registry (the caller's, or
a private one), and every call is also logged at DEBUG with its duration: counts and sizes only, never
texts or vectors.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client import CollectorRegistry, Histogram

log = logging.getLogger("memlane.aws")
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class AwsMetrics:
    """Call latency by service, operation and outcome (``ok`` or the error's class name)."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        self.latency = Histogram(
            "memlane_aws_call_duration_seconds",
            "AWS call latency (S3 Vectors, Bedrock) by operation and outcome",
            ["service", "operation", "outcome"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.results = Histogram(
            "memlane_s3vectors_query_results",
            "Vectors returned per QueryVectors call",
            buckets=(0, 1, 3, 5, 10, 30, 100),
            registry=self.registry,
        )

    @contextmanager
    def timed(self, service: str, operation: str, **sizes: int) -> Iterator[None]:
        start = time.perf_counter()
        outcome = "ok"
        try:
            yield
        except BaseException as e:  # labelled by what was raised, then raised on unchanged
            outcome = type(e).__name__
            raise
        finally:
            seconds = time.perf_counter() - start
            self.latency.labels(service, operation, outcome).observe(seconds)
            log.debug("aws %s %s %s in %.1f ms %s", service, operation, outcome, seconds * 1000, sizes or "")

    def count(self, service: str, operation: str, outcome: str = "ok") -> float:
        """How many calls were observed (for tests and quick checks)."""
        value = self.registry.get_sample_value(
            "memlane_aws_call_duration_seconds_count",
            {"service": service, "operation": operation, "outcome": outcome},
        )
        return value or 0.0
