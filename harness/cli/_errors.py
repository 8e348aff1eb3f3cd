"""The one error path of the ``harness`` command: every failure becomes ``error: ...``.

Every command runs inside ``HarnessGroup.main``; nothing else catches errors.
What reaches it is printed as at most three lines on stderr, starting with
``error:``, and the process exits with a documented code:

```
0    success
1    the command ran and failed (a provider, an approval, a cassette, the disk)
2    usage or configuration: a bad flag or argument, a bad HARNESS_* value, an
     input file that is missing, corrupt or of the wrong kind
3    harness run / approve: the run paused for a human approval
4    harness run / approve: the run hit the step limit without a final answer
130  interrupted (Ctrl-C)
```

``HARNESS_DEBUG=1`` re-raises instead, so the full traceback shows.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import typer

# typer vendors click (typer._click): its exceptions, not the click package's.
from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError
from typer.core import TyperGroup

from harness.cli._terminal import terminal_safe
from harness.core.errors import ConfigurationError, HarnessError
from harness.settings import env_value

if TYPE_CHECKING:
    from pydantic import ValidationError

__all__ = [
    "EXIT_APPROVAL_REQUIRED",
    "EXIT_FAILURE",
    "EXIT_MAX_STEPS",
    "EXIT_USAGE",
    "HarnessGroup",
    "describe_error",
    "explain_validation",
    "fail",
]

EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_APPROVAL_REQUIRED = 3
EXIT_MAX_STEPS = 4
_MAX_LINES = 3


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Print a one-line error and exit non-zero (for a command's own checks)."""
    _print_error(message)
    raise typer.Exit(code)


def debug_enabled() -> bool:
    try:
        value = env_value("debug") or ""
    except ConfigurationError:
        return False  # asked while reporting an error; that error says what is wrong with .env
    return value.lower() in ("1", "true", "yes", "on")


def explain_validation(exc: ValidationError) -> str:
    """A pydantic error in plain words: no ``Value error,`` prefix, no URL."""
    problems = []
    for error in exc.errors(include_url=False):
        message = str(error["msg"]).removeprefix("Value error, ")
        where = ".".join(str(part) for part in error["loc"])
        # A validator's own message already names what it checked.
        problems.append(
            message if error["type"] == "value_error" or not where else f"{where}: {message}"
        )
    return "; ".join(problems) or str(exc)


def describe_error(exc: BaseException) -> tuple[str, int]:
    """The one-line message and the exit code for an error that reached the CLI."""
    # Imported here: `harness --help` must not pay for pydantic.
    from pydantic import ValidationError

    if isinstance(exc, ConfigurationError):
        return str(exc), EXIT_USAGE
    if isinstance(exc, HarnessError):
        return str(exc), EXIT_FAILURE
    if isinstance(exc, ValidationError):
        return f"invalid input: {explain_validation(exc)}", EXIT_USAGE
    if isinstance(exc, json.JSONDecodeError):
        return (
            f"invalid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}; "
            "fix or replace the file",
            EXIT_USAGE,
        )
    if isinstance(exc, UnicodeDecodeError):
        return f"a file is not UTF-8 text ({exc.reason}); give a UTF-8 text file", EXIT_USAGE
    if isinstance(exc, RecursionError):
        return "the input is nested too deeply to read; give a flatter file", EXIT_USAGE
    if isinstance(exc, OSError):
        return _describe_os_error(exc), EXIT_FAILURE
    return (
        f"internal error ({type(exc).__name__}: {exc}); run again with HARNESS_DEBUG=1 "
        "for the traceback and report it",
        EXIT_FAILURE,
    )


def _describe_os_error(exc: OSError) -> str:
    what = exc.strerror or str(exc)
    where = f" {exc.filename}" if exc.filename is not None else ""
    return f"cannot use{where}: {what}; check the path and its permissions"


_PYDANTIC_HEAD = re.compile(r"\d+ validation errors? for [\w.\[\]]+\s*$")
_PYDANTIC_URL = re.compile(r"^\s*For further information visit https?://[^\s;]+")
_PYDANTIC_TYPE = re.compile(r"\s*\[type=[^\]]*\]")


def plain_words(message: str) -> str:
    """Fold a pydantic report embedded in ``message`` into ``loc: problem; ...``.

    Readers quote pydantic's many-line report (a header, then a location line,
    an indented problem with ``[type=...]`` and a URL per problem); the CLI
    shows the same facts on one line, without the URL.
    """
    stripped = (_PYDANTIC_URL.sub("", line) for line in message.splitlines())
    lines = [line for line in stripped if line.strip()]
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        head = _PYDANTIC_HEAD.search(line)
        index += 1
        if head is None:
            if line.strip():
                out.append(line.strip() if out and out[-1].endswith(" ") else line)
            continue
        problems = []
        while index + 1 < len(lines) and lines[index + 1].startswith("  "):
            where = lines[index].strip()
            problem = _PYDANTIC_TYPE.sub("", lines[index + 1].strip())
            problems.append(f"{where}: {problem.removeprefix('Value error, ')}")
            index += 2
        out.append(line[: head.start()] + "; ".join(problems))
    # What followed the report (e.g. "; nothing was executed") joins the last line.
    joined: list[str] = []
    for line in out:
        if joined and line.lstrip().startswith(";"):
            joined[-1] += line.strip()
        else:
            joined.append(line)
    return "\n".join(joined)


def _print_error(message: str) -> None:
    text = plain_words(str(message))
    lines = [line for line in text.splitlines() if line.strip()] or ["(no message)"]
    if len(lines) > _MAX_LINES:
        hidden = len(lines) - _MAX_LINES + 1
        lines = [
            *lines[: _MAX_LINES - 1],
            f"... ({hidden} more line(s); HARNESS_DEBUG=1 shows all)",
        ]
    typer.echo(terminal_safe("error: " + "\n".join(lines)), err=True)


def _usage_message(exc: UsageError) -> str:
    command = exc.ctx.command_path if exc.ctx is not None else "harness"
    # typer checks values with pydantic-style validators; say it in plain words.
    message = exc.format_message().replace("Value error, ", "")
    message = message.replace("Input should be", "it must be")
    return f"{message} (see '{command} --help')"


class HarnessGroup(TyperGroup):
    """The root command group: runs every command inside the one error path."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        code = self._main_with_errors(args, prog_name, complete_var, **extra)
        if not standalone_mode:
            return code
        sys.exit(code)

    def _main_with_errors(
        self,
        args: Sequence[str] | None,
        prog_name: str | None,
        complete_var: str | None,
        **extra: Any,
    ) -> int:
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except NoArgsIsHelpError as exc:
            exc.show()  # bare `harness` or `harness sim`: the help, not an error line
            return EXIT_USAGE
        except UsageError as exc:
            _print_error(_usage_message(exc))
            return EXIT_USAGE
        except ClickException as exc:
            _print_error(exc.format_message())
            return exc.exit_code
        except typer.Abort:
            _print_error("aborted")
            return EXIT_FAILURE
        except Exception as exc:
            if debug_enabled():
                raise
            message, exit_code = describe_error(exc)
            _print_error(message)
            return exit_code
        return code if isinstance(code, int) else 0
