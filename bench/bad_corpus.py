"""A corpus of bad (and a few good) inputs for the workbench's command line (issue 15).

    from bad_corpus import build          # bench/ on sys.path
    cases = build(folder)                 # writes the files, returns the cases

Each :class:`Case` is a graph file (and maybe an ``.npz`` of inputs) made from the real
models in ``../shared/hlo``, ``corpus/`` and ``sample_graphs/`` by a mutation (truncations, bad
tokens, huge or odd numbers, deep nesting, cycles, wrong dtypes, broken or lying ``.npz``
archives, binary garbage, unicode, special files and odd paths, StableHLO garbage), or written
out for one of the cases issue 15 lists. A case says what must happen:

``error``
    every command refuses it with a one-line error (``ok_commands`` may succeed: an op that
    loads as opaque plans, but does not evaluate);
``ok``
    every command succeeds; where the case has reference outputs (``ref``: ``out0..outM`` of an
    ``.npz``: JAX's for the real models, numpy's for the generated ones) the values ``eval``
    writes must match them;
``any``
    a random mutation that may still be a valid graph: either outcome, but never a traceback,
    hang or blow-up, and a graph that loads must go through every command.

Nothing here runs the workbench: :mod:`bad_inputs` does. The mutations are deterministic
(a seeded ``random.Random``), so two builds give the same corpus.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import random
import re
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "hlo"
CORPUS = ROOT / "corpus"
SAMPLES = ROOT / "sample_graphs"
MODELS = ("chain10", "chain10_transc", "layernorm_gelu", "mlp", "resnet_block", "softmax",
          "transformer_block")
DEFAULT_COMMANDS = ("inspect", "plan", "eval")


@dataclass
class Case:
    """One input and what must happen to it (see the module's text)."""

    name: str
    family: str
    graph: str
    expect: str = "error"
    inputs: str | None = None
    ref: str | None = None
    commands: tuple = DEFAULT_COMMANDS
    ok_commands: tuple = ()
    extra: dict = field(default_factory=dict)   # command -> extra argv
    timeout_s: float = 30.0

    def to_json(self) -> dict:
        return asdict(self)


class Builder:
    """Writes the corpus's files into ``folder`` and collects the cases."""

    def __init__(self, folder: Path):
        self.dir = Path(folder)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.cases: list[Case] = []
        self.rng = random.Random(15)

    def write(self, name: str, data) -> str:
        path = self.dir / name
        if isinstance(data, str):
            data = data.encode("utf-8")
        path.write_bytes(data)
        return str(path)

    def add(self, name, family, data, suffix=".hlo", **kw) -> Case:
        graph = data if isinstance(data, Path) else self.write(f"{name}{suffix}", data)
        case = Case(name=name, family=family, graph=str(graph), **kw)
        self.cases.append(case)
        return case


def _text(path: Path) -> str:
    return path.read_text()


def shared_hlo(stage: str = "before") -> dict[str, str]:
    return {m: _text(SHARED / f"{m}.{stage}.hlo") for m in MODELS}


def corpus_hlo(n: int = 12) -> dict[str, str]:
    files = sorted(CORPUS.glob("*.before.hlo"))[:n]
    return {p.name.split(".")[0]: _text(p) for p in files}


def samples() -> dict[str, str]:
    return {p.stem: _text(p) for p in sorted(SAMPLES.glob("*.json"))}


# ----- mutations of real files ------------------------------------------------------------------

def truncations(b: Builder):
    """Cut each file at three points before its last closing brace: never a whole graph."""
    files = [(f"{m}.before", t, ".hlo") for m, t in shared_hlo().items()]
    files += [(f"{m}.after_noynn", t, ".hlo") for m, t in shared_hlo("after_noynn").items()]
    files += [(f"corpus-{m}", t, ".hlo") for m, t in corpus_hlo().items()]
    files += [(f"sample-{m}", t, ".json") for m, t in samples().items()]
    for name, text, suffix in files:
        last = text.rstrip().rfind("}")
        for frac in (0.03, 0.5, 0.97):
            cut = max(1, int(last * frac))
            b.add(f"truncated-{name}-{int(frac * 100)}", "truncation", text[:cut], suffix)


def _instructions(text: str) -> list[re.Match]:
    """The ENTRY computation's non-parameter instructions (name, type, opcode, operands)."""
    entry = text[text.index("ENTRY"):]
    start = len(text) - len(entry)
    pat = re.compile(r"^  (?:ROOT )?([\w.\-]+) = (\S+) ([\w\-]+)\(([^)]*)\)", re.M)
    out = [m for m in pat.finditer(text, start) if m.group(3) not in ("parameter", "constant")]
    return out


def _replace_span(text, m, group, new):
    return text[:m.start(group)] + new + text[m.end(group):]


def bad_tokens(b: Builder):
    for model, text in shared_hlo().items():
        ins = _instructions(text)
        first, root = ins[0], ins[-1]
        b.add(f"unknown-opcode-{model}", "bad token", _replace_span(text, first, 3, "frobnicate"))
        b.add(f"double-equals-{model}", "bad token",
              text[:first.start()] + text[first.start():first.end()].replace(" = ", " == ", 1)
              + text[first.end():])
        b.add(f"junk-at-{model}", "bad token", text[:first.end()] + " @@ ~~" + text[first.end():])
        b.add(f"nul-byte-{model}", "bad token", text[:first.start(3)] + "\x00" + text[first.start(3):])
        b.add(f"dangling-operand-{model}", "bad token",
              _replace_span(text, first, 4, "no_such_value" + first.group(4)[len(
                  first.group(4).split(",")[0]):]))
        ops = first.group(4)
        if "," in ops:
            b.add(f"empty-operand-{model}", "bad token",
                  _replace_span(text, first, 4, ops.replace(",", ", ,", 1)))
        b.add(f"cycle-{model}", "cycle",
              _replace_span(text, first, 4, root.group(1) + ops[len(ops.split(",")[0]):]))
        b.add(f"self-cycle-{model}", "cycle",
              _replace_span(text, first, 4, first.group(1) + ops[len(ops.split(",")[0]):]))


PARAM = re.compile(r"^  ([\w.\-]+) = (\w+)\[([^\]]*)\](\{[^}]*\})? parameter\((\d+)\)", re.M)


def huge_and_odd_numbers(b: Builder):
    for model, text in shared_hlo().items():
        p = PARAM.search(text, text.index("ENTRY"))     # the entry's, not a callee's
        dims = p.group(3).split(",")

        def with_dims(new, layout=None):
            t = text[:p.start(3)] + new + text[p.end(3):]
            return t

        first = dims[0]
        b.add(f"dim-2e41-{model}", "huge shape", with_dims(",".join([str(2 ** 41)] + dims[1:])))
        b.add(f"dim-bigint-{model}", "huge shape", with_dims(",".join(["9" * 40] + dims[1:])))
        b.add(f"rank-100-{model}", "huge shape", with_dims(",".join(["1"] * 100)))
        b.add(f"dim-negative-{model}", "odd number", with_dims(",".join(["-" + first] + dims[1:])))
        arabic = first.translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))
        b.add(f"dim-arabic-digits-{model}", "odd number", with_dims(",".join([arabic] + dims[1:])))
        b.add(f"dim-float-{model}", "odd number", with_dims(",".join([first + ".0"] + dims[1:])))
        b.add(f"dtype-f33-{model}", "wrong dtype",
              text[:p.start(2)] + "f33" + text[p.end(2):])
        b.add(f"dtype-s32-param-{model}", "wrong dtype",
              text[:p.start(2)] + "s32" + text[p.end(2):])
        b.add(f"param-index-arabic-{model}", "odd number",
              text[:p.start(5)] + "٠" + text[p.end(5):])
        b.add(f"param-index-99-{model}", "odd number", text[:p.start(5)] + "99" + text[p.end(5):])
        if p.group(4) and len(dims) > 1:
            bad = "{" + ",".join(["0"] * len(dims)) + "}"
            b.add(f"layout-repeat-{model}", "odd number", text[:p.start(4)] + bad + text[p.end(4):])
            b.add(f"layout-5-{model}", "odd number", text[:p.start(4)] + "{5" +
                  "".join(f",{d}" for d in range(len(dims) - 1)) + "}" + text[p.end(4):])


