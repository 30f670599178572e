"""workbench.files: regular files only, sizes first, bounded reads, atomic writes; and errors
that stay on one line."""

from __future__ import annotations

import os
import threading

import pytest

from workbench.errors import InputError, one_line
from workbench.files import atomic_write, check_writable, read_bytes


def test_special_files_are_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe.hlo"
    os.mkfifo(fifo)
    done = []
    t = threading.Thread(target=lambda: done.append(pytest.raises(InputError, read_bytes,
                                                                   fifo, 1 << 20)))
    t.start()
    t.join(5)
    assert done and "a FIFO (named pipe), not a regular file" in str(done[0].value)
    for path, kind in (("/dev/zero", "character device"), (str(tmp_path), "directory")):
        with pytest.raises(InputError, match=kind):
            read_bytes(path, 1 << 20)
    link = tmp_path / "zeros.hlo"
    link.symlink_to("/dev/zero")
    with pytest.raises(InputError, match="character device"):
        read_bytes(link, 1 << 20)


def test_the_size_is_checked_before_reading_and_reads_are_bounded(tmp_path):
    f = tmp_path / "big.json"
    f.write_bytes(b"x" * 3000)
    assert read_bytes(f, 3000) == b"x" * 3000
    with pytest.raises(InputError, match="more than the 0 MiB limit .raise it with --x"):
        read_bytes(f, 2999, limit_name="--x")


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    out = tmp_path / "plan.json"
    out.write_text("old")
    os.chmod(out, 0o640)

    def half(f):
        f.write("new, half")
        raise RuntimeError("the run failed")
    with pytest.raises(RuntimeError):
        atomic_write(out, half)
    assert out.read_text() == "old" and sorted(os.listdir(tmp_path)) == ["plan.json"]
    atomic_write(out, lambda f: f.write("new"))
    assert out.read_text() == "new" and (out.stat().st_mode & 0o777) == 0o640
    atomic_write(tmp_path / "b.bin", lambda f: f.write(b"\x00\x01"), binary=True)
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"


def test_outputs_that_cannot_be_files_are_refused_before_any_work(tmp_path):
    fifo = tmp_path / "out.npz"
    os.mkfifo(fifo)
    for path, match in ((fifo, "FIFO"), (tmp_path, "directory"), ("/dev/null", "device"),
                        (tmp_path / "no" / "x.json", "does not exist"),
                        (str(tmp_path) + os.sep, "directory")):
        with pytest.raises(InputError, match=match):
            check_writable(path)
    assert fifo.exists() and not fifo.is_file()   # left as it was


def test_error_lines_escape_control_characters_and_cut_long_text():
    err = InputError("bad " + "7" * 200_000, file="/data/a\nb.hlo", line=3, node="x\x1b[31m")
    text = str(err)
    assert "\n" not in text and "\x1b" not in text and "a\\nb.hlo:3" in text
    assert len(text) < 1000 and "200,004 characters in all" in text
    long_path = "/d/" + "p" * 5000 + "/model.hlo"
    assert str(InputError("x", file=long_path)).startswith("…") and "model.hlo" in str(
        InputError("x", file=long_path))
    assert one_line("ok \u202eevil", 50) == "ok \\u202eevil"
