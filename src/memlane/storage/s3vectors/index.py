"""One S3 Vectors index through a boto3 ``s3vectors`` client: batched puts, gets and deletes within the
API's limits, queries, creation and validation of the index, each call timed and its errors wrapped."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from memlane.model.errors import ValidationError
from memlane.storage.s3vectors import limits
from memlane.storage.s3vectors.errors import AWS_ERRORS, is_not_found, response_list, wrap
from memlane.storage.s3vectors.filters import Clause, shapes
from memlane.storage.s3vectors.metrics import AwsMetrics

Vector = dict[str, Any]  # {"key": str, "data": {"float32": [...]}, "metadata": {...}}
log = logging.getLogger("memlane.s3vectors")


class S3VectorsIndex:
    """The index ``index`` of the vector bucket ``bucket``."""

    def __init__(self, client: Any, bucket: str, index: str, *, metrics: AwsMetrics | None = None) -> None:
        if not bucket or not index:
            raise ValidationError(
                "S3 Vectors needs a vector bucket name and an index name (S3V_BUCKET, S3V_INDEX_MEMORY)"
            )
        self.client, self.bucket, self.index = client, bucket, index
        self.metrics = metrics or AwsMetrics()
        self.where = f"index {index!r} in vector bucket {bucket!r}"
        self._shape = 0  # the filter shape (filters.shapes) this index accepted last

    def _call(self, operation: str, method: Callable[..., Any], **params: Any) -> Any:
        try:
            with self.metrics.timed("s3vectors", operation):
                return method(**params)
        except AWS_ERRORS as e:  # every AWS failure becomes a typed memlane error that says what to do
            raise wrap(e, operation, self.where) from e

    @property
    def _ids(self) -> dict[str, str]:
        return {"vectorBucketName": self.bucket, "indexName": self.index}

    # --- the index itself ---------------------------------------------------------------------------
    def describe(self) -> dict[str, Any] | None:
        """``GetIndex``'s description of the index, or None when the bucket or index does not exist."""
        try:
            with self.metrics.timed("s3vectors", "GetIndex"):
                found = self.client.get_index(**self._ids)
        except AWS_ERRORS as e:
            if is_not_found(e):
                return None
            raise wrap(e, "GetIndex", self.where) from e
        return dict(found.get("index") or {})

    def ensure(self, dims: int, distance: str, non_filterable: Sequence[str], *, create: bool) -> None:
        """Check that the index has ``dims``, ``distance`` and ``non_filterable`` keys; with ``create``,
        make the bucket and index first when they are missing."""
        found = self.describe()
        if found is None and create:
            self._create(dims, distance, non_filterable)
            found = self.describe()
        if found is None:
            raise ValidationError(
                f"S3 Vectors {self.where} does not exist; create it ({self.create_hint(dims, distance, non_filterable)})"
            )
        problems = []
        if int(found.get("dimension", dims)) != dims:
            problems.append(f"dimension {found.get('dimension')} (expected {dims})")
        if str(found.get("distanceMetric", distance)).lower() != distance:
            problems.append(f"distance {found.get('distanceMetric')} (expected {distance})")
        keys = set((found.get("metadataConfiguration") or {}).get("nonFilterableMetadataKeys") or [])
        if not set(non_filterable) <= keys:
            problems.append(f"non-filterable metadata keys {sorted(keys)} (expected {list(non_filterable)})")
        if problems:
            raise ValidationError(
                f"S3 Vectors {self.where} has "
                + ", ".join(problems)
                + "; an index's configuration cannot change: create a new index"
            )

    def create_hint(self, dims: int, distance: str, non_filterable: Sequence[str]) -> str:
        config = json.dumps({"nonFilterableMetadataKeys": list(non_filterable)})
        return (
            f"aws s3vectors create-index --vector-bucket-name {self.bucket} --index-name {self.index} "
            f"--data-type float32 --dimension {dims} --distance-metric {distance} "
            f"--metadata-configuration '{config}', or call the store's setup()"
        )

    def _create(self, dims: int, distance: str, non_filterable: Sequence[str]) -> None:
        try:
            with self.metrics.timed("s3vectors", "GetVectorBucket"):
                self.client.get_vector_bucket(vectorBucketName=self.bucket)
        except AWS_ERRORS as e:
            if not is_not_found(e):
                raise wrap(e, "GetVectorBucket", self.where) from e
            self._call("CreateVectorBucket", self.client.create_vector_bucket, vectorBucketName=self.bucket)
        params: dict[str, Any] = {
            "dataType": "float32",
            "dimension": dims,
            "distanceMetric": distance,
            **self._ids,
        }
        if non_filterable:
            params["metadataConfiguration"] = {"nonFilterableMetadataKeys": list(non_filterable)}
        self._call("CreateIndex", self.client.create_index, **params)

    # --- vectors ----------------------------------------------------------------------------------
    def put(self, vectors: Sequence[Vector]) -> None:
        """Upsert ``vectors`` (a key that exists is replaced), at most 500 per call."""
        for chunk in limits.chunks(vectors, limits.MAX_PUT):
            self._call("PutVectors", self.client.put_vectors, vectors=list(chunk), **self._ids)

    def get(self, keys: Sequence[str], *, data: bool = False) -> dict[str, Vector]:
        """The vectors (with metadata) at ``keys`` that exist, by key; at most 100 keys per call."""
        found: dict[str, Vector] = {}
        for chunk in limits.chunks(list(dict.fromkeys(keys)), limits.MAX_GET):
            response = self._call(
                "GetVectors",
                self.client.get_vectors,
                keys=list(chunk),
                returnData=data,
                returnMetadata=True,
                **self._ids,
            )
            found.update((v["key"], v) for v in response_list(response, "vectors"))
        return found

    def delete(self, keys: Sequence[str]) -> None:
        """Delete the vectors at ``keys`` (a missing key is not an error), at most 500 per call."""
        for chunk in limits.chunks(list(dict.fromkeys(keys)), limits.MAX_DELETE):
            self._call("DeleteVectors", self.client.delete_vectors, keys=list(chunk), **self._ids)

    def query(self, vector: Sequence[float], top_k: int, filter: Mapping[str, Any] | None) -> list[Vector]:
        """The ``top_k`` nearest vectors matching ``filter``, nearest first, with metadata and distance."""
        if not 1 <= top_k <= limits.MAX_TOP_K:
            raise ValidationError(
                f"S3 Vectors returns 1 to {limits.MAX_TOP_K} results per query, not {top_k}"
            )
        params: dict[str, Any] = {
            "queryVector": {"float32": [float(x) for x in vector]},
            "topK": top_k,
            "returnMetadata": True,
            "returnDistance": True,
            **self._ids,
        }
        if filter:
            params["filter"] = dict(filter)
        response = self._call("QueryVectors", self.client.query_vectors, **params)
        found = response_list(response, "vectors")
        self.metrics.results.observe(len(found))
        return found

    def query_filtered(self, vector: Sequence[float], top_k: int, clauses: Sequence[Clause]) -> list[Vector]:
        """:meth:`query` with the AND of ``clauses``, in the first shape the service accepts (equality
        shorthand, then ``$and``; the seed's retry). A filter is never dropped: it carries the tenancy."""
        if not clauses:
            raise ValidationError("an S3 Vectors query needs a filter (at least the scope it reads)")
        tried = shapes(clauses)
        for n in range(min(self._shape, len(tried) - 1), len(tried)):
            try:
                found = self.query(vector, top_k, tried[n])
            except ValidationError:
                if n == len(tried) - 1:
                    raise
                log.info(
                    "S3 Vectors refused the filter shape %d on %s; retrying with the next", n, self.where
                )
                continue
            self._shape = n
            return found
        raise AssertionError("unreachable: the last shape returns or raises")
