"""``workbench capture`` and ``workbench dump``; StableHLO and capture without jax.

Capture tests need jax (the ``[jax]`` extra) and are skipped without it; they run the command
line in a subprocess, as a user does (jax's CPU client must be created after the capture sets
``XLA_FLAGS``). The without-jax tests hide jax from a subprocess and need nothing.
"""

from __future__ import annotations

import importlib.util
import re
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
    # nothing written on failure: an --out folder the capture made is gone again
    r = _cli("capture", f"{model}:broken", "--args", str(tmp_path / "a.npz"), "--out",
             str(tmp_path / "new"))
    assert r.returncode == 2 and not (tmp_path / "new").exists()
    r = _cli("capture", f"{model}:nope", "--args", str(tmp_path / "a.npz"))
    assert r.returncode == 2 and "has no function 'nope'" in r.stderr
    assert "broken, fine" in r.stderr
    # the output folder is checked before the user's code runs: no traceback
    (tmp_path / "afile").write_text("")
    r = _cli("capture", f"{model}:fine", "--args", str(tmp_path / "a.npz"), "--out",
             str(tmp_path / "afile"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "afile: cannot make the output folder: a file of that name exists" in r.stderr
    # float64 arguments (numpy's default): jax computes in float32 without x64, and the io
    # file holds what it computed with, so that it fits the captured modules' parameters
    np.savez(tmp_path / "f64.npz", arg0=np.ones((3, 4)))
    r = _cli("capture", f"{model}:fine", "--args", str(tmp_path / "f64.npz"), "--out",
             str(tmp_path / "f64"))
    assert r.returncode == 0, r.stderr
    assert "note: arg0 is float64; jax computes with it as float32" in r.stdout
    with np.load(tmp_path / "f64" / "fine.io.npz") as data:
        assert data["arg0"].dtype == np.float32 and data["out0"].dtype == np.float32
    assert main(["eval", str(tmp_path / "f64" / "fine.before.hlo"), "--inputs",
                 str(tmp_path / "f64" / "fine.io.npz")]) == 0


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
    # two modules of one name (jax's small jit_broadcast_in_dim helpers): open one by number
    (tmp_path / "module_0009.jit_b.before_optimizations.txt").write_text(
        path("cumulative", "before").read_text())
    assert main(["inspect", f"{tmp_path}:jit_b"]) == 2
    err = capsys.readouterr().err
    assert "2 modules are named 'jit_b' in this dump: open one by number (DIR:NUMBER): " \
           "7 (module_0007.jit_b), 9 (module_0009.jit_b)" in err


def _save_npy(target, array):
    with open(target, "wb") as f:              # np.save(name) would append ".npy"
        np.save(f, array)


@pytest.mark.parametrize("make, message", [
    (lambda p: _save_npy(p, np.ones(3)), "this is a single .npy array, not an .npz"),
    (lambda p: p.write_text("junk"), "not an .npz archive of arrays"),
    (lambda p: None, "No such file or directory"),
    (lambda p: np.savez(p, arg0=np.ones(2), arg2=np.ones(2)), "without gaps: arg1 missing"),
    (lambda p: np.savez(p, x=np.ones(2)), "holds no arrays named arg0"),
    (lambda p: np.savez(p, arg0=np.ones(2, np.uint16).view("V2")), "raw |V2 bytes"),
])
def test_capture_arguments_that_cannot_be_used_are_one_line(tmp_path, make, message):
    from workbench.errors import InputError
    from workbench.importers.capture import load_args

    target = tmp_path / "args.npz"
    make(target)
    with pytest.raises(InputError, match=re.escape(message)) as e:
        load_args(target)
    assert e.value.file == str(target) and "\n" not in str(e.value)


def test_capture_output_folder_that_cannot_be_made_is_refused(tmp_path):
    from workbench.errors import InputError
    from workbench.importers.capture import out_folder

    (tmp_path / "afile").write_text("")
    with pytest.raises(InputError, match="cannot make the output folder: a file of that name"):
        out_folder(tmp_path / "afile")
    with pytest.raises(InputError, match="cannot make the output folder"):
        out_folder(tmp_path / "afile" / "sub")
    assert out_folder(tmp_path / "new" / "sub").is_dir()
