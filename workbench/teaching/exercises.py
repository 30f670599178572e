""""Predict the fusion" exercises, easy to hard.

The student sees a graph with every op its own kernel and draws the groups; the answer is scored
(:mod:`.scoring`) against the planner's plan and, for a real XLA module, against the fusions
XLA made. The planner's key is planned on a datasheet profile (``h100`` by default), so every
student of a class gets the same key whatever machine they sit at.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from workbench.errors import InputError
from workbench.ir.graph import Graph
from workbench.teaching import graphs

#: the device profile answer keys are planned on (a datasheet profile: the same everywhere)
KEY_DEVICE = "h100"
#: why the keys are not planned on the cpu profile the lessons use (said wherever a key is)
KEY_DEVICE_REASON = ("a datasheet profile, so the key is the same on every student's machine; "
                     "the lessons use the cpu profile, which is measured on each machine and "
                     "can make the planner choose differently from one machine to the next")
LEVELS = {1: "warm-up", 2: "easy", 3: "medium", 4: "hard", 5: "real model"}


def shared_hlo_dir() -> Path:
    """``../shared/hlo`` beside the checkout, where the real XLA modules are."""
    from workbench.paths import sample_dir

    return sample_dir().parent.parent / "shared" / "hlo"


@dataclass(frozen=True)
class Exercise:
    """One exercise.

    Parameters
    ----------
    id, title : str
    level : int
        1 (warm-up) to 5 (a real model), see :data:`LEVELS`.
    prompt : str
        What to look for, in a sentence or two.
    source : str
        ``lesson:<graph builder>`` (:mod:`.graphs`), ``sample:<name>`` (``sample_graphs/``) or
        ``hlo:<file>`` (a module in ``../shared/hlo``, scored against XLA's fusions too).
    policy : str
        The planner policy of the key.
    """

    id: str
    title: str
    level: int
    prompt: str
    source: str
    policy: str = "priority"

    @property
    def real_module(self) -> bool:
        """True for a module XLA optimised: scored against XLA's own fusions too."""
        return self.source.startswith("hlo:")

    def path(self) -> Path | None:
        kind, _, name = self.source.partition(":")
        if kind == "hlo":
            return shared_hlo_dir() / name
        if kind == "sample":
            from workbench.paths import sample_dir

            return sample_dir() / f"{name}.json"
        return None

    def available(self) -> bool:
        """False when the exercise's file is missing (a real module without ../shared/hlo)."""
        p = self.path()
        return p is None or p.is_file()

    def graph(self) -> Graph:
        """The exercise's graph.

        Raises
        ------
        InputError
            If its file is missing (the real modules need ``../shared/hlo``).
        """
        return _graph(self.source)

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "level": self.level,
                "level_name": LEVELS[self.level], "prompt": self.prompt, "source": self.source,
                "policy": self.policy, "key_device": KEY_DEVICE,
                "key_device_reason": KEY_DEVICE_REASON,
                "scored_against": ["planner", "xla"] if self.real_module else ["planner"],
                "available": self.available()}


@lru_cache(maxsize=32)
def _graph(source: str) -> Graph:
    from workbench.importers import load_graph

    kind, _, name = source.partition(":")
    if kind == "lesson":
        return getattr(graphs, name)()
    path = Exercise("", "", 1, "", source).path()
    if not path.is_file():
        raise InputError("the exercise's graph is missing" + (
            ": the real XLA modules must be in ../shared/hlo beside the checkout"
            if kind == "hlo" else ""), file=str(path))
    return load_graph(str(path))


EXERCISES = (
    Exercise("producer-consumer", "A multiply and an add", 1,
             "An elementwise op feeding another. Which ops share a kernel?",
             "lesson:vertical"),
    Exercise("chain", "A chain of pointwise ops", 1,
             "A long chain of cheap elementwise ops and the broadcasts of its constants.",
             "sample:chain10"),
    Exercise("siblings", "Sine and cosine", 1,
             "No edge joins sine and cosine. Is there still something to fuse?", "sample:sin_cos"),
    Exercise("shared-producer", "One producer, several consumers", 2,
             "A cheap add read by several ops. Duplicate it, or write it once?",
             "sample:multi_consumer"),
    Exercise("reduce-broadcast", "A row mean, broadcast back", 2,
             "A reduction whose result is broadcast over its input's rows.",
             "sample:reduce_broadcast"),
    Exercise("dense-layer", "MatMul + bias + GELU", 2,
             "A contraction and its epilogue.", "sample:matmul_bias_gelu"),
    Exercise("conv-layer", "Conv + bias + ReLU", 2,
             "A convolution and its epilogue.", "sample:conv_bias_relu"),
    Exercise("softmax", "Softmax, written out", 3,
             "A max and a sum reduced over each row, and the broadcasts that use them.",
             "sample:softmax"),
    Exercise("prologue", "A scale in front of a matmul", 3,
             "An elementwise op before a matmul and an epilogue after it. Which side can join "
             "the matmul's kernel?", "lesson:prologue"),
    Exercise("broadcast-reuse", "An exponential reused through a broadcast", 3,
             "An exp of a vector, broadcast over a matrix's rows.",
             "lesson:reuse_through_broadcast"),
    Exercise("mlp", "A stack of dense layers", 3,
             "Matmuls, each with a bias and a ReLU.", "sample:mlp"),
    Exercise("resnet-block", "A ResNet basic block", 4,
             "Convolutions, inference batch norms, ReLUs and a residual add.",
             "sample:resnet_block"),
    Exercise("transformer-block", "A transformer block", 4,
             "Layer norms, projections, attention with a causal mask, a GELU MLP, residuals.",
             "sample:transformer_block"),
    Exercise("xla-softmax", "Softmax as XLA:CPU compiled it", 5,
             "The ops of the optimised module (the row max is split into partial maxima, the "
             "divide is a multiply by reciprocals). Predict XLA's fusions.",
             "hlo:softmax.after_noynn.hlo"),
    Exercise("xla-mlp", "An MLP as XLA:CPU compiled it", 5,
             "Dense layers after XLA's optimisation. XLA:CPU calls a library GEMM for "
             "each dot: does it fuse the epilogues?", "hlo:mlp.after_noynn.hlo"),
    Exercise("xla-layernorm-gelu", "Layer norm + GELU as XLA:CPU compiled it", 5,
             "The optimised module of a layer norm followed by GELU.",
             "hlo:layernorm_gelu.after_noynn.hlo"),
)

#: exercises by id, easy to hard
BY_ID = {e.id: e for e in EXERCISES}
