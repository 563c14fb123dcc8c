"""``S3VectorsStore``: the seed's LangGraph ``BaseStore`` on Amazon S3 Vectors with Bedrock Titan embeddings.

- **Items** are vectors of one index, keyed ``uuid5(NAMESPACE_URL, "ns_0|ns_1::key")`` (idempotent
  puts); the value is the non-filterable ``value_json``, and a few flattened fields are filterable (the
  layout is in ``s3v_items.py``). A put keeps the item's ``created_at`` and sets ``updated_at``.
- **Embeddings** come from Titan (``bedrock_client``, ``model_id``, ``dims``) over the value's
  ``default_index_fields`` (``["summary"]``), or the put's own ``index`` fields, joined with newlines
  into one text. An indexed put with no text at those fields is a ``MissingSummaryError`` naming the
  field to add; ``index=False`` stores the item with ``is_indexed=false`` and a placeholder vector: a zero vector under euclidean, as the seed says; under cosine, where S3 Vectors
  refuses zero vectors, the first unit vector. Searches never see such items.
- **get** reads by ``GetVectors``; with ``get_by="query"`` (or a client without it) by a ``QueryVectors``
  filtered on the namespace labels and ``doc_key``.
- **search** is semantic only: no query, no results (``[]``, as the seed defines it). The prefix must
  name ``ns_0`` and ``ns_1`` (the user and the memory type; ``scope_labels=1``: the user only): its
  labels, ``is_indexed=true`` and the value
  filters go to S3 Vectors as one filter, so tenancy is enforced by the service. Value filters are
  LangGraph's operators on ``filterable_fields`` only; any other field is refused, never ignored.
  ``offset`` is emulated by asking for ``offset + limit`` results (at most 100, the API's ``topK`` cap).
  Scores are similarities: ``1 - distance`` under cosine, ``1 / (1 + distance)`` under euclidean.
- **Not supported**: ``list_namespaces`` (S3 Vectors cannot list by metadata; it raises), TTL.
- Every AWS error becomes a memlane error naming the fix (IAM action, missing index, limits, timeouts).
  Timeouts and retries are the boto3 clients' (``s3v_factory.py`` sets them); latency is recorded in
  ``store.metrics`` (``AwsMetrics``). ``abatch`` runs ``batch`` in a thread: one code path.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)

from memlane.integrations.langgraph import s3v_items
from memlane.integrations.langgraph.vectors import embed_query, index_texts, require_text
from memlane.model.errors import BackendError, FilterError, ProviderError, ValidationError
from memlane.providers.embed.base import Embedder
from memlane.storage.s3vectors import limits
from memlane.storage.s3vectors.filters import Clause, clause
from memlane.storage.s3vectors.index import S3VectorsIndex, Vector
from memlane.storage.s3vectors.metrics import AwsMetrics

log = logging.getLogger("memlane.langgraph.s3vectors")
LG_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


class S3VectorsStore(BaseStore):
    """A LangGraph store on one S3 Vectors index (see the module docstring)."""

    supports_ttl = False

    def __init__(
        self,
        s3v_client: Any,
        bedrock_client: Any,
        vector_bucket_name: str,
        index_name: str,
        dims: int = 1024,
        model_id: str = "amazon.titan-embed-text-v2:0",
        distance: Literal["COSINE", "EUCLIDEAN"] = "COSINE",
        default_index_fields: Sequence[str] | None = None,
        supports_ttl: bool = False,
        *,
        filterable_fields: Sequence[str] = ("category",),
        embedder: Embedder | None = None,
        metrics: AwsMetrics | None = None,
        get_by: Literal["get_vectors", "query"] = "get_vectors",
        on_embed_error: Literal["raise", "unindexed"] = "raise",
        validate_index: bool = True,
        scope_labels: int = 2,
    ) -> None:
        """``embedder`` replaces Titan (any memlane embedder of ``dims``). ``on_embed_error="unindexed"``
        stores an item whose embedding failed with ``is_indexed=false`` instead of raising (the seed's
        explicit opt-in). ``validate_index`` checks at once that the index exists with ``dims``,
        ``distance`` and ``value_json`` non-filterable (``setup()`` creates it). ``scope_labels``: how many
        leading namespace labels every search must name, each a mandatory filter (2: the seed's
        ``(user, type)``; 1: the user only)."""
        if supports_ttl:
            raise ValidationError("S3VectorsStore has no TTL: S3 Vectors cannot expire vectors")
        if get_by not in ("get_vectors", "query") or on_embed_error not in ("raise", "unindexed"):
            raise ValidationError(
                "get_by is 'get_vectors' or 'query'; on_embed_error is 'raise' or 'unindexed'"
            )
        self.dims = limits.check_dims(dims)
        self.distance = limits.check_distance(distance)
        self.model_id = model_id
        self.default_index_fields = list(default_index_fields or ["summary"])
        self.filterable_fields = s3v_items.check_filterable_fields(filterable_fields)
        self.metrics = metrics or AwsMetrics()
        self.index = S3VectorsIndex(s3v_client, vector_bucket_name, index_name, metrics=self.metrics)
        if embedder is None:
            from memlane.providers.embed.bedrock import BedrockEmbedder  # validates Titan's dims

            embedder = BedrockEmbedder(model=model_id, dims=dims, client=bedrock_client)
        if embedder.dims != self.dims:
            raise ValidationError(
                f"the embedder makes {embedder.dims}-dim vectors but the store has dims={dims}"
            )
        self.embedder = embedder
        self.embed_service = "bedrock-runtime" if embedder.name == "bedrock" else f"embedder-{embedder.name}"
        self.get_by = get_by if hasattr(s3v_client, "get_vectors") else "query"
        self.on_embed_error = on_embed_error
        if isinstance(scope_labels, bool) or not isinstance(scope_labels, int) or scope_labels < 1:
            raise ValidationError(f"scope_labels must be 1 or more, not {scope_labels!r}")
        self.scope_labels = scope_labels
        self.index_config = {"dims": self.dims, "fields": list(self.default_index_fields)}
        self.placeholder = [0.0] * self.dims
        if self.distance == "cosine":
            self.placeholder[0] = 1.0
        if validate_index:
            self.index.ensure(self.dims, self.distance, s3v_items.NON_FILTERABLE, create=False)

    def setup(self, *, create: bool = True) -> None:
        """Create the vector bucket and index when missing (``create``), and check their configuration."""
        self.index.ensure(self.dims, self.distance, s3v_items.NON_FILTERABLE, create=create)

    # --- the one entry point ------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Reads see the index as it was before the batch; then its puts and deletes apply (the last one
        of an item wins). Every op is validated before anything is sent."""
        ops = list(ops)
        for op in ops:
            self._check(op)
        results: list[Result] = [None] * len(ops)
        gets = [(n, op) for n, op in enumerate(ops) if isinstance(op, GetOp)]
        if gets:
            found = self._get([(tuple(op.namespace), op.key) for _, op in gets])
            for n, op in gets:
                results[n] = found.get((tuple(op.namespace), op.key))
        for n, op in enumerate(ops):
            if isinstance(op, SearchOp):
                results[n] = self._search(op)
        puts = [op for op in ops if isinstance(op, PutOp)]
        if puts:
            self._put(puts)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _check(self, op: Op) -> None:
        if isinstance(op, ListNamespacesOp):
            raise BackendError(
                "S3VectorsStore cannot list namespaces: S3 Vectors has no listing by metadata "
                "(the seed leaves it out); keep the namespaces you need elsewhere"
            )
        if not isinstance(op, GetOp | SearchOp | PutOp):
            raise ValueError(f"unknown store operation {type(op).__name__}")
        validate_op_namespace(op)
        if isinstance(op, GetOp | PutOp) and not op.namespace:
            raise InvalidNamespaceError("an item's namespace cannot be empty")
        if isinstance(op, PutOp) and op.value is not None and op.index is not False:
            fields = self.default_index_fields if op.index is None else list(op.index)
            require_text(op.key, dict(op.value), fields)  # a record with no text: index=False
        if isinstance(op, SearchOp):
            if len(op.namespace_prefix) < self.scope_labels:
                raise InvalidNamespaceError(
                    f"S3VectorsStore searches need a namespace prefix of {self.scope_labels} label(s) (the seed's "
                    f"user, type), got {tuple(op.namespace_prefix)!r}: they are mandatory filters (scope_labels)"
                )
            self._filter_clauses(op.filter)
            if op.limit > 0 and op.offset + op.limit > limits.MAX_TOP_K:
                raise ValidationError(
                    f"offset + limit is {op.offset + op.limit}; S3 Vectors returns at most "
                    f"{limits.MAX_TOP_K} results per query"
                )

    # --- reads --------------------------------------------------------------------------------------
    def _fetch(self, keys: Mapping[tuple[s3v_items.Namespace, str], str]) -> dict[str, Vector]:
        """The stored vectors at these items' keys (by ``GetVectors``, or a filtered query per item)."""
        if self.get_by == "get_vectors":
            return self.index.get(list(keys.values()))
        stored: dict[str, Vector] = {}
        for ns, key in keys:
            clauses = [
                clause("doc_key", "$eq", key),
                *self._namespace_clauses(ns),
                clause("ns_depth", "$eq", len(ns)),
            ]
            stored.update((v["key"], v) for v in self.index.query_filtered(self.placeholder, 1, clauses))
        return stored

    def _get(
        self, addresses: Sequence[tuple[s3v_items.Namespace, str]]
    ) -> dict[tuple[s3v_items.Namespace, str], Item]:
        keys = {a: s3v_items.point_key(*a) for a in addresses}
        stored = self._fetch(keys)
        out: dict[tuple[s3v_items.Namespace, str], Item] = {}
        for address, point in keys.items():
            if point in stored:
                item = s3v_items.read(stored[point].get("metadata"))
                if (item.namespace, item.key) == address:  # a uuid5 collision of two paths is not this item
                    out[address] = Item(
                        value=item.value,
                        key=item.key,
                        namespace=item.namespace,
                        created_at=item.created_at,
                        updated_at=item.updated_at,
                    )
        return out

    def _search(self, op: SearchOp) -> list[SearchItem]:
        if not op.query or op.limit <= 0:
            return []
        clauses = [
            *self._namespace_clauses(tuple(op.namespace_prefix)),
            clause("is_indexed", "$eq", True),
            *self._filter_clauses(op.filter),
        ]
        with self.metrics.timed(self.embed_service, "embed", texts=1):
            vector = embed_query(self.embedder, op.query)
        hits = self.index.query_filtered(vector, op.offset + op.limit, clauses)
        out = []
        for hit in hits[op.offset :]:
            item = s3v_items.read(hit.get("metadata"))
            out.append(
                SearchItem(
                    item.namespace,
                    item.key,
                    item.value,
                    item.created_at,
                    item.updated_at,
                    self.similarity(hit.get("distance")),
                )
            )
        return out

    def similarity(self, distance: Any) -> float | None:
        if not isinstance(distance, int | float):
            return None
        return 1.0 - float(distance) if self.distance == "cosine" else 1.0 / (1.0 + float(distance))

    @staticmethod
    def _namespace_clauses(namespace: Sequence[str]) -> list[Clause]:
        return [clause(f"ns_{n}", "$eq", label) for n, label in enumerate(namespace)]

    def _filter_clauses(self, filter: Mapping[str, Any] | None) -> list[Clause]:
        """LangGraph's value filter as S3 Vectors clauses; a field that is not filterable, a nested
        filter or an unknown operator is a FilterError (never dropped)."""
        out: list[Clause] = []
        for field, spec in (filter or {}).items():
            if field not in self.filterable_fields:
                raise FilterError(
                    f"S3VectorsStore cannot filter on {field!r}: only {self.filterable_fields} are "
                    "filterable metadata (the filterable_fields option, set before the items are put)"
                )
            specs = spec.items() if isinstance(spec, Mapping) else [("$eq", spec)]
            for op, arg in specs:
                if op not in LG_OPERATORS:
                    raise FilterError(
                        f"unsupported filter on {field!r}: {op!r}; use one of {', '.join(LG_OPERATORS)}"
                    )
                if not isinstance(arg, str | int | float | bool) or (
                    op not in ("$eq", "$ne") and isinstance(arg, str | bool)
                ):
                    raise FilterError(
                        f"filter {field!r} {op} {arg!r}: S3 Vectors compares strings and booleans "
                        "for equality and numbers for order"
                    )
                out.append(clause(field, op, arg))
        return out

    # --- writes -------------------------------------------------------------------------------------
    def _put(self, puts: Sequence[PutOp]) -> None:
        last = {(tuple(op.namespace), op.key): op for op in puts}
        keys = {a: s3v_items.point_key(*a) for a in last}
        existing = self._fetch(keys)
        now = s3v_items.utc_now_iso()
        deletes: list[str] = []
        vectors: list[Vector] = []
        texts: list[tuple[int, str]] = []
        for (ns, key), op in last.items():
            point = keys[(ns, key)]
            old = s3v_items.read(existing[point].get("metadata")) if point in existing else None
            if old is not None and (old.namespace, old.key) != (ns, key):
                raise ValidationError(
                    f"item {key!r} in {ns!r} has the vector key of item {old.key!r} in "
                    f"{old.namespace!r} (the seed's 'ns|ns::key' joins them alike); rename one"
                )
            if op.value is None:
                deletes.append(point)
                continue
            fields = (
                None
                if op.index is False
                else (self.default_index_fields if op.index is None else list(op.index))
            )
            text = "\n".join(index_texts(dict(op.value), fields)) if fields else ""
            created = old.created_at.isoformat() if old else now
            meta = s3v_items.metadata(
                ns,
                key,
                op.value,
                is_indexed=bool(text),
                created_at=created,
                updated_at=now,
                filterable_fields=self.filterable_fields,
            )
            limits.check_metadata(point, meta, s3v_items.NON_FILTERABLE)
            if text:
                texts.append((len(vectors), text))
            vectors.append({"key": point, "data": {"float32": self.placeholder}, "metadata": meta})
        self._embed(vectors, texts)
        for v in vectors:
            limits.check_vector(v["key"], v["data"]["float32"], self.dims, self.distance)
        if deletes:
            self.index.delete(deletes)
        if vectors:
            self.index.put(vectors)

    def _embed(self, vectors: list[Vector], texts: list[tuple[int, str]]) -> None:
        if not texts:
            return
        try:
            with self.metrics.timed(self.embed_service, "embed", texts=len(texts)):
                embedded = self.embedder.embed([t for _, t in texts])
        except ProviderError:
            if self.on_embed_error == "raise":
                raise
            log.warning(
                "embedding failed for %d item(s); storing them unindexed (on_embed_error='unindexed')",
                len(texts),
                exc_info=True,
            )
            for n, _ in texts:
                vectors[n]["metadata"]["is_indexed"] = False
            return
        for (n, _), vector in zip(texts, embedded, strict=True):
            vectors[n]["data"] = {"float32": [float(x) for x in vector]}
