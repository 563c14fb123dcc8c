"""``memlane compact``: rewrite the store so deleted and purged content leaves its files."""

from __future__ import annotations

import typer

from memlane.cli.app import DbOption, EmbedderOption, JsonOption, app, open_memory, print_json


@app.command("compact")
def compact(db: DbOption = None, embedder: EmbedderOption = None, as_json: JsonOption = False) -> None:
    """Take what purges and deleted users left out of the store's files (SQLite: empty the
    write-ahead log and VACUUM; PostgreSQL: VACUUM FULL of memlane's tables). Writers wait while
    it runs; run it after delete_user or a large purge."""
    with open_memory(db, embedder, must_exist=True) as mem:
        sizes = mem.compact()
    if as_json:
        print_json(sizes)
        return
    typer.echo(f"compacted: {sizes['bytes_before']:,} -> {sizes['bytes_after']:,} bytes")
