"""Lifecycle: the periodic work that keeps memory healthy (TTL, purge, consolidation), run by workers
from the durable jobs table on a per-user, staggered schedule."""
