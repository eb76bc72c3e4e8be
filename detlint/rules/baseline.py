"""The baseline: today's findings recorded, so that a run reports only new ones.

Adopting a linter on a repository with a hundred reruns should not mean fixing
them all first. ``--write-baseline FILE`` records every finding; ``--baseline
FILE`` then hides the recorded ones and counts those that are gone.

A finding is recorded by a fingerprint of its rule code, its path and the text
of the lines its primary span covers (comments dropped, whitespace collapsed),
never its line number: inserting or deleting lines above a knob, or
re-indenting it, leaves it recorded, while changing the knob itself
(``reruns=3`` to ``reruns=5``) makes it a new finding. Identical knobs in one
file share a fingerprint and are matched as a multiset: two recorded copies
cover two, and a third copy is new.

A finding on a knob many tests share (a job retry stacked on their reruns,
DET501) also records the tests it speaks for: it matches an entry only when the
entry names every one of its tests, so a new test under an old retry is new. An
entry written before tests were recorded matches whatever tests.

An entry counts as gone only when the run covered its file (the file, or a
directory above it, was among the paths checked): a hook that checks two files
does not call the entries of every other file gone, which would invite deleting
live entries.

Paths are stored as shown (POSIX, relative to the working directory), so a
baseline is compared from the directory it was written in.

Writing replaces a regular file, or makes a new one; anything else under the
name (a directory, a FIFO, a device) is refused, never replaced. A baseline
that is a symlink is treated as ``--fix`` treats one: its target is written
when its real path is inside the project, and it is refused otherwise. A
baseline larger than ``MAX_BASELINE_BYTES`` is not read (``/dev/zero`` has no end).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import secrets
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from detlint.rules.finding import Finding

BASELINE_SCHEMA = "detlint.baseline/1"

# A comment: '#' at the start of a line or after whitespace (Python, YAML, TOML, shell).
_COMMENT = re.compile(r"(?:^|(?<=\s))#.*$")


_KEYS = ("code", "path", "fingerprint")  # what matching reads; line and message are for people

# A baseline entry takes about 300 bytes with its message: this is some 400,000 findings.
MAX_BASELINE_BYTES = 128 * 1024 * 1024


class BaselineError(ValueError):
    """A baseline that cannot be read or written; its message is one line."""


# One recorded entry as matching reads it: code, path, fingerprint, and the tests it
# speaks for (None: any, for entries without a list of tests).
_Entry = tuple[str, str, str, frozenset[str] | None]


@dataclass(frozen=True)
class BaselineResult:
    new: tuple[Finding, ...]  # findings the baseline does not hold
    matched: int  # findings the baseline holds (not reported)
    gone: int  # recorded findings no longer found


def _normalise(text: str) -> str:
    return " ".join(" ".join(_COMMENT.sub("", line).split()) for line in text.splitlines())


def fingerprint(finding: Finding, line_text: str) -> str:
    """A stable identity for ``finding`` whose primary span covers ``line_text``.

    Built from the code, the path and the normalised text: the line number is
    left out so that edits elsewhere in the file do not change it.
    """
    key = "\0".join((finding.code, finding.span.path, _normalise(line_text)))
    return hashlib.sha256(key.encode("utf-8", errors="surrogatepass")).hexdigest()[:20]


def fingerprints(findings: Sequence[Finding], cwd: Path) -> list[str]:
    from detlint.base.source_lines import SourceLines

    sources = SourceLines(cwd)
    result = []
    for finding in findings:
        lines = sources.utf8_lines(finding.span.path)
        text = "\n".join(lines[finding.span.line - 1 : finding.span.end_line])
        result.append(fingerprint(finding, text))
    return result


def _temporary_beside(target: Path) -> tuple[int, str]:
    """A new, empty file in ``target``'s directory, open for writing: (descriptor, path).

    A baseline is usually committed for the whole team, so a new one must get the
    permissions any other new file of the user's gets, not the private 0o600 of
    ``tempfile.mkstemp``. It is created with mode 0o666 and the system takes away
    the umask (or applies the directory's default ACL), exactly as for
    ``open(target, "w")``. O_EXCL makes sure the file is a new one, never one
    that already exists or a symlink someone planted under the random name.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        name = str(target.parent / f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(name, flags, 0o666), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", str(target.parent))


def _mode(target: Path) -> int | None:
    """The permission bits of the file at ``target``, None when there is none yet.

    Rewriting a baseline replaces the file, so without this a baseline someone
    made private (or group-writable) would silently get the new-file mode.
    """
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        return None


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _target(path: Path, cwd: Path, root: Path | None) -> Path:
    """The file writing the baseline ``path`` replaces (or makes): the path itself, or
    a symlink's target inside the project ``root``; BaselineError for any other."""
    target = Path(os.path.abspath(cwd / path))
    if os.path.islink(target):
        real = os.path.realpath(target)
        top = os.path.realpath(root if root is not None else cwd)
        if os.path.commonpath([top, real]) != top:
            raise BaselineError(
                f"cannot write baseline {path}: a symlink to {real}, outside the project ({top})"
            )
        target = Path(real)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target
    except OSError as error:
        raise BaselineError(f"cannot write baseline {path}: {error.strerror}") from None
    for is_kind, kind in _KINDS:
        if is_kind(mode):
            raise BaselineError(f"cannot write baseline {path}: {kind}, not a regular file")
    return target


def write_baseline(
    path: Path, findings: Sequence[Finding], cwd: Path, root: Path | None = None
) -> int:
    """Record ``findings`` in ``path`` (JSON, sorted, written atomically); the count written.

    A new file gets the user's umask, as any file they create does; a file being
    rewritten keeps its permission bits. ``root`` is the project's root (the working
    directory when None): a symlink is followed only to a file inside it.
    """
    ordered = sorted(findings, key=lambda finding: finding.sort_key)
    entries = [
        {
            "code": finding.code,
            "path": finding.span.path,
            "fingerprint": print_,
            "line": finding.span.line,
            "message": finding.message,
            **({"tests": list(finding.tests)} if finding.tests else {}),
        }
        for finding, print_ in zip(ordered, fingerprints(ordered, cwd), strict=True)
    ]
    document = {"schema": BASELINE_SCHEMA, "findings": entries}
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    target = _target(path, cwd, root)
    temporary: str | None = None
    try:
        descriptor, temporary = _temporary_beside(target)
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        existing = _mode(target)
        if existing is not None:
            os.chmod(temporary, existing)
        os.replace(temporary, target)
        temporary = None
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise BaselineError(f"cannot write baseline {path}: {reason}") from None
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
    return len(entries)


def _entries(path: Path, cwd: Path) -> list[_Entry]:
    """The recorded entries, in the file's order; BaselineError when unusable."""
    try:
        with open(os.path.abspath(cwd / path), "rb") as stream:
            data = stream.read(MAX_BASELINE_BYTES + 1)
        if len(data) > MAX_BASELINE_BYTES:
            limit = MAX_BASELINE_BYTES // (1024 * 1024)
            raise BaselineError(f"cannot read baseline {path}: larger than {limit} MiB")
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = (
            (error.strerror or type(error).__name__)
            if isinstance(error, OSError)
            else "not UTF-8 text"
        )
        raise BaselineError(f"cannot read baseline {path}: {reason}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise BaselineError(f"baseline {path} is not valid JSON: {error.msg}") from None
    except RecursionError:  # json recurses once per level of nesting
        raise BaselineError(f"baseline {path} is JSON nested too deeply to read") from None
    if not isinstance(document, dict) or document.get("schema") != BASELINE_SCHEMA:
        raise BaselineError(f"{path} is not a detlint baseline (schema {BASELINE_SCHEMA!r})")
    findings = document.get("findings")
    if not isinstance(findings, list):
        raise BaselineError(f"baseline {path} has no list of findings")
    recorded: list[_Entry] = []
    for number, entry in enumerate(findings, start=1):
        code, shown, print_ = (
            (entry.get(key) for key in _KEYS) if isinstance(entry, dict) else (None,) * 3
        )
        if not (isinstance(code, str) and isinstance(shown, str) and isinstance(print_, str)):
            raise BaselineError(
                f"baseline {path}: finding {number} needs string code, path and fingerprint"
            )
        tests = entry.get("tests")
        if tests is not None and not (
            isinstance(tests, list) and all(isinstance(test, str) for test in tests)
        ):
            raise BaselineError(f"baseline {path}: finding {number} has tests that are not strings")
        recorded.append((code, shown, print_, None if tests is None else frozenset(tests)))
    return recorded


def covered_by(paths: Sequence[Path], cwd: Path) -> Callable[[str], bool]:
    """Whether a path as shown (relative to ``cwd``) lies in what a run over ``paths``
    checked: one of them, or under one that is a directory (no paths: ``cwd``)."""
    tops = [os.path.abspath(cwd / path) for path in paths or [Path(".")]]

    def covered(shown: str) -> bool:
        absolute = os.path.abspath(cwd / shown)
        for top in tops:
            try:
                if os.path.commonpath([absolute, top]) == top:
                    return True
            except ValueError:  # different drives on Windows
                continue
        return False

    return covered


def compare_baseline(
    path: Path,
    findings: Sequence[Finding],
    cwd: Path,
    covered: Callable[[str], bool] | None = None,
) -> BaselineResult:
    """Split ``findings`` into new ones and ones the baseline at ``path`` records.

    Of identical findings (one fingerprint) beyond the recorded count, the
    later ones in the file are new; a finding that names tests matches only an
    entry that names them all. ``new`` is in path and line order. ``gone`` counts
    the unmatched entries whose path ``covered`` accepts (every one without it).
    """
    remaining: dict[tuple[str, str, str], list[frozenset[str] | None]] = {}
    for code, shown, print_, tests in _entries(path, cwd):
        remaining.setdefault((code, shown, print_), []).append(tests)
    ordered = sorted(findings, key=lambda finding: finding.sort_key)
    new: list[Finding] = []
    for finding, print_ in zip(ordered, fingerprints(ordered, cwd), strict=True):
        candidates = remaining.get((finding.code, finding.span.path, print_), [])
        match = next(
            (
                index
                for index, tests in enumerate(candidates)
                if tests is None or tests.issuperset(finding.tests)
            ),
            None,
        )
        if match is None:
            new.append(finding)
        else:
            del candidates[match]
    gone = sum(
        len(left) for (_, shown, _), left in remaining.items() if covered is None or covered(shown)
    )
    return BaselineResult(new=tuple(new), matched=len(ordered) - len(new), gone=gone)
