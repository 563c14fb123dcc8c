"""The ``memlane`` command line: the typer app, its shared options and error handling.

Adding commands: write ``memlane/cli/<name>.py`` that does ``from memlane.cli.app import app`` and
decorates ``@app.command()`` (or calls ``app.add_typer(group, name="<name>")``). Every module of this
package is imported when the app is built (:func:`_register_commands`), so nothing here changes.

Errors: a :class:`~memlane.model.errors.MemlaneError` or a usage error ends the command with one line
on stderr starting with ``error:``; exit code 1 when something was not found, 2 for any other bad input.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup

from memlane.model.errors import MemlaneError, NotFoundError

if TYPE_CHECKING:  # imported where used: `memlane --help` and usage errors never load the engine
    from memlane.engine.memory import Memory
    from memlane.model.config import Settings

EXIT_NOT_FOUND = 1
EXIT_BAD_INPUT = 2

# typer (>= 0.2x) vendors click; find its ClickException through a public class instead of a private import.
ClickException: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"
)


class CliError(Exception):
    """A bad input noticed by the CLI itself (a file that cannot be read, a missing --yes, ...)."""

    def __init__(self, message: str, code: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.code = code


def fail(message: str, code: int) -> NoReturn:
    typer.echo(f"error: {' '.join(message.split())}", err=True)
    sys.exit(code)


class MemlaneGroup(TyperGroup):
    """Turns every expected failure into one ``error:`` line and an exit code; never a traceback."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        try:
            rv = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except NotFoundError as exc:
            fail(str(exc), EXIT_NOT_FOUND)
        except MemlaneError as exc:
            fail(str(exc), EXIT_BAD_INPUT)
        except CliError as exc:
            fail(str(exc), exc.code)
        except typer.Abort:
            fail("aborted", 1)
        except ClickException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # bare `memlane`: the help, as click does
                typer.echo(exc.format_message())  # type: ignore[attr-defined]
                sys.exit(0)
            ctx = getattr(exc, "ctx", None)
            hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            fail(f"{exc.format_message()}{hint}", getattr(exc, "exit_code", EXIT_BAD_INPUT))  # type: ignore[attr-defined]
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


app = typer.Typer(
    cls=MemlaneGroup,
    name="memlane",
    help="Long-term memory for LLM assistants: store, search and inspect memories.",
    epilog="Exit codes: 0 ok, 1 not found, 2 bad input (one 'error:' line on stderr; nothing is changed).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)

# --- shared options -----------------------------------------------------------------------------
DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="SQLite file or postgresql:// URL \\[default: $MEMLANE_DB or ~/.memlane/memlane.db]",
        show_default=False,
    ),
]
UserOption = Annotated[
    str, typer.Option("--user", "-u", envvar="MEMLANE_USER", help="User id (the memory scope).")
]
EmbedderOption = Annotated[
    str | None,
    typer.Option(
        "--embedder",
        help="local, hash, openai, mistral or bedrock \\[default: $MEMLANE_EMBEDDER or local]",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
CreateDirsOption = Annotated[
    bool,
    typer.Option(
        "--create-dirs",
        help="Create the --db file's folder if it does "
        "not exist (the default folder ~/.memlane is always created).",
    ),
]
IdArgument = Annotated[
    str,
    typer.Argument(
        metavar="ID",
        help="Memory id, or a unique start of it (at least 4 "
        "characters), or the tail a table shows after '…'.",
        show_default=False,
    ),
]


def load_settings() -> Settings:
    from pydantic import ValidationError as PydanticError
    from pydantic_settings import SettingsError

    from memlane.model.config import Settings
    from memlane.model.invalid import describe

    # Settings reads its fields from the environment; typed loosely so mypy does not take every field
    # for a required argument.
    make: Callable[..., Settings] = Settings
    try:
        return make()
    except PydanticError as exc:
        raise CliError(f"invalid memlane settings (environment or config file): {describe(exc)}") from None
    except (SettingsError, ValueError) as exc:
        raise CliError(f"invalid memlane settings (environment or config file): {exc}") from None


def is_sqlite_path(location: str) -> bool:
    """A SQLite file (not ``:memory:``); an unsupported URL scheme is a ValidationError."""
    from memlane.storage.location import backend_kind

    return backend_kind(location) == "sqlite" and location != ":memory:"


def check_folder(location: str, *, create_dirs: bool, flag: bool) -> None:
    """A new SQLite file's folder must exist: a mistyped ``--db`` would otherwise leave a new folder
    tree behind. It is created for the default location (``~/.memlane``) and with ``--create-dirs``;
    ``flag`` says whether the command offers that option (the message names it then)."""
    from memlane.model.config import DEFAULT_HOME

    folder = Path(location).expanduser().parent
    if folder.exists() or create_dirs or folder == DEFAULT_HOME:
        return
    how = f"create it (mkdir -p {folder})" + (" or pass --create-dirs" if flag else "")
    raise CliError(f"the folder {folder} does not exist (database {location}): {how}")


@contextmanager
def open_memory(
    db: str | None,
    embedder: str | None,
    *,
    must_exist: bool = False,
    switch_embedder: bool = False,
    vectors: str | None = None,
    create_dirs: bool | None = None,
) -> Iterator[Memory]:
    """The store at ``db`` (or the configured one). ``must_exist`` keeps read commands from creating
    an empty SQLite file at a mistyped path; a new file's folder must exist unless it is the default
    one or ``create_dirs`` is true (None: the command has no ``--create-dirs``); ``switch_embedder`` is
    for ``reembed`` only; ``vectors`` overrides ``MEMLANE_VECTORS``."""
    settings = load_settings()
    if vectors is not None:
        settings = settings.model_copy(update={"vectors": vectors})
    location = db or settings.db
    if is_sqlite_path(location) and not Path(location).expanduser().exists():
        if must_exist:
            raise NotFoundError(f"no memlane database at {location} (store a memory first, or pass --db)")
        check_folder(location, create_dirs=bool(create_dirs), flag=create_dirs is not None)
    from memlane.engine.memory import Memory

    memory = Memory(location, embedder=embedder, settings=settings, switch_embedder=switch_embedder)
    try:
        yield memory
    finally:
        memory.close()


def print_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


FIRST = ("memories", "transfer")  # shown first in --help; other modules follow by name


def _register_commands() -> None:
    """Import every module of ``memlane.cli``; each registers its commands on ``app``."""
    package = importlib.import_module("memlane.cli")
    found = {info.name for info in pkgutil.iter_modules(package.__path__)} - {"app"}
    for name in [n for n in FIRST if n in found] + sorted(found - set(FIRST)):
        if not name.startswith("_"):
            importlib.import_module(f"memlane.cli.{name}")


def main() -> None:
    app(prog_name="memlane")


_register_commands()
