"""The write path, between the pipelines and storage: what a write is (:mod:`~memlane.ledger.mutations`),
how it is committed (:mod:`~memlane.ledger.commit`), and the events it publishes
(:mod:`~memlane.ledger.events`, :mod:`~memlane.ledger.change_events`, :mod:`~memlane.ledger.bus`).

It imports storage and model only: formation, lifecycle, the engine and the interfaces all write
through it (docs/write-path.md)."""