def semantics_kept(b: Builder):
    """Rewritings a parser must read as the same graph: checked against JAX's outputs."""
    for stage in ("before", "after_noynn"):
        for model, text in shared_hlo(stage).items():
            io_ = str(SHARED / f"{model}.io.npz")
            kw = dict(expect="ok", inputs=io_, ref=io_)
            b.add(f"original-{model}.{stage}", "original", SHARED / f"{model}.{stage}.hlo", **kw)
            if stage == "before":
                b.add(f"crlf-{model}", "rewritten", text.replace("\n", "\r\n"), **kw)
                b.add(f"comments-{model}", "rewritten",
                      re.sub(r" = ", " /* c */ = /* d */ ", text), **kw)
                b.add(f"blank-lines-{model}", "rewritten",
                      text.replace("\n", "\n\n\t  \n"), **kw)
    for name, text in samples().items():
        doc = json.loads(text)
        b.add(f"sample-reindented-{name}", "rewritten", json.dumps(doc, indent=7), ".json",
              expect="ok", extra={"ref_from": str(SAMPLES / f"{name}.json")})


def json_mutations(b: Builder):
    for name, text in list(samples().items()):
        doc = json.loads(text)
        nodes = doc["nodes"]
        k = next(i for i, n in enumerate(nodes) if n.get("operands"))

        def variant(label, change, family="json"):
            d = json.loads(text)
            change(d, d["nodes"])
            b.add(f"json-{label}-{name}", family, json.dumps(d), ".json")

        variant("cycle", lambda d, ns: ns[k].__setitem__("operands",
                                                         [d["outputs"][0]] + ns[k]["operands"][1:]),
                "cycle")
        variant("self-cycle", lambda d, ns: ns[k].__setitem__(
            "operands", [ns[k]["id"]] + ns[k]["operands"][1:]), "cycle")
        variant("dangling", lambda d, ns: ns[k].__setitem__("operands", ["nope"]))
        variant("duplicate-id", lambda d, ns: ns[k].__setitem__("id", ns[0]["id"]))
        variant("unknown-op", lambda d, ns: ns[k].__setitem__("op", "frobnicate"))
        variant("dtype-float128", lambda d, ns: ns[0]["type"].__setitem__("dtype", "float128"),
                "wrong dtype")
        variant("shape-negative", lambda d, ns: ns[0]["type"].__setitem__("shape", [-4]),
                "odd number")
        variant("shape-huge", lambda d, ns: ns[0]["type"].__setitem__("shape", [2 ** 62, 2 ** 62]),
                "huge shape")
        variant("shape-string", lambda d, ns: ns[0]["type"].__setitem__("shape", ["8"]),
                "wrong type")
        variant("attrs-list", lambda d, ns: ns[k].__setitem__("attrs", []), "wrong type")
        variant("name-list", lambda d, ns: d.__setitem__("name", ["a"]), "wrong type")
        variant("version-true", lambda d, ns: d.__setitem__("version", True), "wrong type")
        variant("no-outputs", lambda d, ns: d.__setitem__("outputs", []))
        variant("outputs-missing", lambda d, ns: d.pop("outputs"))
        variant("meta-deep", lambda d, ns: ns[k].__setitem__("meta", _deep_dict(400)), "nesting")


