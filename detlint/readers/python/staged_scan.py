"""The Python pass of a run that also reads pipelines, started before they are read.

Which Python files are parsed depends on the pipelines: a test that reads a
variable a pipeline sets is read for DET302, and where pipelines exist, test
files with a trial loop are told apart. Reading the pipelines takes the
cores for a while, and so does reading every Python file's bytes, so the two
overlap: worker processes sift the files at once with everything the
prefilter knows without the pipelines (:meth:`PythonRepository.may_find`
drops only files no variable can bring back), then wait for the variables and
scan what they kept exactly as a run that read the pipelines first would.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from detlint.base.progress import NULL_PROGRESS, Progress, counting
from detlint.base.span import Problem
from detlint.readers.python.options import ScanOptions
from detlint.readers.python.prefilter import Prefilter
from detlint.readers.python.repository import LoopOnly, PythonRepository

if TYPE_CHECKING:
    from detlint.base.parallel import Staged
    from detlint.readers.python.facts import ModuleFacts


class Variables(NamedTuple):
    """What the Python pass learns from the pipelines."""

    names: tuple[bytes, ...] = ()  # the variables they set
    pipelines: bool = False  # whether there are any (then LoopOnly files are noted)


class PythonPass:
    """Python repositories that differ only in what the pipelines told them."""

    def __init__(self, root: Path, cwd: Path, options: ScanOptions, prefilter: Prefilter) -> None:
        self.root, self.cwd, self.options, self.prefilter = root, cwd, options, prefilter
        self.sieve = PythonRepository(root, cwd, options, prefilter)  # knows no variables
        self._repositories: dict[Variables, PythonRepository] = {}

    def repository(self, variables: Variables) -> PythonRepository:
        """The repository that scans with ``variables`` (one per process and value)."""
        found = self._repositories.get(variables)
        if found is None:
            found = self._repositories[variables] = PythonRepository(
                self.root,
                self.cwd,
                self.options,
                self.prefilter.replaced(variables=variables.names),
                note_loops=variables.pipelines,
            )
        return found

    def scan(self, variables: Variables, path: Path) -> ModuleFacts | Problem | LoopOnly | None:
        return self.repository(variables).scan(path)

    def start(
        self, files: list[Path], jobs: int, progress: Progress = NULL_PROGRESS
    ) -> Staged[Variables, Path, ModuleFacts | Problem | LoopOnly | None]:
        """Sift ``files`` in ``jobs`` worker processes now; ``results(variables)`` scans
        what they kept (in this process with one job, which ``progress`` then counts
        file by file; workers report nothing until they are done)."""
        from detlint.base.parallel import Staged

        scan = self.scan
        if jobs <= 1 and progress is not NULL_PROGRESS:
            scan = counting(scan, progress)
        return Staged(self.sieve.may_find, scan, files, jobs, _import_parsing)


def _import_parsing() -> None:
    """Import what parsing a kept file needs (the scanning modules and their facts,
    about 25 ms per process), while the worker waits for the pipelines anyway."""
    import detlint.readers.python.module_scan
    import detlint.readers.python.narrowing
    import detlint.readers.python.parse  # noqa: F401
