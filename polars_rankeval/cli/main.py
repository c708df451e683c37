"""``rankeval``'s entry point: dispatch to a command, turn errors into exit statuses."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from polars_rankeval._errors import InputError, MeasureError, RankevalError
from polars_rankeval.cli._common import PROG, UsageError, cli_words
from polars_rankeval.cli.inputs import Reader

__all__ = ["command", "main"]


def _dispatch(arguments: list[str], reader: Reader) -> int:
    if arguments and arguments[0] == "compare":
        from polars_rankeval.cli.compare import compare_command

        return compare_command(arguments[1:], reader)
    from polars_rankeval.cli.eval_command import eval_command

    return eval_command(arguments, reader)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rankeval`` command; returns the exit status (0, 1 bad data, 2 usage).

    >>> main(["--no-such-option"])  # doctest: +SKIP
    2
    """
    arguments = list(sys.argv[1:] if argv is None else argv)
    with contextlib.ExitStack() as stack:
        reader = Reader(stack)
        try:
            return _dispatch(arguments, reader)
        except SystemExit as exit_:  # argparse: --help (0) or a usage error (2)
            return exit_.code if isinstance(exit_.code, int) else 2
        except (UsageError, MeasureError) as error:
            return _fail(reader.name(str(error)), 2)
        except InputError as error:
            return _fail(reader.name(str(error)), 1)
        except RankevalError as error:  # bad option values (baseline, test, alpha, ...)
            return _fail(reader.name(str(error)), 2)
        except BrokenPipeError:  # `rankeval ... | head`: quiet, as the Python docs advise
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 1
    return 0  # pragma: no cover


def command() -> NoReturn:
    """``rankeval`` as a process: :func:`main`'s exit status, the output flushed, then
    the process ends without the interpreter's teardown (freeing polars' modules and
    objects takes ~40 ms of CPU, as much as evaluating a 50k-line run).  Every file the
    command writes is closed by :func:`main`; the reading threads it may leave are done
    with.  Tests call :func:`main`, which returns.

    >>> command  # doctest: +ELLIPSIS
    <function command at ...>
    """
    status = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # `rankeval ... | head` closed the pipe after main returned
        status = status or 1
    except (OSError, ValueError):  # stdout closed or gone: nothing left to write
        pass
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(status)


def _fail(message: str, status: int) -> int:
    print(f"{PROG}: error: {cli_words(message)}", file=sys.stderr)
    return status
