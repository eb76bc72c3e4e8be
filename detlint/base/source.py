"""Reading one file's bytes and text without ever raising.

detlint runs over whole repositories in pre-commit hooks and CI, where one odd
file (a FIFO, a 200 MB fixture, a Latin-1 module, a PNG named ``.py``, a file
deleted mid-run) must become one DET901 line and never a traceback or a hang.
Every failure here is therefore returned as a :class:`~detlint.base.span.Problem`
whose message is a single sentence a user can act on; callers decide whether a
problem is reported (files being linted) or dropped (context files).

Text is decoded exactly, never with ``errors="replace"``: facts carry spans and
fixes edit bytes, so a silently altered character would move columns or corrupt
a file on write. Line endings are kept as they are for the same reason.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import stat
import tokenize
from collections.abc import Iterator
from pathlib import Path

from detlint.base.span import Problem, Span

MAX_BYTES: int = 5_000_000
"""Files larger than this are skipped by default (``max-file-size``): no real test
module or CI file is this big, and generated or vendored blobs would only cost time
and memory."""

# The run's limit, as ``max-file-size`` sets it: one value for the whole run, set before
# any file is read (forked workers inherit it).
_LIMIT = [MAX_BYTES]


def set_max_bytes(limit: int) -> None:
    """Skip files larger than ``limit`` bytes from now on (``max-file-size``)."""
    _LIMIT[0] = limit


def size_limit() -> int:
    """The size over which a file is skipped in this run."""
    return _LIMIT[0]


# Opening a FIFO for reading blocks until a writer appears; O_NONBLOCK makes the
# open return at once so that fstat can reject it. It is a no-op for regular files.
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)

_UTF16_32_BOMS = (
    codecs.BOM_UTF32_LE,
    codecs.BOM_UTF32_BE,
    codecs.BOM_UTF16_LE,
    codecs.BOM_UTF16_BE,
)

_BINARY = "binary file, not Python source"
_CHUNK = 1 << 16


def _megabytes(size: int) -> str:
    """Decimal megabytes with one digit, so that the 5_000_000 limit reads as "5.0 MB";
    bytes under 100 kB (a ``max-file-size`` set that low), which would read "0.0 MB"."""
    if size < 100_000:
        return f"{size} bytes"
    return f"{size / 1_000_000:.1f} MB"


def _reason(error: OSError) -> str:
    """The OS's own short reason ("permission denied"), without the path or errno number.

    The path is already in the problem's span, and ``str(error)`` would repeat it
    together with ``[Errno 13]`` noise.
    """
    if error.strerror:
        reason = error.strerror
    elif error.args:
        reason = str(error.args[-1])
    else:
        reason = type(error).__name__
    reason = " ".join(reason.split())  # one line, whatever the OS or a mock says
    # "Permission denied" -> "permission denied", but "OSError" and "EOF" stay as they are.
    return reason[:1].lower() + reason[1:] if reason[1:2].islower() else reason


def _os_problem(display: str, error: OSError, path: Path | None = None) -> Problem:
    """Translate an OSError into the problem a user understands."""
    if isinstance(error, FileNotFoundError) and path is not None and os.path.islink(path):
        return Problem(Span.file(display), "broken symbolic link")
    if isinstance(error, FileNotFoundError):
        # The file was listed by discovery a moment ago; it was deleted or
        # renamed since (a build running alongside, a checkout switching).
        return Problem(Span.file(display), "vanished while reading")
    if isinstance(error, IsADirectoryError):
        return Problem(Span.file(display), "is a directory")
    return Problem(Span.file(display), f"cannot read: {_reason(error)}")


def _file_type(mode: int) -> str:
    """A plain name for a non-regular file type, for the "not a regular file" problem."""
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


# Text that stands in for a file's (absolute path -> bytes): what `detlint check -
# --stdin-filename PATH` read from standard input, which an editor or a wrapper holds
# unsaved. Empty outside such a run, so that every other read costs one truth test.
_UNSAVED: dict[str, bytes] = {}


@contextlib.contextmanager
def unsaved_text(path: Path, data: bytes) -> Iterator[None]:
    """Within the block, reading ``path`` gives ``data`` whatever the disk holds."""
    key = os.path.abspath(path)
    _UNSAVED[key] = data
    try:
        yield
    finally:
        _UNSAVED.pop(key, None)


def replace_unsaved(path: Path, data: bytes) -> bool:
    """Let ``data`` stand in for ``path`` from now on, if text already stands in for
    it (``--fix`` on standard input edits the text read, never the disk)."""
    key = os.path.abspath(path)
    if key not in _UNSAVED:
        return False
    _UNSAVED[key] = data
    return True


def stand_in(path: Path) -> bytes | None:
    """The text standing in for ``path`` in this run (``unsaved_text``), None for the disk's:
    for readers that open files themselves, as pytest's config readers do."""
    return _UNSAVED.get(os.path.abspath(path)) if _UNSAVED else None


def unsaved_paths() -> tuple[str, ...]:
    """The absolute paths whose text stands in for the disk's in this run."""
    return tuple(_UNSAVED)


