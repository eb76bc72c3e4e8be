"""Reading and decoding one file: every failure is one Problem line, never an exception.

The suite runs as root, for whom ``chmod 000`` does not stop a read, so
unreadable files and I/O errors are simulated by making ``os.open`` or
``os.read`` raise the error the OS would give.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from detlint.base.source import MAX_BYTES, decode_python, decode_text, read_bytes
from detlint.base.span import Problem, Span


def problem(display: str, message: str) -> Problem:
    return Problem(Span.file(display), message)


# -- read_bytes ---------------------------------------------------------------------------------


def test_read_bytes_returns_exact_bytes(tmp_path):
    data = b"\xef\xbb\xbfx = 1\r\ny = '\xff'\rz\n\x00"
    (tmp_path / "f.py").write_bytes(data)
    assert read_bytes(tmp_path / "f.py", "f.py") == data


def test_read_bytes_empty_file(tmp_path):
    (tmp_path / "empty.py").write_bytes(b"")
    assert read_bytes(tmp_path / "empty.py", "empty.py") == b""


def test_read_bytes_directory(tmp_path):
    assert read_bytes(tmp_path, "shown") == problem("shown", "is a directory")


def test_read_bytes_oversize_file_is_skipped_with_its_size(tmp_path):
    big = tmp_path / "big.py"
    with big.open("wb") as handle:  # sparse: costs no disk or memory
        handle.truncate(12_300_000)
    assert MAX_BYTES == 5_000_000
    assert read_bytes(big, "big.py") == problem(
        "big.py", "file is 12.3 MB, over the 5.0 MB limit; skipped"
    )


def test_read_bytes_limit_is_inclusive(tmp_path):
    (tmp_path / "ten").write_bytes(b"0123456789")
    (tmp_path / "eleven").write_bytes(b"0123456789A")
    assert read_bytes(tmp_path / "ten", "ten", max_bytes=10) == b"0123456789"
    result = read_bytes(tmp_path / "eleven", "eleven", max_bytes=10)
    assert isinstance(result, Problem)
    assert result.message.endswith("limit; skipped")


def test_read_bytes_file_growing_past_the_limit_is_skipped(tmp_path, monkeypatch):
    # fstat says 3 bytes (as /proc files say 0) but reading yields more than the limit.
    path = tmp_path / "grows.py"
    path.write_bytes(b"x" * 50)
    real_fstat = os.fstat

    def small_fstat(fd):
        info = real_fstat(fd)
        fields = list(info[:10])
        fields[6] = 3  # st_size
        return os.stat_result(fields)

    monkeypatch.setattr(os, "fstat", small_fstat)
    assert read_bytes(path, "grows.py", max_bytes=20) == problem(
        "grows.py", "file grew while reading and is over the 20 bytes limit; skipped"
    )


def test_read_bytes_nonexistent_file_vanished(tmp_path):
    assert read_bytes(tmp_path / "gone.py", "gone.py") == problem(
        "gone.py", "vanished while reading"
    )


def test_read_bytes_file_deleted_between_discovery_and_read(tmp_path, monkeypatch):
    path = tmp_path / "here.py"
    path.write_text("x = 1\n")

    def vanish(*args, **kwargs):
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path))

    monkeypatch.setattr(os, "open", vanish)
    assert read_bytes(path, "here.py") == problem("here.py", "vanished while reading")


def test_read_bytes_unreadable_file(tmp_path, monkeypatch):
    # chmod 000 cannot stop root, so the permission error is simulated.
    path = tmp_path / "secret.py"
    path.write_text("x = 1\n")

    def deny(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(os, "open", deny)
    assert read_bytes(path, "secret.py") == problem("secret.py", "cannot read: permission denied")


def test_read_bytes_io_error_while_reading_closes_the_file(tmp_path, monkeypatch):
    path = tmp_path / "bad_disk.py"
    path.write_text("x = 1\n")
    closed: list[int] = []
    real_close = os.close

    def failing_read(fd, size):
        raise OSError(errno.EIO, "Input/output error")

    def spy_close(fd):
        closed.append(fd)
        real_close(fd)

    monkeypatch.setattr(os, "read", failing_read)
    monkeypatch.setattr(os, "close", spy_close)
    assert read_bytes(path, "bad_disk.py") == problem(
        "bad_disk.py", "cannot read: input/output error"
    )
    assert len(closed) == 1


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (OSError("strange\nmultiline failure"), "cannot read: strange multiline failure"),
        (OSError(), "cannot read: OSError"),
        (IsADirectoryError(errno.EISDIR, "Is a directory"), "is a directory"),
        (InterruptedError(errno.EINTR, "Interrupted system call"), "cannot read: interrupted"),
    ],
)
def test_read_bytes_never_raises_os_errors(tmp_path, monkeypatch, error, message):
    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr(os, "open", fail)
    result = read_bytes(tmp_path / "x.py", "x.py")
    assert isinstance(result, Problem)
    assert result.message.startswith(message)
    assert "\n" not in result.message


def test_read_bytes_fifo_does_not_block(tmp_path):
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)  # opening it for reading without O_NONBLOCK would hang forever
    assert read_bytes(fifo, "pipe.py") == problem(
        "pipe.py", "cannot read: is a named pipe (FIFO), not a regular file"
    )


def test_read_bytes_symlink_loop(tmp_path):
    loop = tmp_path / "loop.py"
    loop.symlink_to(loop)
    result = read_bytes(loop, "loop.py")
    assert result == problem("loop.py", "cannot read: too many levels of symbolic links")


def test_read_bytes_nul_in_path():
    result = read_bytes(Path("bad\0name.py"), "bad?name.py")
    assert result == problem("bad?name.py", "cannot read: invalid file name")


# -- decode_python ------------------------------------------------------------------------------


def test_decode_python_utf8():
    assert decode_python("s = 'héllo ✓'\n".encode(), "m.py") == "s = 'héllo ✓'\n"


def test_decode_python_empty():
    assert decode_python(b"", "m.py") == ""


def test_decode_python_bom_is_removed_like_python_does():
    assert decode_python(b"\xef\xbb\xbfx = '\xc3\xa9'\n", "m.py") == "x = 'é'\n"


@pytest.mark.parametrize(
    "header",
    [b"# -*- coding: latin-1 -*-\n", b"#!/usr/bin/env python\n# vim: set fileencoding=latin-1 :\n"],
    ids=["line-1", "line-2"],
)
def test_decode_python_coding_cookie(header):
    assert decode_python(header + b"s = '\xe9'\n", "m.py") == header.decode() + "s = 'é'\n"


def test_decode_python_cookie_on_line_three_is_ignored_as_python_ignores_it():
    data = b"\n\n# coding: latin-1\ns = '\xe9'\n"
    assert decode_python(data, "m.py") == problem(
        "m.py", "cannot decode as utf-8: byte 0xe9 at byte offset 25 (line 4)"
    )


@pytest.mark.parametrize("newline", ["\r\n", "\r", "\n"])
def test_decode_python_keeps_line_endings(newline):
    text = newline.join(["import pytest", "", "x = 1", ""])
    assert decode_python(text.encode(), "m.py") == text


def test_decode_python_crlf_with_cookie_and_bom_kept():
    data = b"\xef\xbb\xbf# coding: utf-8\r\nx = 1\r\n"
    assert decode_python(data, "m.py") == "# coding: utf-8\r\nx = 1\r\n"


@pytest.mark.parametrize(
    "data",
    [b"x = 1\n\x00\n", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", b"\x7fELF\x02\x01\x01\x00"],
    ids=["nul", "png", "elf"],
)
def test_decode_python_binary(data):
    assert decode_python(data, "m.py") == problem("m.py", "binary file, not Python source")


def test_decode_python_utf16_is_named():
    data = "x = 1\n".encode("utf-16")
    assert decode_python(data, "m.py") == problem(
        "m.py", "file is UTF-16 or UTF-32 encoded; only UTF-8 is supported"
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        # In the first two lines: tokenize.detect_encoding itself rejects it.
        (b"x = '\xff'\n", "cannot decode as utf-8: byte 0xff at byte offset 5 (line 1)"),
        # Further down: the decoder does.
        (
            b"x = 1\ny = 2\nz = '\xc3('\n",
            "cannot decode as utf-8: byte 0xc3 at byte offset 17 (line 3)",
        ),
        # The offset counts the BOM, so it points into the file as stored.
        (b"\xef\xbb\xbfx\n\xff", "cannot decode as utf-8: byte 0xff at byte offset 5 (line 2)"),
        # A multi-byte character cut off at the end of the file.
        (b"x = 1\ns = '\xe2\x82", "cannot decode as utf-8: byte 0xe2 at byte offset 11 (line 2)"),
        (
            b"# coding: ascii\ns = '\xe9'\n",
            "cannot decode as ascii: byte 0xe9 at byte offset 21 (line 2)",
        ),
    ],
    ids=["first-line", "later-line", "after-bom", "truncated", "ascii-cookie"],
)
def test_decode_python_undecodable_names_encoding_and_offset(data, message):
    assert decode_python(data, "m.py") == problem("m.py", message)


def test_decode_python_unknown_cookie():
    assert decode_python(b"# coding: klingon\nx = 1\n", "m.py") == problem(
        "m.py", "unknown encoding 'klingon' in the coding cookie"
    )


def test_decode_python_cookie_contradicting_bom():
    assert decode_python(b"\xef\xbb\xbf# coding: latin-1\nx = 1\n", "m.py") == problem(
        "m.py", "the coding cookie contradicts the UTF-8 byte order mark"
    )


def test_decode_python_cookie_naming_a_non_text_codec():
    assert decode_python(b"# coding: rot13\nx = 1\n", "m.py") == problem(
        "m.py", "cannot decode: 'rot13' is not a text encoding"
    )


@given(st.text().filter(lambda t: "\0" not in t and "coding" not in t))
def test_decode_python_round_trips_any_utf8_text(text):
    assert decode_python(text.encode(), "m.py") == text


# -- decode_text --------------------------------------------------------------------------------


def test_decode_text_utf8_and_empty():
    assert decode_text("steps:\n  - label: ✓\n".encode(), "ci.yml") == "steps:\n  - label: ✓\n"
    assert decode_text(b"", "ci.yml") == ""


def test_decode_text_bom_removed_crlf_kept():
    assert decode_text(b"\xef\xbb\xbfa: 1\r\nb: 2\r\n", "ci.yml") == "a: 1\r\nb: 2\r\n"


def test_decode_text_binary():
    assert decode_text(b"a: 1\n\x00", "ci.yml") == problem("ci.yml", "binary file, not text")


def test_decode_text_ignores_coding_cookies():
    # YAML and TOML are UTF-8; a Python-style cookie must not change that.
    assert decode_text(b"# coding: latin-1\na: '\xe9'\n", "ci.yml") == problem(
        "ci.yml", "cannot decode as utf-8: byte 0xe9 at byte offset 22 (line 2)"
    )


def test_decode_text_invalid_utf8_after_bom():
    assert decode_text(b"\xef\xbb\xbfa: 1\nb: \xff\n", "ci.yml") == problem(
        "ci.yml", "cannot decode as utf-8: byte 0xff at byte offset 11 (line 2)"
    )


@given(st.text().filter(lambda t: "\0" not in t))
def test_decode_text_round_trips_any_utf8_text(text):
    assert decode_text(text.encode(), "t.toml") == text
    assert decode_text(b"\xef\xbb\xbf" + text.encode(), "t.toml") == text
