"""LangGraph's own store test suites, run against ``MemlaneStore`` on SQLite and PostgreSQL, and the
in-memory suite against the seed's ``S3VectorsStore`` (moto plus the QueryVectors emulation: fakes).

The suites (``tests/test_store.py`` of ``langgraph-checkpoint``, the in-memory store's; ``test_store.py``
and ``test_async_store.py`` of ``langgraph-checkpoint-postgres``) are fetched from the installed
versions' source distributions at test time, never committed (see ``tests/langgraph_suites/``). The four
runs go in parallel subprocesses; each test here checks one: every selected upstream test passed, and
the only skips are the out-of-scope ones listed in ``tests/langgraph_suites/conftest.py``.
"""

from __future__ import annotations

import json

import langgraph.store.base  # noqa: F401 - in the test extra: a broken install fails, not skips
import pytest

from tests.langgraph_suites import runner  # noqa: E402
from tests.langgraph_suites.conftest import S3V_SKIPS, SKIPS  # noqa: E402

pytestmark = pytest.mark.postgres
# The seed's S3VectorsStore (on moto with the QueryVectors emulation) runs the in-memory suite only; its
# out-of-scope skips are S3V_SKIPS in tests/langgraph_suites/conftest.py.
RUNS = [(suite, backend) for suite in runner.SUITES for backend in ("sqlite", "postgres")] + [
    ("inmemory", "s3vectors")
]
TIMEOUT_S = 1800


@pytest.fixture(scope="module")
def outcomes(
    postgres_server_url: str, tmp_path_factory: pytest.TempPathFactory
) -> dict[tuple[str, str], runner.Outcome]:
    work = tmp_path_factory.mktemp("langgraph-suites")
    roots = {suite: runner.fetch(suite) for suite in runner.SUITES}
    url = runner.slashless(postgres_server_url)
    procs = {(s, b): runner.start(s, b, roots[s], url, work / f"{s}-{b}.xml") for s, b in RUNS}
    done = {(s, b): runner.finish(s, b, p, work / f"{s}-{b}.xml", TIMEOUT_S) for (s, b), p in procs.items()}
    summary = {
        f"{s}/{b}": {"ran": o.ran, "passed": o.passed, "failed": len(o.failed), "skipped": len(o.skipped)}
        for (s, b), o in done.items()
    }
    (runner.CACHE / "last-run.json").write_text(json.dumps(summary, indent=2))
    print("\nLangGraph store suites against MemlaneStore:", json.dumps(summary))
    return done


@pytest.mark.parametrize(("suite", "backend"), RUNS, ids=[f"{s}-{b}" for s, b in RUNS])
def test_upstream_store_suite(
    outcomes: dict[tuple[str, str], runner.Outcome], suite: str, backend: str
) -> None:
    out = outcomes[(suite, backend)]
    tail = "\n".join(out.output.splitlines()[-60:])
    assert not out.failed, f"{len(out.failed)} upstream test(s) failed: {out.failed[:20]}\n{tail}"
    assert out.ran > 0 and out.passed == out.ran, tail
    assert f"memlane-suite: {suite} on {backend}" in out.output, (
        "the conftest did not point the suite at memlane"
    )
    allowed = {**SKIPS[suite], **(S3V_SKIPS[suite] if backend == "s3vectors" else {})}
    unexpected = {
        name: why for name, why in out.skipped.items() if name.split("::")[-1].split("[")[0] not in allowed
    }
    assert not unexpected, f"skips not on the out-of-scope list: {unexpected}"
