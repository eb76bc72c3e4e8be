"""The marks one level applies to its tests, split by what each is read for.

A test's decorators, its classes' decorators and ``pytestmark``, and its module's
``pytestmark`` each apply marks, all resolved the same way whatever their spelling
(``MarkResolver.applied``: a literal mark, a local alias, one imported from a helper
or a conftest.py). A knob (a rerun, a skip) is one of the test's marks; a
``parametrize`` multiplies its instances and gives some of its arguments values; a
``usefixtures`` requests fixtures. Each level is read once, and a test joins its own
to those around it, closest first, as pytest's ``iter_markers`` sees them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from detlint.readers.python.facts import Mark, Parametrized
from detlint.readers.python.fixtures import used_fixtures
from detlint.readers.python.parametrize import given, instances

# Kinds of marks that are decorators or calls, not pytest markers ``-m`` can match.
_NOT_MARKERS = frozenset(
    {
        "retry-decorator",
        "flaky-decorator",
        "unittest-skip",
        "unittest-xfail",
        "xfail-call",
        "skip-call",
    }
)


@dataclass(frozen=True)
class Applied:
    """What the marks of one level (or of a test and the levels around it) do."""

    knobs: tuple[Mark, ...] = ()
    instances: int | None = 1  # None when a parametrize's values cannot be counted
    param_marks: tuple[tuple[int, Mark], ...] = ()  # (instances covered, mark)
    given: frozenset[str] | None = frozenset()  # names parametrize gives values to
    fixtures: tuple[str, ...] = ()  # names usefixtures requests
    tables: tuple[Parametrized, ...] = ()  # the parametrize tables that always apply
    marked: frozenset[str] = frozenset()  # the names of every mark, as pytest knows them

    @classmethod
    def of(cls, marks: Sequence[Mark]) -> Applied:
        count, param_marks = instances(marks)
        return cls(
            knobs=tuple(mark for mark in marks if mark.kind != "marker"),
            instances=count,
            param_marks=tuple(param_marks),
            given=given(marks),
            fixtures=tuple(used_fixtures(marks)),
            tables=tuple(
                mark.table for mark in marks if mark.table is not None and not mark.guards
            ),
            marked=frozenset(
                mark.name.rsplit(".", 1)[-1] for mark in marks if mark.kind not in _NOT_MARKERS
            ),
        )

    def within(self, outer: Applied) -> Applied:
        """This level inside ``outer`` (a test in its class, a class in its module):
        instances multiply, and its own marks come first."""
        total = (
            None
            if self.instances is None or outer.instances is None
            else self.instances * outer.instances
        )
        names = None if self.given is None or outer.given is None else self.given | outer.given
        return Applied(
            knobs=(*self.knobs, *outer.knobs),
            instances=total,
            param_marks=(*self.param_marks, *outer.param_marks),
            given=names,
            fixtures=(*self.fixtures, *outer.fixtures),
            tables=(*self.tables, *outer.tables),
            marked=self.marked | outer.marked,
        )


NO_MARKS = Applied()
