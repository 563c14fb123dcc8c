"""The stored memories in ``/metrics``: totals by state, and active memories per user without a label
per user.

Per-user totals are where a metric's cardinality explodes (one time series per user, for ever) and
where user ids would leak into every dashboard and alert. So the default exposes none:

- ``memlane_memories{state}``: every memory by state (at most four series);
- ``memlane_user_active_memories``: a gauge histogram of active memories per user, with fixed buckets
  (how many users hold at most 10, 100, ... active memories; ``_gcount`` the users, ``_gsum`` their
  active memories), so a quantile per user reads ``histogram_quantile(0.99, ...)`` with no user label;
- ``memlane_top_user_active_memories{user_id}``: the active memories of the ``MEMLANE_METRICS_TOP_USERS``
  users with the most (at most 100; 0, the default, shows none): bounded, and only where the operator
  chose to see user ids.

Counted at each scrape with three grouped counts in the store (``storage/totals.py``).
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeHistogramMetricFamily, GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from memlane.engine.memory import Memory
from memlane.model.enums import MemoryState

PER_USER = (1.0, 10.0, 100.0, 1000.0, 10_000.0, 100_000.0)  # active memories of one user


class MemoryTotalsCollector(Collector):
    def __init__(self, memory: Memory, top_users: int) -> None:
        self.memory, self.top_users = memory, top_users

    def collect(self) -> Iterator[Metric]:
        totals = self.memory.totals(top_users=self.top_users)
        states = GaugeMetricFamily(
            "memlane_memories", "Stored memories of every user by state", labels=["state"]
        )
        for state in MemoryState:
            if state is MemoryState.PROVISIONAL:  # never stored
                continue
            states.add_metric([state.value], totals.by_state.get(state.value, 0))
        yield states
        buckets = [
            (str(le), sum(users for n, users in totals.per_user.items() if n <= le)) for le in PER_USER
        ]
        yield GaugeHistogramMetricFamily(
            "memlane_user_active_memories",
            "Users by how many active memories each holds (no user label)",
            buckets=[*buckets, ("+Inf", totals.users)],
            gsum_value=totals.active,
        )
        if self.top_users:
            top = GaugeMetricFamily(
                "memlane_top_user_active_memories",
                f"Active memories of the {self.top_users} users with the most (MEMLANE_METRICS_TOP_USERS)",
                labels=["user_id"],
            )
            for user, n in totals.top:
                top.add_metric([user], n)
            yield top
