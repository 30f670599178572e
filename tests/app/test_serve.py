"""``workbench serve``: its options, and a bad file reported before anything is served."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request

from tests.conftest import REPO_ROOT, shared_hlo_dir
from workbench.cli import _load_extra_commands, build_parser


def parse(*argv):
    _load_extra_commands()
    return build_parser().parse_args(["serve", *argv])


def test_serve_binds_to_this_machine_on_port_8050_by_default():
    args = parse()
    assert (args.file, args.host, args.port) == (None, "127.0.0.1", 8050)
    args = parse("mlp", "--port", "9000", "--graph-dir", "a", "--graph-dir", "b")
    assert (args.file, args.port, args.graph_dir) == ("mlp", 9000, ["a", "b"])


def run(*argv, cache):
    """``workbench serve ARGV`` in a subprocess, its caches under ``cache``."""
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), WORKBENCH_CACHE_DIR=str(cache))
    return subprocess.Popen([sys.executable, "-m", "workbench", "serve", *map(str, argv)],
                            cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_a_bad_file_is_an_error_on_the_command_line(tmp_path):
    bad = tmp_path / "bad.hlo"
    bad.write_bytes(b"\x00\x01binary")
    proc = run(bad, cache=tmp_path)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert err.startswith(f"error: {bad}: ") and "binary" in err and "Traceback" not in err


def test_serve_opens_a_real_hlo_module(tmp_path):
    """``workbench serve ../shared/hlo/transformer_block.before.hlo`` answers on its port."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    path = shared_hlo_dir() / "transformer_block.before.hlo"
    proc = run(path, "--port", port, cache=tmp_path)
    try:
        page = None
        for _ in range(150):
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/_dash-layout",
                                              timeout=2).read().decode()
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read()
                time.sleep(0.2)
        assert page is not None
        assert "file: transformer_block.before.hlo" in page  # the chooser opens on it
        assert "file: transformer_block.after_noynn.hlo" in page  # and offers its neighbours
        assert "sample: transformer_block" in page
    finally:
        proc.terminate()
        proc.wait(10)