def read_bytes(path: Path, display: str, max_bytes: int | None = None) -> bytes | Problem:
    """The file's bytes, or a Problem; never raises for I/O errors.

    The file is opened once and checked with ``fstat`` on the open descriptor, so
    the type and size checks see the same file that is read (no check-then-open
    race). Reading stops one byte past the limit, so a file that grows while it
    is read, or one whose size the OS reports as 0 (``/proc``), cannot exhaust
    memory. ``max_bytes`` defaults to the run's ``max-file-size``.
    """
    if max_bytes is None:
        max_bytes = _LIMIT[0]
    if _UNSAVED and (unsaved := _UNSAVED.get(os.path.abspath(path))) is not None:
        if len(unsaved) > max_bytes:
            size = _megabytes(len(unsaved))
            return Problem(Span.file(display), f"input is {size}, {_over_limit(max_bytes)}")
        return unsaved
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as error:
        return _os_problem(display, error, path)
    except ValueError:  # e.g. a NUL character inside the path itself
        return Problem(Span.file(display), "cannot read: invalid file name")
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            return Problem(Span.file(display), "is a directory")
        if not stat.S_ISREG(info.st_mode):
            kind = _file_type(info.st_mode)
            return Problem(Span.file(display), f"cannot read: is {kind}, not a regular file")
        if info.st_size > max_bytes:
            size = _megabytes(info.st_size)
            return Problem(Span.file(display), f"file is {size}, {_over_limit(max_bytes)}")
        chunks: list[bytes] = []
        total = 0
        while total <= max_bytes:
            # Ask for what fstat reported and a byte more (at least a 64 KB chunk,
            # for files that grow or report 0), not for the limit: a buffer of the
            # limit's size would be allocated for every read.
            wanted = max(info.st_size + 1 - total, _CHUNK)
            chunk = os.read(fd, min(max_bytes + 1 - total, wanted))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as error:
        return _os_problem(display, error)
    finally:
        with contextlib.suppress(OSError):  # the data (or problem) is already in hand
            os.close(fd)
    if total > max_bytes:
        return Problem(
            Span.file(display), f"file grew while reading and is {_over_limit(max_bytes)}"
        )
    return b"".join(chunks)


def _over_limit(max_bytes: int) -> str:
    return f"over the {_megabytes(max_bytes)} limit; skipped"


def _binary_problem(data: bytes, display: str, what: str) -> Problem | None:
    """A problem when ``data`` is not text at all, else None.

    Python refuses source with NUL bytes, and no YAML/TOML/INI file detlint reads
    has any, so a NUL byte reliably means an image, archive or compiled file.
    UTF-16/32 text also contains NULs; it gets its own message, because "binary"
    would send the user looking for the wrong thing.
    """
    if b"\x00" not in data:
        return None
    if data.startswith(_UTF16_32_BOMS):
        return Problem(
            Span.file(display), "file is UTF-16 or UTF-32 encoded; only UTF-8 is supported"
        )
    return Problem(Span.file(display), what)


def refuse_binary(data: bytes | Problem) -> bytes | Problem:
    """A test module's bytes, or the problem that they are binary (an ELF or an archive
    named ``test_x.py``, which pytest fails to import): a DET901, never a clean file,
    however few knob tokens its bytes hold."""
    if isinstance(data, Problem) or b"\x00" not in data:
        return data
    return _binary_problem(data, "", _BINARY) or data


def _undecodable(data: bytes, offset: int, encoding: str, display: str) -> Problem:
    """The problem for the first byte that does not decode, with offset and line."""
    line = data.count(b"\n", 0, offset) + 1
    byte = data[offset] if offset < len(data) else None
    shown = f"byte 0x{byte:02x}" if byte is not None else "truncated character"
    return Problem(
        Span.file(display),
        f"cannot decode as {encoding}: {shown} at byte offset {offset} (line {line})",
    )


def _decode(data: bytes, encoding: str, display: str) -> str | Problem:
    """Decode strictly; a UTF-8 BOM is removed and counted in error offsets."""
    skip = 0
    if encoding in ("utf-8-sig", "utf-8") and data.startswith(codecs.BOM_UTF8):
        skip = len(codecs.BOM_UTF8)
        encoding = "utf-8"
    try:
        return data[skip:].decode(encoding)
    except UnicodeDecodeError as error:
        return _undecodable(data, skip + error.start, encoding, display)
    except (LookupError, ValueError):  # "rot13", "base64": codecs that are not text encodings
        return Problem(Span.file(display), f"cannot decode: {encoding!r} is not a text encoding")


def decode_python(data: bytes, display: str) -> str | Problem:
    """Decode Python source the way the interpreter does, or return a Problem.

    ``tokenize.detect_encoding`` applies the same rules as Python: a UTF-8 BOM,
    then a PEP 263 coding cookie on line 1 or 2, else UTF-8. The BOM is not part
    of the returned text (as for Python); callers that write a file back must
    re-add it from the original bytes. Line endings are untouched.
    """
    binary = _binary_problem(data, display, _BINARY)
    if binary is not None:
        return binary
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        message = str(error.msg or "")
        if message.startswith("unknown encoding"):
            name = message.partition(":")[2].strip()
            return Problem(Span.file(display), f"unknown encoding {name!r} in the coding cookie")
        if message.startswith("encoding problem"):
            return Problem(
                Span.file(display), "the coding cookie contradicts the UTF-8 byte order mark"
            )
        # Undecodable bytes in the first two lines and no cookie: show where.
        return _decode(data, "utf-8", display)
    return _decode(data, encoding, display)


def decode_text(data: bytes, display: str) -> str | Problem:
    """Decode a YAML, TOML, INI or text file as UTF-8 (BOM allowed), or return a Problem.

    These formats are UTF-8 in practice (TOML requires it; CI systems read YAML
    as UTF-8), so there is no encoding detection beyond the BOM.
    """
    binary = _binary_problem(data, display, "binary file, not text")
    if binary is not None:
        return binary
    return _decode(data, "utf-8", display)
