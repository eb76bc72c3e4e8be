"""ANSI colour for the text formats: when to use it, and how each part is styled.

Colour is for a person at a terminal, so ``--color auto`` (the default) decides
from where the report goes: never into a file (``--output-file``), never when
``NO_COLOR`` is set to a non-empty value (https://no-color.org), always when
``FORCE_COLOR`` is (for CI logs that render ANSI but are not terminals), and
otherwise only when standard output is a terminal. A pipe, a redirect or
pre-commit therefore gets the same bytes as before colour existed.

Only the parts a reader scans for are styled: the location, the rule code and
the numbers (percentages in messages and help, counts in ``--statistics``).
Each helper returns its text unchanged when colour is off, so that the
uncoloured output is byte for byte what it always was. The machine-readable
formats never call these helpers.
"""

from __future__ import annotations

import re
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

COLOR_CHOICES: tuple[str, ...] = ("auto", "always", "never")

# A percentage as the model's sentences write them ("2.8%", "41.0%", "0.079%"), not
# one inside a word or a longer number.
# A pattern string, compiled (and cached by re) on first use: every run imports this
# module to decide on colour, and most never colour anything.
_PERCENT = r"(?<![\w.])\d+(?:\.\d+)?%"


def colour_enabled(choice: str, stream: IO[str] | None, environ: Mapping[str, str]) -> bool:
    """Whether the text formats are coloured: ``choice`` is ``--color``, ``stream``
    where the report is printed (None: it goes to a file), ``environ`` the environment.

    ``always`` and ``never`` are obeyed as given. ``auto`` is off for a file and
    when ``NO_COLOR`` is non-empty, on when ``FORCE_COLOR`` is non-empty, else on
    exactly when ``stream`` is a terminal. A stream that cannot say (closed,
    replaced by a test harness) is not a terminal.
    """
    if choice == "always":
        return True
    if choice == "never" or stream is None:
        return False
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return False


def _paint(text: str, on: bool, **style: Any) -> str:
    """click's ANSI styling (the CLI's own library), or the text as it is."""
    if not (on and text):
        return text
    import click

    return click.style(text, **style)


def location(text: str, on: bool) -> str:
    """``path:line:column``, bold: where to look."""
    return _paint(text, on, bold=True)


def code(text: str, on: bool) -> str:
    """A rule code, bold red: what was found."""
    return _paint(text, on, bold=True, fg="red")


def number(text: str, on: bool) -> str:
    """A number that stands alone (a count), cyan."""
    return _paint(text, on, fg="cyan")


def percentages(text: str, on: bool) -> str:
    """``text`` with every percentage in it cyan: the loss a sentence states."""
    if not on:
        return text
    return re.sub(_PERCENT, lambda match: number(match.group(0), on), text)
