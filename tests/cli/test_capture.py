"""``workbench capture`` and ``workbench dump``; StableHLO and capture without jax.

Capture tests need jax (the ``[jax]`` extra) and are skipped without it; they run the command
line in a subprocess, as a user does (jax's CPU client must be created after the capture sets
``XLA_FLAGS``). The without-jax tests hide jax from a subprocess and need nothing.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import REPO_ROOT
from tests.corpus_models import io, path
from workbench.cli import main
from workbench.importers import load_graph
from workbench.ir import evaluate

HAS_JAX = importlib.util.find_spec("jax") is not None
needs_jax = pytest.mark.skipif(not HAS_JAX, reason="needs jax (pip install -e '.[jax]')")


def _cli(*args, hide_jax=False):
    code = ("import sys\n"
            + ("sys.modules['jax'] = None; sys.modules['jaxlib'] = None\n" if hide_jax else "")
            + "from workbench.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          cwd=REPO_ROOT, timeout=600)


@needs_jax
def test_capture_a_function_of_the_corpus_script(tmp_path):
    r = _cli("capture", "tools/make_corpus.py:attn_causal", "--args",
             str(path("attn_causal", "io")), "--out", str(tmp_path), "--name", "attn")
    assert r.returncode == 0, r.stderr
    assert "captured attn: 3 inputs, 1 output" in r.stdout
    for f in ("attn.before.hlo", "attn.after_noynn.hlo", "attn.mlir", "attn.io.npz"):
        assert (tmp_path / f).is_file()
    after = (tmp_path / "attn.after_noynn.hlo").read_text()
    assert "__ynn_fusion" not in after and "kind=kLoop" in after
    want = io("attn_causal")["out0"]
    for f in ("attn.before.hlo", "attn.after_noynn.hlo", "attn.mlir"):
        g = load_graph(tmp_path / f)
        (out,) = evaluate(g, dict(np.load(tmp_path / "attn.io.npz")))
        np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)
    assert main(["run", str(tmp_path / "attn.after_noynn.hlo"), "--inputs",
                 str(tmp_path / "attn.io.npz"), "--repeat", "1", "--warmup", "0",
                 "--backend", "cpu"]) == 0


@needs_jax
def test_a_capture_whose_function_raises_prints_the_exception_on_one_line(tmp_path):
    model = tmp_path / "model.py"
    model.write_text("import jax.numpy as jnp\n\n"
                     "def broken(x):\n"
                     "    return jnp.dot(x, jnp.ones((7, 2)))\n\n"
                     "def fine(x):\n"
                     "    return x + 1\n")
    np.savez(tmp_path / "a.npz", arg0=np.ones((3, 4), np.float32))
    r = _cli("capture", f"{model}:broken", "--args", str(tmp_path / "a.npz"), "--out",
             str(tmp_path))
    assert r.returncode == 2
    err = r.stderr.strip()
    assert "\n" not in err and "Traceback" not in err
    assert err.startswith("error: ") and "broken raised TypeError" in err
    assert "model.py:4" in err
    r = _cli("capture", f"{model}:nope", "--args", str(tmp_path / "a.npz"))
    assert r.returncode == 2 and "has no function 'nope'" in r.stderr
    assert "broken, fine" in r.stderr


def test_capture_and_stablehlo_without_jax_say_what_to_install(tmp_path):
    np.savez(tmp_path / "a.npz", arg0=np.ones(3, np.float32))
    (tmp_path / "m.py").write_text("def f(x):\n    return x\n")
    r = _cli("capture", f"{tmp_path / 'm.py'}:f", "--args", str(tmp_path / "a.npz"),
             hide_jax=True)
    assert r.returncode == 2
    assert r.stderr.strip() == ("error: workbench capture needs jax: pip install "
                                "'fusion-workbench[jax]'")
    r = _cli("inspect", str(path("attn_causal", "mlir")), hide_jax=True)
    assert r.returncode == 2
    assert "needs jaxlib: pip install 'fusion-workbench[jax]'" in r.stderr
    assert r.stderr.count("\n") == 1


def test_dump_lists_modules_and_commands_open_one(tmp_path, capsys):
    for num, name, src in (("0001", "jit_a", "attn_causal"), ("0007", "jit_b", "cumulative")):
        for stage, f in (("before_optimizations", "before"),
                         ("cpu_after_optimizations", "after_noynn")):
            (tmp_path / f"module_{num}.{name}.{stage}.txt").write_text(path(src, f).read_text())
    assert main(["dump", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "2 modules" in out and f"{tmp_path}:7" in out and "jit_b" in out
    assert main(["inspect", f"{tmp_path}:jit_b"]) == 0
    assert "jit_cumulative" in capsys.readouterr().out
    assert main(["inspect", str(tmp_path)]) == 2
    assert "DIR:NUMBER" in capsys.readouterr().err
