"""``workbench serve``: its options, and a bad file reported before anything is served."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.conftest import REPO_ROOT, SAMPLES_DIR, shared_hlo_dir
from workbench.cli import build_parser


def parse(*argv):
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
    proc = run(bad, "--port", free_port(), cache=tmp_path)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert err.startswith(f"error: {bad}: ") and "binary" in err and "Traceback" not in err


def test_serve_opens_a_real_hlo_module(tmp_path):
    """``workbench serve ../shared/hlo/transformer_block.before.hlo`` answers on its port."""
    port = free_port()
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
        page = page.replace("\\u002f", "/")  # the JSON escapes slashes
        assert "file: hlo/transformer_block.before.hlo" in page  # the chooser opens on it
        assert "file: hlo/transformer_block.after_noynn.hlo" in page  # and offers its neighbours
        assert "sample: transformer_block" in page
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=10)
    assert out.startswith(f"Fusion Workbench on http://127.0.0.1:{port}/")
    assert "_dash-layout" not in err  # werkzeug's line per request is off by default


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_bad_or_busy_port_is_one_line_and_exit_2(tmp_path):
    import socket

    proc = run("--port", "99999", cache=tmp_path)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and out == ""
    assert err == "error: --port 99999: a port is a number from 1 to 65535 (default 8050)\n"
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = run("--port", port, cache=tmp_path)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and out == ""  # no URL printed for a server that cannot start
    assert err == (f"error: port {port} on 127.0.0.1 is in use; choose another with --port "
                   f"(e.g. --port {port + 1})\n")


def test_plain_serve_offers_the_shared_modules_beside_the_repository():
    from workbench.cli import serve
    from workbench.cli.serve import graph_choices

    assert serve.shared_hlo_dir() == shared_hlo_dir()
    files = graph_choices(None, [])
    assert str(shared_hlo_dir() / "softmax.after_noynn.hlo") in files
    assert len(files) == len([f for f in shared_hlo_dir().iterdir()
                              if f.suffix in (".hlo", ".json", ".txt")])
    # a file given on the command line comes first, its neighbours next, no file twice
    mlp = str(SAMPLES_DIR / "mlp.json")
    files = graph_choices(mlp, [str(shared_hlo_dir())])
    assert files[0] == mlp and len(files) == len(set(files))


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (read from /proc)."""
    out = set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = open(f"/proc/{d}/stat").read()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.add(int(d))
    return out


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_stopped_serve_leaves_no_background_calibration(tmp_path, sig):
    """``serve`` on an uncalibrated machine starts calibrating in a child process; SIGTERM
    (what a service manager or a benchmark sends) ends the server with status 0, and even
    SIGKILL (no handler runs) takes that child and the worker processes with it: none is
    left probing for minutes."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "WORKBENCH_NO_CALIBRATE"}
    env.update(PYTHONPATH=str(REPO_ROOT), WORKBENCH_CACHE_DIR=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "serve", "mlp", "--port",
                             str(port)], cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read()
                time.sleep(0.2)
        children = _children(proc.pid)
        cmdlines = [open(f"/proc/{c}/cmdline").read() for c in children]
        assert sum("multiprocessing" in c for c in cmdlines) >= 1, cmdlines
    finally:
        proc.send_signal(sig)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == (0 if sig == signal.SIGTERM else -signal.SIGKILL)
    assert "calibrating this machine's cpu profile in the background" in out
    for _ in range(150):
        alive = [c for c in children if os.path.exists(f"/proc/{c}")
                 and open(f"/proc/{c}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"]
        if not alive:
            break
        time.sleep(0.1)
    assert alive == []
