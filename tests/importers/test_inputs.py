"""Strict .npz inputs: no pickle, names, shapes and dtypes against the graph's parameters with
every mismatch listed, corrupt and lying archives refused in one line before allocating."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
from numpy.lib import format as npy

from tests.conftest import shared_hlo_dir
from workbench.errors import InputError
from workbench.importers import load_graph
from workbench.importers.inputs import load_inputs


@pytest.fixture(scope="module")
def mlp():
    return load_graph(shared_hlo_dir() / "mlp.before.hlo"), dict(
        np.load(shared_hlo_dir() / "mlp.io.npz"))


def test_the_shared_inputs_load_and_fit(mlp, tmp_path):
    graph, arrays = mlp
    got = load_inputs(str(shared_hlo_dir() / "mlp.io.npz"), graph)
    assert sorted(got) == [f"arg{i}" for i in range(7)]
    assert all(np.array_equal(got[k], arrays[k]) for k in got)


def test_every_mismatch_is_listed_at_once(mlp, tmp_path):
    graph, arrays = mlp
    bad = dict(arrays)
    bad["arg0"] = arrays["arg0"].astype(np.int32)          # int for f32: not converted
    bad["arg1"] = arrays["arg1"][:3]                        # shape
    bad["arg2"] = arrays["arg2"] > 0                        # bool for f32
    del bad["arg3"]
    bad["x"] = arrays["arg3"]
    path = tmp_path / "bad.npz"
    np.savez(path, **bad)
    with pytest.raises(InputError) as e:
        load_inputs(str(path), graph)
    text = str(e.value)
    for part in ("missing arg3", "'x' name no parameter", "arg0 is int32, parameter",
                 "arg1 has shape [3, 512]", "arg2 is bool"):
        assert part in text, (part, text)
    assert text.startswith(str(path)) and "\n" not in text


def test_objects_corrupt_truncated_and_lying_archives(tmp_path, mlp):
    graph, arrays = mlp
    obj = tmp_path / "obj.npz"
    np.savez(obj, arg0=np.array([{"a": 1}], dtype=object))
    with pytest.raises(InputError, match="Python objects"):
        load_inputs(str(obj))
    good = tmp_path / "good.npz"
    np.savez_compressed(good, **arrays)
    data = good.read_bytes()
    for name, blob, match in (("cut.npz", data[: len(data) // 2], "not an .npz archive"),
                              ("junk.npz", b"PK\x03\x04" + b"\x00" * 200, "not an .npz"),
                              ("empty.npz", b"", "not an .npz archive")):
        (tmp_path / name).write_bytes(blob)
        with pytest.raises(InputError, match=match):
            load_inputs(str(tmp_path / name), graph)
    flipped = bytearray(data)
    flipped[len(data) // 3] ^= 0xFF
    (tmp_path / "flip.npz").write_bytes(bytes(flipped))
    with pytest.raises(InputError, match="cannot read inputs"):
        load_inputs(str(tmp_path / "flip.npz"), graph)
    np.save(tmp_path / "one.npy", arrays["arg0"])
    (tmp_path / "one.npy").rename(tmp_path / "one.npz")
    with pytest.raises(InputError, match="single .npy array"):
        load_inputs(str(tmp_path / "one.npz"))
    # a header promising 2**40 floats in a few bytes: refused before any allocation
    b = io.BytesIO()
    npy.write_array_header_1_0(b, {"descr": "<f4", "fortran_order": False, "shape": (1 << 40,)})
    with zipfile.ZipFile(tmp_path / "huge.npz", "w") as z:
        z.writestr("arg0.npy", b.getvalue() + b"\x00" * 64)
    with pytest.raises(InputError, match=r"claims \[1099511627776\] float32"):
        load_inputs(str(tmp_path / "huge.npz"))


def test_the_memory_cap_is_checked_from_the_headers(mlp):
    graph, _ = mlp
    with pytest.raises(InputError, match="more than the cap of 0.1 MiB"):
        load_inputs(str(shared_hlo_dir() / "mlp.io.npz"), graph, max_bytes=100_000)
