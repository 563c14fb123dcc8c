"""Formation's decisions in ``/metrics``: how many candidates were decided and how, the similarity and
the notability each was decided at, how long each took, and the replacement and dedup ratios a dashboard shows.

Fed by :attr:`Formation.decisions` (``formation/observe.py``) of the memory this app serves: decisions
made in this process (the request that waited for its turn, the background worker of ``memlane serve``).
A ``memlane worker`` in another process decides in that process; its decisions are not counted here.

Why a counter of decisions and not ``memlane_formation_events_total``: those count writes, from every
path (a REST update, consolidation's merges), and a supersession that closes three memories is three
``memory.superseded``. A rate per decided candidate needs the candidates as its denominator.

Labels are closed vocabularies: the action (``create``, ``merge``, ``supersede``, ``history``, ``ignore``,
``propose``) and the memory type (five values), so at most 30 label sets per metric.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from memlane.formation.observe import Decided

# cosine similarity of the best neighbour: finer near the bands (0.80 / 0.90 and their per-embedder
# measures), where a merge turns into a create
SIMILARITY = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.92, 0.95, 0.98, 1.0)
NOTABILITY = (1.0, 2.0, 3.0, 4.0, 5.0)  # a candidate's importance is a whole number from 1 to 5
# a decision's wall time: milliseconds with the offline judges, up to seconds with a hosted LLM
DURATION = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

# ratio gauge -> the action it counts, over every decided candidate
RATIOS = {
    "memlane_formation_replacement_ratio": (
        "supersede",
        "Decided candidates that superseded a stored memory, over all decided candidates since start",
    ),
    "memlane_formation_dedup_ratio": (
        "merge",
        "Decided candidates merged into a stored memory (duplicates), over all decided candidates since start",
    ),
}


class DecisionMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        self.decisions = Counter(
            "memlane_formation_decisions_total",
            "Candidates decided by formation, by action and memory type",
            ["action", "type"],
            registry=registry,
        )
        self.similarity = Histogram(
            "memlane_formation_similarity_score",
            "Cosine similarity of the best stored neighbour a decision considered (decisions without "
            "one, such as the first memory of a type or a deterministic key's, are not observed)",
            ["type", "action"],
            buckets=SIMILARITY,
            registry=registry,
        )
        self.notability = Histogram(
            "memlane_formation_notability_score",
            "Importance (1-5) of each decided candidate, as the extractor or the caller rated it",
            ["type"],
            buckets=NOTABILITY,
            registry=registry,
        )
        self.duration = Histogram(
            "memlane_formation_decision_duration_seconds",
            "Wall time of each decision: the candidate's embedding, its neighbours, the judge and the commit",
            ["type", "action"],
            buckets=DURATION,
            registry=registry,
        )
        registry.register(DecisionRatios(self.decisions))

    def on_decision(self, d: Decided) -> None:
        kind = d.type.value
        self.decisions.labels(d.action, kind).inc()
        if d.score is not None:
            self.similarity.labels(kind, d.action).observe(d.score)
        self.notability.labels(kind).observe(d.importance)
        self.duration.labels(kind, d.action).observe(d.seconds)


class DecisionRatios(Collector):
    """The replacement and dedup ratios since the process started, read from the decision counter at
    scrape time (0 before any decision). Over a window, compute them in PromQL from the counter (see
    docs/observability.md)."""

    def __init__(self, decisions: Counter) -> None:
        self.decisions = decisions

    def _counts(self) -> dict[str, float]:
        counts: dict[str, float] = {}
        for family in self.decisions.collect():
            for sample in family.samples:
                if sample.name.endswith("_total"):
                    action = sample.labels["action"]
                    counts[action] = counts.get(action, 0.0) + sample.value
        return counts

    def collect(self) -> Iterator[GaugeMetricFamily]:
        counts = self._counts()
        total = sum(counts.values())
        for name, (action, text) in RATIOS.items():
            yield GaugeMetricFamily(name, text, value=counts.get(action, 0.0) / total if total else 0.0)