def _deep_dict(n):
    v: dict = {}
    for _ in range(n):
        v = {"a": v}
    return v


# ----- inputs (.npz) -----------------------------------------------------------------------------

def _npz(arrays: dict) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _lying_npz(shape_text: str) -> bytes:
    """An .npz whose one member's header claims ``shape_text`` (a shape no data backs)."""
    header = ("{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape_text)
    header = header + " " * (63 - (len(header) + 10) % 64) + "\n"
    raw = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + b"\0" * 64
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("arg0.npy", raw)
    return buf.getvalue()


def bad_npz(b: Builder):
    for model in ("mlp", "softmax", "chain10"):
        graph = SHARED / f"{model}.before.hlo"
        good = dict(np.load(SHARED / f"{model}.io.npz"))
        args = {k: v for k, v in good.items() if k.startswith("arg")}
        raw = _npz(args)

        def case(label, data, family="npz"):
            path = b.write(f"npz-{label}-{model}.npz", data)
            b.add(f"npz-{label}-{model}", family, graph, inputs=path,
                  commands=("eval",))

        case("truncated", raw[: len(raw) // 2])
        case("corrupt", raw[:40] + bytes(b.rng.randrange(256) for _ in range(200)) + raw[240:])
        one = io.BytesIO()
        np.save(one, args["arg0"])
        case("npy-renamed", one.getvalue())
        case("header-2e40", _lying_npz("(1099511627776,)"))
        case("header-negative", _lying_npz("(-5,)"))
        case("keys-xy", _npz({("x", "y", "z", "w", "v", "u", "t")[i]: v
                              for i, v in enumerate(args.values())}))
        case("int32", _npz({k: v.astype(np.int32) for k, v in args.items()}), "wrong dtype")
        case("bool", _npz({k: v > 0 for k, v in args.items()}), "wrong dtype")
        case("float64", _npz({k: v.astype(np.float64) for k, v in args.items()}), "wrong dtype")
        case("missing-arg", _npz(dict(list(args.items())[:-1])))
        case("extra-arg", _npz(dict(args, **{f"arg{len(args)}": args["arg0"]})))
        case("wrong-shape", _npz(dict(args, arg0=args["arg0"].reshape(-1)[:-1])))
        buf = io.BytesIO()
        np.savez(buf, arg0=np.array([{"a": 1}], dtype=object))
        case("pickled-object", buf.getvalue())
        case("empty", b"")
        case("text", b"arg0 = 1, 2, 3\n")
        case("nan-filled", _npz({k: np.full_like(v, np.nan) for k, v in args.items()}))
        b.cases[-1].expect = "ok"      # NaN inputs are inputs: evaluated, not refused
        b.cases[-1].commands = ("eval",)


# ----- garbage, unicode, special files and paths -------------------------------------------------

def garbage(b: Builder):
    good = _text(SHARED / "chain10.before.hlo")
    rng = b.rng
    for k in range(6):
        data = bytes(rng.randrange(256) for _ in range(rng.choice((1, 100, 5000))))
        b.add(f"random-bytes-{k}", "binary", data, (".hlo", ".json", ".mlir")[k % 3])
    b.add("gzip-of-hlo", "binary", gzip.compress(good.encode()))
    b.add("utf16-hlo", "binary", good.encode("utf-16"))
    b.add("latin1-hlo", "binary", good.replace("main", "m\u00e4in").encode("latin-1"))
    b.add("bom-hlo", "unicode", b"\xef\xbb\xbf" + good.encode(), expect="any")
    b.add("elf-header", "binary", b"\x7fELF\x02\x01\x01" + b"\0" * 500)
    b.add("empty-hlo", "binary", b"")
    b.add("empty-json", "binary", b"", ".json")
    b.add("whitespace-only", "binary", " \n\t\n" * 100)
    b.add("unicode-names", "unicode", good.replace("mul.6", "mul\u00b2\u202e"), expect="any")
    b.add("unicode-name-json", "unicode", _text(SAMPLES / "chain10.json").replace(
        '"mul1"', '"m\u00fcl\u00b9"'), ".json", expect="ok")
    b.add("fullwidth-digits", "unicode", good.replace("f32[65536]{0} parameter(0)",
                                                      "f32[６５５３６]{0} parameter(0)"))
    b.add("superscript-digit", "unicode", good.replace("parameter(0)", "parameter(\u00b2)"))
    long_string = good.replace("ENTRY main.1 {", "ENTRY main.1 {\n  x = f32[] custom(\"" +
                               "A" * 200_000 + "\")")
    b.add("string-200kb", "bad token", long_string)
    b.add("json-string-200kb", "json",
          _text(SAMPLES / "chain10.json").replace('"multiply"', '"' + "m" * 200_000 + '"'), ".json")
    b.add("json-nan-token", "json", '{"format": "fusion-workbench-graph", "version": NaN}',
          ".json")
    b.add("json-deep-array", "nesting", "[" * 100_000 + "]" * 100_000, ".json")
    b.add("json-not-object", "json", "[1, 2, 3]", ".json")
    b.add("json-attrs-deep", "nesting", _text(SAMPLES / "chain10.json").replace(
        '"attrs": {"index": 0}', '"attrs": {"index": 0, "x": ' + json.dumps(_deep_dict(400)) + "}",
        1), ".json")


def special_files(b: Builder):
    good = SHARED / "chain10.before.hlo"
    fifo = b.dir / "fifo.hlo"
    if not fifo.exists():
        os.mkfifo(fifo)
    b.add("fifo-graph", "special file", fifo)
    zero = b.dir / "zero.hlo"
    if not zero.is_symlink():
        zero.symlink_to("/dev/zero")
    b.add("dev-zero-link", "special file", zero)
    b.add("dev-zero", "special file", Path("/dev/zero"))
    b.add("dev-null", "special file", Path("/dev/null"))
    d = b.dir / "folder.hlo"
    d.mkdir(exist_ok=True)
    b.add("directory", "special file", d)
    link = b.dir / "link-to-good.hlo"
    if not link.is_symlink():
        link.symlink_to(good)
    io_ = str(SHARED / "chain10.io.npz")
    b.add("symlink-to-good", "path", link, expect="ok", inputs=io_, ref=io_)
    loop = b.dir / "loop.hlo"
    if not loop.is_symlink():
        loop.symlink_to(loop)
    b.add("symlink-loop", "path", loop)
    dangling = b.dir / "dangling.hlo"
    if not dangling.is_symlink():
        dangling.symlink_to(b.dir / "nowhere" / "x.hlo")
    b.add("symlink-dangling", "path", dangling)
    b.add("missing-file", "path", b.dir / "no-such-file.hlo")
    b.add("path-5000", "path", Path(str(b.dir) + "/" + "d" * 5000 + ".hlo"))
    nl = b.write("new\nline.hlo", b"HloModule m\nENTRY e {\n  oops\n}\n")
    b.add("newline-in-name", "path", Path(nl))
    nl_good = b.write("good\nname.hlo", good.read_bytes())
    b.add("newline-in-good-name", "path", Path(nl_good), expect="ok", inputs=io_, ref=io_)
    uni = b.write("m\u00f6dell-\u4e2d\u6587.hlo", good.read_bytes())
    b.add("unicode-file-name", "unicode", Path(uni), expect="ok", inputs=io_, ref=io_)
    b.add("fifo-inputs", "special file", good, inputs=str(fifo), commands=("eval",))
    b.add("dir-inputs", "special file", good, inputs=str(d), commands=("eval",))
    b.add("dev-zero-inputs", "special file", good, inputs="/dev/zero", commands=("eval",))
    b.add("out-is-directory", "output", good, commands=("eval",), extra={"eval": ["--out", str(d)]})
    b.add("out-is-fifo", "output", good, commands=("eval",), extra={"eval": ["--out", str(fifo)]})
    b.add("out-in-missing-folder", "output", good, commands=("eval",),
          extra={"eval": ["--out", str(b.dir / "missing" / "o.npz")]})
    plan_out = b.dir / "plan-out"
    plan_out.mkdir(exist_ok=True)
    b.add("plan-out-is-directory", "output", good, commands=("plan",),
          extra={"plan": ["--out", str(plan_out)]})
    cache_file = b.write("cache-is-a-file", b"x")
    b.add("cache-dir-is-a-file", "output", good, commands=("run",),
          extra={"run": ["--cache-dir", cache_file]})
    b.add("device-bogus", "flag", good, commands=("run",), extra={"run": ["--device", "bogus"]})
    b.add("backend-bogus", "flag", good, commands=("run",), extra={"run": ["--backend", "gpu9"]})
    b.add("repeat-zero", "flag", good, commands=("run",), extra={"run": ["--repeat", "0"]})


def stablehlo(b: Builder):
    mlirs = sorted(CORPUS.glob("*.mlir"))[:4]
    for p in mlirs:
        text = _text(p)
        b.add(f"mlir-truncated-{p.stem}", "stablehlo", text[: len(text) // 2], ".mlir")
        b.add(f"mlir-garbage-{p.stem}", "stablehlo",
              text.replace("stablehlo.", "stablehlo.frob_", 1), ".mlir")
    b.add("mlir-nul", "stablehlo", "module {\x00}", ".mlir")
    b.add("mlir-random-text", "stablehlo", "func.func @main() { %0 = garbage }\n", ".mlir")
    if mlirs:
        b.add(f"mlir-good-{mlirs[0].stem}", "stablehlo", mlirs[0], expect="ok",
              commands=("inspect", "plan"))


# ----- the cases issue 15 lists ------------------------------------------------------------------

def _module(body: str, extra: str = "") -> str:
    return f"HloModule m\n\n{extra}ENTRY main {{\n{body}\n}}\n"


def nested_fusions_hlo(depth: int) -> str:
    """``depth`` fusion computations, each fusing the next; the innermost negates."""
    lines = ["HloModule nested_fusions", ""]
    for k in range(depth, 0, -1):
        body = (f"  ROOT r = f32[8]{{0}} fusion(p), kind=kLoop, calls=f{k + 1}" if k < depth
                else "  ROOT r = f32[8]{0} negate(p)")
        lines += [f"f{k} {{", "  p = f32[8]{0} parameter(0)", body, "}", ""]
    lines += ["ENTRY main {", "  x = f32[8]{0} parameter(0)",
              "  ROOT y = f32[8]{0} fusion(x), kind=kLoop, calls=f1", "}"]
    return "\n".join(lines) + "\n"


def nested_tuple_hlo(depth: int) -> str:
    """A parameter whose tuple type is nested ``depth`` deep."""
    t = "(" * depth + "f32[]" + ")" * depth
    return _module(f"  ROOT p = {t} parameter(0)")


def issue_cases(b: Builder):
    from bench_scale import chain_hlo, many_outputs_hlo, nested_calls_hlo

    ref = b.dir / "refs"
    ref.mkdir(exist_ok=True)
    # legal and large: must work, with numpy's values
    x = np.linspace(-1, 1, 64, dtype=np.float32)
    y = np.linspace(0.25, 0.75, 64, dtype=np.float32)   # (v + y) * y - y stays bounded
    io_chain = str(ref / "chain.npz")
    np.savez(io_chain, arg0=x, arg1=y)
    b.add("chain-60k", "large", chain_hlo(60_000), expect="ok", inputs=io_chain,
          timeout_s=180, commands=("inspect", "plan", "eval"))
    v = x.copy()
    for k in range(60_000 - 1):
        v = (np.add, np.multiply, np.subtract, np.maximum)[k % 4](v, y)
    np.savez(ref / "chain-60k.npz", out0=-v)
    b.cases[-1].ref = str(ref / "chain-60k.npz")
    io_nested = str(ref / "nested-in.npz")
    np.savez(io_nested, arg0=x[:8])
    np.savez(ref / "nested-out.npz", out0=-x[:8])
    b.add("nested-calls-2000", "nesting", nested_calls_hlo(2000), expect="ok",
          inputs=io_nested, ref=str(ref / "nested-out.npz"), timeout_s=120)
    b.add("nested-fusions-50", "nesting", nested_fusions_hlo(50), expect="ok",
          inputs=io_nested, ref=str(ref / "nested-out.npz"))
    b.add("outputs-20k", "large", many_outputs_hlo(20_000), expect="ok",
          commands=("inspect", "plan"), timeout_s=180)
    b.add("chain-250k-past-limit", "large", chain_hlo(250_000), timeout_s=120)
    b.add("tuple-5k-deep", "nesting", nested_tuple_hlo(5000))
    b.add("constant-900-deep", "nesting",
          _module("  ROOT c = f32[1]{0} constant(" + "{" * 900 + "1" + "}" * 900 + ")"))
    b.add("constant-401-digits", "literal", _module(f"  ROOT c = f32[] constant({'9' * 401})"))
    b.add("constant-infinity", "literal", _module("  ROOT c = f32[] constant(infinity)"))
    b.add("s32-constant-1.5", "literal", _module("  ROOT c = s32[] constant(1.5)"))
    b.add("pred-constant-2", "literal", _module("  ROOT c = pred[] constant(2)"))
    b.add("s8-constant-300", "literal", _module("  ROOT c = s8[] constant(300)"))
    b.add("constant-arabic", "literal", _module("  ROOT c = f32[] constant(\u0663)"))
    b.add("constant-count-wrong", "literal", _module("  ROOT c = f32[3]{0} constant({1, 2})"))
    b.add("empty-operand", "bad token", _module(
        "  x = f32[4]{0} parameter(0)\n  y = f32[4]{0} parameter(1)\n"
        "  ROOT z = f32[4]{0} add(x, , y)"))
    sub = "sub {\n  a = f32[4]{0} parameter(0)\n  ROOT n = f32[4]{0} negate(a)\n}\n\n"
    b.add("call-extra-operands", "bad token", _module(
        "  x = f32[4]{0} parameter(0)\n  ROOT z = f32[4]{0} call(x, x), to_apply=sub", sub))
    b.add("inline-type-contradicts", "wrong dtype", _module(
        "  x = f32[4]{0} parameter(0)\n  ROOT z = f32[4]{0} negate(f32[8]{0} x)"))
    callee = "sub {\n  a = s32[4]{0} parameter(0)\n  ROOT n = f32[4]{0} negate(a)\n}\n\n"
    b.add("callee-parameter-dtype", "wrong dtype", _module(
        "  x = f32[4]{0} parameter(0)\n  ROOT z = f32[4]{0} call(x), to_apply=sub", callee))
    b.add("layout-5", "odd number", _module("  ROOT x = f32[4]{5} parameter(0)"))
    b.add("layout-0-0", "odd number", _module("  ROOT x = f32[4,4]{0,0} parameter(0)"))
    red = ("r {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
           "  ROOT s = f32[] add(a, ghost)\n}\n\n")
    b.add("reducer-dangling", "bad token", _module(
        "  x = f32[4]{0} parameter(0)\n  z = f32[] constant(0)\n"
        "  ROOT s = f32[] reduce(x, z), dimensions={0}, to_apply=r", red))
    b.add("rank-100-eval", "huge shape", _module(
        "  ROOT x = f32[" + ",".join(["1"] * 100) + "] parameter(0)"))
    b.add("scalar-parameter", "scalar", _module(
        "  x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)"), expect="ok",
        commands=("inspect", "plan", "eval", "run"), timeout_s=120)
    b.add("big-live-tensor", "huge shape", _module(
        "  x = f32[1048576,2048]{1,0} parameter(0)\n  ROOT y = f32[1048576,2048]{1,0} negate(x)"),
        ok_commands=("inspect", "plan"))
    b.add("dim-past-max-elements", "huge shape", _module(
        "  ROOT x = f32[2199023255552]{0} parameter(0)"))
    b.add("no-entry", "bad token", "HloModule m\n\nfoo {\n  ROOT x = f32[] parameter(0)\n}\n")
    b.add("two-roots", "bad token", _module(
        "  ROOT x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)"))
    b.add("duplicate-name", "bad token", _module(
        "  x = f32[] parameter(0)\n  x = f32[] negate(x)\n  ROOT y = f32[] negate(x)"))
    b.add("unclosed-comment", "bad token", _module("  /* x = f32[] parameter(0)"))
    b.add("call-missing", "bad token", _module(
        "  x = f32[4]{0} parameter(0)\n  ROOT z = f32[4]{0} call(x), to_apply=nowhere"))
    b.add("good-run-chain10", "original", SHARED / "chain10.before.hlo", expect="ok",
          inputs=str(SHARED / "chain10.io.npz"), ref=str(SHARED / "chain10.io.npz"),
          commands=("inspect", "plan", "eval", "run"), timeout_s=240)
    b.add("compare-xla-good", "original", SHARED / "softmax.after_noynn.hlo", expect="ok",
          commands=("compare-xla",))
    b.add("compare-xla-truncated", "truncation",
          _text(SHARED / "softmax.after_noynn.hlo")[:900], commands=("compare-xla",))


def random_mutations(b: Builder, n: int = 40):
    """Byte-level mutations at random places: deletions, duplications, flips (``any``)."""
    texts = list(shared_hlo().items()) + [(f"s-{k}", v) for k, v in samples().items()]
    rng = b.rng
    for k in range(n):
        model, text = texts[k % len(texts)]
        data = bytearray(text.encode())
        for _ in range(rng.randrange(1, 4)):
            i = rng.randrange(len(data))
            op = rng.randrange(3)
            if op == 0:
                del data[i:i + rng.randrange(1, 20)]
            elif op == 1:
                data[i:i] = data[i:i + rng.randrange(1, 40)]
            else:
                data[i] = rng.choice(b"{}()[],=:\"0123456789x- \n")
        suffix = ".json" if model.startswith("s-") else ".hlo"
        b.add(f"random-mutation-{k}-{model}", "random", bytes(data), suffix, expect="any")


FAMILIES = (truncations, bad_tokens, huge_and_odd_numbers, semantics_kept, json_mutations,
            bad_npz, garbage, special_files, stablehlo, issue_cases, random_mutations)


def build(folder) -> list[Case]:
    """Write the corpus into ``folder`` (created) and return its cases."""
    b = Builder(Path(folder))
    for family in FAMILIES:
        family(b)
    names = [c.name for c in b.cases]
    assert len(names) == len(set(names)), "case names must be unique"
    return b.cases
