"""Amazon S3 Vectors for tests: moto's ``s3vectors`` backend plus what moto leaves out.

moto (5.1+) keeps vector buckets, indexes and vectors and answers CreateVectorBucket, CreateIndex,
GetIndex, PutVectors, GetVectors, ListVectors and DeleteVectors. It does not implement QueryVectors,
drops an index's ``metadataConfiguration`` and checks none of the documented input rules beyond the
dimension. :class:`S3VectorsEmulation` adds, on one boto3 client, from the API reference and the
S3 User Guide (not from AWS's behaviour, which is not available here):

- QueryVectors: exact distances over every vector moto holds (cosine ``1 - cos``, euclidean the L2
  distance), the filter evaluated with the documented operators (``$eq`` on a list matches any element,
  ``$in $nin $exists $and $or``, numbers only for order), filters on non-filterable keys refused;
  several keys at the top of a filter are an implicit AND unless ``implicit_and=False``, which refuses
  them (to exercise the seed's ``$and`` retry, since AWS's answer there is not documented);
- GetIndex returns the ``metadataConfiguration`` CreateIndex was given;
- ValidationException for: more than 500 vectors per PutVectors/DeleteVectors, 100 keys per GetVectors,
  ``topK`` outside 1..100, zero vectors in a cosine index, NaN/inf, filterable metadata over 2 KB.

Every call is counted in :attr:`calls`; :attr:`failures` scripts AWS errors per operation. This is a fake at the AWS boundary: a test on it is
never an integration test.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from typing import Any

from botocore.awsrequest import AWSResponse

ORDER = ("$gt", "$gte", "$lt", "$lte")


class S3VectorsEmulation:
    def __init__(self, client: Any, *, implicit_and: bool = True) -> None:
        self.client, self.implicit_and = client, implicit_and
        self.configs: dict[tuple[str, str], dict[str, Any]] = {}
        self.calls: Counter[str] = Counter()
        self.failures: dict[
            str, list[tuple[str, str]]
        ] = {}  # operation -> errors (code, message) to answer, in order
        events = client.meta.events
        events.register("before-parameter-build.s3vectors", self._keep_params)
        events.register("before-call.s3vectors", self._before)
        events.register("after-call.s3vectors.GetIndex", self._add_config)

    # --- plumbing -------------------------------------------------------------------------------
    @staticmethod
    def _keep_params(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        context["emulated_params"] = json.loads(json.dumps(params))

    @staticmethod
    def _error(code: str, message: str, status: int = 400) -> tuple[AWSResponse, dict[str, Any]]:
        parsed = {"Error": {"Code": code, "Message": message}, "ResponseMetadata": {"HTTPStatusCode": status}}
        return AWSResponse("https://s3vectors.emulated", status, {}, None), parsed

    @staticmethod
    def _ok(body: dict[str, Any]) -> tuple[AWSResponse, dict[str, Any]]:
        return AWSResponse("https://s3vectors.emulated", 200, {}, None), {
            **body,
            "ResponseMetadata": {"HTTPStatusCode": 200},
        }

    def _before(self, model: Any, context: dict[str, Any], **_: Any) -> Any:
        op, params = model.name, context.get("emulated_params", {})
        self.calls[op] += 1
        if self.failures.get(op):
            return self._error(*self.failures[op].pop(0))
        if op == "CreateIndex" and params.get("metadataConfiguration"):
            self.configs[(params["vectorBucketName"], params["indexName"])] = params["metadataConfiguration"]
        if op == "PutVectors":
            return self._check_put(params)
        if op in ("DeleteVectors", "GetVectors"):
            cap = 500 if op == "DeleteVectors" else 100
            if len(params.get("keys", [])) > cap:
                return self._error("ValidationException", f"at most {cap} keys per {op}")
        if op == "QueryVectors":
            return self._query(params)
        return None

    def _add_config(self, parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        index = parsed.get("index")
        params = context.get("emulated_params", {})
        config = self.configs.get((params.get("vectorBucketName"), params.get("indexName")))
        if isinstance(index, dict) and config:
            index["metadataConfiguration"] = config

    def _index(self, params: dict[str, Any]) -> dict[str, Any]:
        found = self.client.get_index(
            vectorBucketName=params["vectorBucketName"], indexName=params["indexName"]
        )
        return dict(found["index"])

    # --- the documented input rules moto does not check --------------------------------------------
    def _check_put(self, params: dict[str, Any]) -> Any:
        vectors = params.get("vectors", [])
        if len(vectors) > 500:
            return self._error("ValidationException", "at most 500 vectors per PutVectors")
        index = self._index(params)
        non_filterable = set(index.get("metadataConfiguration", {}).get("nonFilterableMetadataKeys", []))
        for v in vectors:
            data = v["data"]["float32"]
            if not all(math.isfinite(x) for x in data):
                return self._error("ValidationException", "vector data must be finite")
            if index["distanceMetric"] == "cosine" and not any(data):
                return self._error("ValidationException", "zero vectors are not allowed for cosine")
            filterable = {k: m for k, m in v.get("metadata", {}).items() if k not in non_filterable}
            if len(json.dumps(filterable).encode()) > 2048:
                return self._error("ValidationException", "filterable metadata over 2 KB")
        return None

    # --- QueryVectors -------------------------------------------------------------------------------
    def _query(self, params: dict[str, Any]) -> Any:
        top_k = params.get("topK", 0)
        if not 1 <= top_k <= 100:
            return self._error("ValidationException", "topK must be 1 to 100")
        index = self._index(params)
        non_filterable = set(index.get("metadataConfiguration", {}).get("nonFilterableMetadataKeys", []))
        listed = self.client.list_vectors(
            vectorBucketName=params["vectorBucketName"],
            indexName=params["indexName"],
            returnData=True,
            returnMetadata=True,
        )["vectors"]
        query = params["queryVector"]["float32"]
        if len(query) != index["dimension"]:
            return self._error("ValidationException", "query vector dimension mismatch")
        filt = params.get("filter")
        try:
            matched = [
                v
                for v in listed
                if filt is None or self._match(v.get("metadata") or {}, filt, non_filterable)
            ]
        except ValueError as e:
            return self._error("ValidationException", f"invalid filter: {e}")
        metric = index["distanceMetric"]
        scored = sorted(
            ((self._distance(query, v["data"]["float32"], metric), v) for v in matched),
            key=lambda t: (t[0], t[1]["key"]),
        )
        out = []
        for distance, v in scored[:top_k]:
            hit: dict[str, Any] = {"key": v["key"]}
            if params.get("returnMetadata"):
                hit["metadata"] = v.get("metadata") or {}
            if params.get("returnDistance"):
                hit["distance"] = distance
            out.append(hit)
        return self._ok({"vectors": out, "distanceMetric": metric})

    @staticmethod
    def _distance(a: list[float], b: list[float], metric: str) -> float:
        if metric == "euclidean":
            return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)))
        na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(y * y for y in b))
        return 1.0 - sum(x * y for x, y in zip(a, b, strict=True)) / (na * nb) if na and nb else 1.0

    def _match(self, meta: dict[str, Any], filt: Any, non_filterable: set[str]) -> bool:
        if not isinstance(filt, dict) or not filt:
            raise ValueError("a filter is a non-empty object")
        if len(filt) > 1:
            if not self.implicit_and:
                raise ValueError("one key per filter object; combine conditions with $and")
            return all(self._match(meta, {k: v}, non_filterable) for k, v in filt.items())
        ((key, spec),) = filt.items()
        if key in ("$and", "$or"):
            if not isinstance(spec, list) or not spec:
                raise ValueError(f"{key} takes a non-empty array")
            results = [self._match(meta, f, non_filterable) for f in spec]
            return all(results) if key == "$and" else any(results)
        if key.startswith("$"):
            raise ValueError(f"unknown operator {key}")
        if key in non_filterable:
            raise ValueError(f"{key} is non-filterable metadata")
        if not isinstance(spec, dict):
            spec = {"$eq": spec}
        return all(self._apply(meta, key, op, arg) for op, arg in spec.items())

    @staticmethod
    def _apply(meta: dict[str, Any], key: str, op: str, arg: Any) -> bool:
        present, value = key in meta, meta.get(key)
        values = value if isinstance(value, list) else [value]
        if op == "$exists":
            return present == bool(arg)
        if op in ("$eq", "$ne"):
            if isinstance(arg, list | dict):
                raise ValueError(f"{op} takes a string, number or boolean")
            equal = present and any(
                v == arg and type(v) is type(arg) or _numbers(v, arg) and v == arg for v in values
            )
            return equal if op == "$eq" else not equal
        if op in ("$in", "$nin"):
            if not isinstance(arg, list) or not arg:
                raise ValueError(f"{op} takes a non-empty array")
            hit = present and any(v == a for v in values for a in arg)
            return hit if op == "$in" else not hit
        if op in ORDER:
            if not _number(arg):
                raise ValueError(f"{op} takes a number")
            if not present or not _number(value):
                return False
            return {"$gt": value > arg, "$gte": value >= arg, "$lt": value < arg, "$lte": value <= arg}[op]
        raise ValueError(f"unknown operator {op}")


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _numbers(a: Any, b: Any) -> bool:
    return _number(a) and _number(b)
