"""The ``detlint`` command line: the group, its error handling and its commands.

Errors are one line on stderr and exit status 2, never a traceback: detlint
runs in pre-commit hooks and CI logs, where a usage banner or a stack trace
buries the one sentence that matters. ``DETLINT_DEBUG=1`` shows tracebacks
for internal errors.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence
from typing import Any

import click

from detlint import __version__

EXIT_USAGE = 2


# Each command lives in a module of its own, imported only when it runs (or for
# --help): a pre-commit run of `check` does not define the calculator's options.
COMMANDS = {
    "audit": "detlint.cli.audit",
    "check": "detlint.cli.check",
    "clean": "detlint.cli.clean",
    "evidence": "detlint.cli.evidence",
    "power": "detlint.cli.power",
    "rule": "detlint.cli.rule",
}


class DetlintGroup(click.Group):
    """A click group that loads its commands lazily and reports every error in one
    line with exit status 2."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is None:
            return None
        import importlib

        command: click.Command = getattr(importlib.import_module(module), cmd_name)
        return command

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            result = super().main(args, prog_name, complete_var, False, **extra)
        except click.exceptions.NoArgsIsHelpError as error:
            error.show()  # bare `detlint`: the help text, not an error line
            sys.exit(EXIT_USAGE)
        except click.ClickException as error:
            context = getattr(error, "ctx", None)
            where = context.command_path if context is not None else "detlint"
            click.echo(f"{where}: error: {error.format_message()}", err=True)
            sys.exit(EXIT_USAGE)
        except click.Abort:
            click.echo("detlint: aborted", err=True)
            sys.exit(EXIT_USAGE)
        except Exception as error:  # an internal error must not reach users as a traceback
            if os.environ.get("DETLINT_DEBUG"):
                raise
            click.echo(
                f"detlint: internal error: {type(error).__name__}: {error} "
                "(set DETLINT_DEBUG=1 for the traceback and please report it)",
                err=True,
            )
            sys.exit(EXIT_USAGE)
        sys.exit(result if isinstance(result, int) else 0)


@click.group(cls=DetlintGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="detlint")
def cli() -> None:
    """Find the knobs that make CI quiet and say, in numbers, what each one hides."""


def main() -> None:
    """Console-script entry point.

    One run builds hundreds of thousands of small acyclic facts (steps, runs,
    spans) and then exits; the cyclic garbage collector's passes over them find
    nothing and cost a visible share of a large audit, while reference counting
    frees everything it could. So the process that runs one command does
    without it (``cyclic_gc_paused`` does the same inside a long-lived process).
    """
    gc.disable()
    cli(prog_name="detlint")
