"""The glossary: the field's terms (DESIGN.md, "Terms"), written once, shared by the lessons, the
exercises and the app (the legend, the cost cards, the tour and the Learn page link here).

Each :class:`Term` has a stable ``id`` (the app's links are ``/learn?term=<id>``), a one-line
``short`` definition (for tooltips), a paragraph of ``text``, the ``aliases`` by which lesson text
names it (matched whole-word, case-insensitively, by :func:`find_terms`) and related terms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    """One glossary entry.

    Parameters
    ----------
    id : str
        Stable key (``"roofline"``), used in links.
    title : str
        The term as a heading.
    short : str
        One sentence, for tooltips.
    text : str
        The definition in a few sentences.
    aliases : tuple of str
        Phrases in running text that mean this term (the title is always one).
    related : tuple of str
        Ids of related terms.
    """

    id: str
    title: str
    short: str
    text: str
    aliases: tuple = ()
    related: tuple = ()

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "short": self.short, "text": self.text,
                "related": list(self.related)}


_TERMS = (
    Term("producer-consumer", "Producer and consumer",
         "An op that computes a value is its producer; an op that reads it is a consumer.",
         "Every edge of a dataflow graph runs from a producer to a consumer. Unfused, the "
         "producer writes its value to memory and each consumer reads it back; fusion is about "
         "avoiding that round trip.",
         ("producer", "producers", "consumer", "consumers"), ("vertical-fusion",)),
    Term("kernel", "Kernel",
         "One compiled function launched on the device: in the workbench, one fusion group.",
         "A kernel reads its inputs from memory, computes, and writes its outputs to memory. "
         "Every launch has a fixed cost, and values passed between kernels go through memory, "
         "so fewer, larger kernels usually move fewer bytes.",
         ("kernel", "kernels"), ("launch-overhead", "fusion-group")),
    Term("fusion-group", "Fusion group",
         "A set of ops compiled into a single kernel.",
         "The planner partitions a graph's ops into fusion groups. Values used only inside a "
         "group stay in registers; values used outside it, and graph outputs, are written to "
         "memory. A plan in which every op is its own group is the unfused baseline.",
         ("fusion group", "fusion groups", "group", "groups"), ("kernel", "plan")),
    Term("plan", "Fusion plan",
         "The fusion groups chosen for a graph, in launch order, with the decision log.",
         "A plan is what the planner proposes and what you edit. The cost model predicts its "
         "time; the code generator compiles one kernel per group; the profiler measures it.",
         ("fusion plan", "the planner's plan"), ("fusion-group", "decision")),
    Term("vertical-fusion", "Vertical fusion",
         "Fusing a producer into its consumer, so the value between them never leaves the "
         "kernel.",
         "Also called producer-consumer fusion. The consumer computes the producer's value "
         "where it needs it instead of reading it from memory: the write and the read of the "
         "intermediate tensor disappear, and one launch goes with them.",
         ("vertical fusion", "producer-consumer fusion", "producer into consumer"),
         ("producer-consumer", "loop-fusion")),
    Term("horizontal-fusion", "Horizontal (sibling) fusion",
         "Fusing independent ops that read the same input, so that input is read once.",
         "Sibling ops share an operand but no edge between them. Put in one kernel, they read "
         "the shared input once and write their outputs side by side: a multi-output kernel. "
         "The saving is one read of the shared input and a launch.",
         ("horizontal fusion", "sibling fusion", "siblings", "side by side"),
         ("multi-output",)),
    Term("multi-output", "Multi-output fusion",
         "A fusion group that writes more than one value to memory.",
         "Sibling fusion produces multi-output kernels, and so does a producer fused into a "
         "group when its value is also needed outside it. XLA calls such a fusion multi-output.",
         ("multi-output fusion", "multi-output kernel", "multi-output"),
         ("horizontal-fusion",)),
    Term("loop-fusion", "Loop fusion",
         "A group of elementwise and data-movement ops, computed in one loop over the output.",
         "XLA's kLoop: every element of the output is computed independently from the inputs, "
         "through the whole chain of pointwise ops (and broadcasts, reshapes, slices). A chain "
         "of pointwise ops fused this way reads its inputs once and writes its result once.",
         ("loop fusion", "loop fusions", "pointwise", "elementwise"),
         ("vertical-fusion", "input-fusion")),
    Term("input-fusion", "Input fusion",
         "A reduction fused with the ops that feed it (and often the ops that read its result).",
         "XLA's kInput: the reduction's inputs are computed on the fly while it reduces, so the "
         "tensor it reduces is never written. Softmax and layer norm are input fusions: a row "
         "is reduced and then normalised within one kernel.",
         ("input fusion", "input fusions", "reduction fusion"),
         ("reduction", "loop-fusion")),
    Term("output-fusion", "Output fusion",
         "A matmul or convolution fused with its epilogue (bias, activation, residual).",
         "XLA's kOutput: the contraction computes a tile of its result and applies the "
         "epilogue to it before storing, so the pre-activation tensor is never written. The "
         "contraction's own operands are still read from memory.",
         ("output fusion", "output fusions"), ("epilogue", "contraction")),
    Term("opaque", "Opaque op",
         "An op the workbench cannot look inside; it runs alone and is never fused.",
         "Custom calls and ops without a lowering are opaque: the planner cannot reason about "
         "their memory accesses, so it keeps them apart.",
         ("opaque",), ("fusion-group",)),
    Term("epilogue", "Epilogue",
         "The elementwise ops applied to a contraction's result before it is stored.",
         "Bias add, ReLU, GELU, a residual add or an inference batch norm: each works element by "
         "element on the matmul's or convolution's output and can run inside its kernel.",
         ("epilogue", "epilogues"), ("output-fusion",)),
    Term("contraction", "Contraction",
         "A matmul (dot) or convolution: each output sums products over an input dimension.",
         "Contractions do many FLOPs per byte and usually run as library kernels (a GEMM). "
         "They read their operands from memory, so a producer cannot be fused in front of them.",
         ("contraction", "contractions", "matmul", "convolution"), ("output-fusion",)),
    Term("reduction", "Reduction",
         "An op that combines many elements into fewer (a sum or a max over a dimension).",
         "A reduction's output is smaller than its input; a reduction read by several kernels is "
         "not duplicated, because recomputing it would repeat all its work.",
         ("reduction", "reductions", "reduce"), ("input-fusion",)),
    Term("duplication", "Duplication",
         "A producer fused into several consumers' kernels is computed again in each.",
         "Instead of writing its value once and reading it several times, each consumer "
         "recomputes the producer. That pays when the producer is cheap and its value large; it "
         "does not when the producer is expensive (a transcendental, a reduction) or reused "
         "through a broadcast.",
         ("duplication", "duplicated", "duplicating", "duplicate", "recomputed"),
         ("producer-consumer", "transcendental")),
    Term("transcendental", "Transcendental",
         "An op such as exp, tanh, log or sin: many FLOPs' worth of work per element.",
         "The cost model charges each transcendental a number of FLOP-equivalents measured on "
         "this machine (or taken from a GPU's datasheet ratio). Expensive producers are the ones "
         "a planner does not like to duplicate.",
         ("transcendental", "transcendentals", "expensive"), ("duplication",)),
    Term("bytes", "Bytes read and written",
         "The memory traffic of a kernel: each external input once, each output once.",
         "The cost model counts the bytes a kernel reads (each operand from outside the group, "
         "at its own size) and writes (values used outside the group, and graph outputs). "
         "Fusion removes the bytes of the intermediate values that stay inside a kernel.",
         ("bytes read", "bytes written", "bytes moved", "memory traffic", "round trip",
          "round trips"), ("memory-bound",)),
    Term("flops", "FLOPs",
         "Floating-point operations a kernel performs.",
         "Counted per op by its definition (a multiply counts one per element; a matmul "
         "counts its multiplies and its adds). Duplicated producers are counted in every "
         "kernel that recomputes them.",
         ("FLOPs", "FLOP"), ("arithmetic-intensity",)),
    Term("arithmetic-intensity", "Arithmetic intensity",
         "FLOPs per byte of memory traffic: where a kernel sits on the roofline.",
         "A kernel whose intensity is below the device's ridge point (peak FLOP/s divided by "
         "bandwidth) is memory-bound; above it, compute-bound. Fusion raises intensity: the same "
         "FLOPs, fewer bytes.",
         ("arithmetic intensity", "intensity"), ("roofline",)),
    Term("roofline", "Roofline",
         "A kernel's best time: the larger of its compute time and its memory time.",
         "Plotted as attainable FLOP/s against arithmetic intensity, the roof is the bandwidth "
         "line up to the ridge point and flat at the peak beyond it. On a CPU each cache level "
         "has its own bandwidth ceiling. A roofline is the best a kernel can do; real kernels "
         "sit below it.",
         ("roofline", "ridge point"), ("arithmetic-intensity", "memory-bound", "compute-bound")),
    Term("memory-bound", "Memory-bound",
         "A kernel whose time is set by the bytes it moves, not by its arithmetic.",
         "Most elementwise kernels are memory-bound: the processor waits for data. For them, "
         "fewer bytes means less time, which is why fusion pays.",
         ("memory-bound", "memory bound"), ("roofline", "compute-bound")),
    Term("compute-bound", "Compute-bound",
         "A kernel whose time is set by its arithmetic, not by its memory traffic.",
         "Large matmuls and convolutions are compute-bound. Fusing their epilogue removes bytes "
         "but leaves the arithmetic, so the saving is a small part of their time.",
         ("compute-bound", "compute bound"), ("roofline", "memory-bound")),
    Term("launch-overhead", "Launch overhead",
         "The fixed cost of starting a kernel, whatever its size.",
         "Microseconds on a GPU, a fraction of that for a function call on a CPU. For small "
         "tensors it dominates, so fewer kernels matter more than fewer bytes.",
         ("launch overhead", "launch-bound", "launches", "launch"), ("kernel",)),
    Term("register-pressure", "Register pressure",
         "How many values a fused kernel keeps live at once, each needing a register.",
         "The workbench estimates it as the peak number of live values in the fused expression "
         "plus a few for indexing. Above the device's cap the kernel spills to memory, so the "
         "planner refuses a fusion that would exceed it.",
         ("register pressure", "registers", "register"), ("occupancy",)),
    Term("occupancy", "Occupancy",
         "On a GPU, the fraction of a multiprocessor's thread slots a kernel can keep busy.",
         "Each thread's registers come from a fixed file per multiprocessor: more registers per "
         "thread, fewer resident threads, less latency hidden. Not applicable on the CPU.",
         ("occupancy",), ("register-pressure",)),
    Term("memory-level", "Memory level",
         "Which cache (or DRAM) a kernel's data stream from, each with its own bandwidth.",
         "On the CPU the cost model uses the bandwidth of the smallest cache that holds the "
         "bytes a kernel moves: the L2, the last-level cache, or DRAM.",
         ("memory level", "cache", "L2", "LLC", "DRAM"), ("roofline",)),
    Term("cost-model", "Cost model",
         "The workbench's prediction of a kernel's time from its bytes, FLOPs and launches.",
         "It combines compute time and memory time as XLA's GPU performance model does, adds "
         "the launch overhead, and names the term that dominates. Its CPU rates are measured on "
         "this machine; GPU profiles come from datasheets. The profiler checks it.",
         ("cost model", "predicted", "prediction"), ("roofline",)),
    Term("legality", "Legality",
         "Whether a set of ops may be one kernel at all; one checker decides, with a reason.",
         "A group is refused when it would form a cycle, put several contractions in one kernel, "
         "fuse a producer in front of a contraction, exceed the register cap, and so on. The "
         "planner and your edits go through the same checker.",
         ("legality", "legal", "illegal", "refused"), ("decision",)),
    Term("decision", "Decision record",
         "One step of the planner, taken or refused, with its reason and its numbers.",
         "The planner logs every fusion it tries. The Explain tab and the exercises show these "
         "records: the explanation of a plan is the planner's own log, not text written after.",
         ("decision", "decisions", "decision log"), ("legality",)),
    Term("batch-norm-folding", "Batch-norm folding",
         "At inference, a batch norm after a convolution is folded into its weights and bias.",
         "With fixed statistics, normalising is a per-channel scale and shift, so the scale "
         "goes into the convolution's weights and the shift becomes a bias: computed once when "
         "the weights are loaded. In training the statistics come from the batch itself, so "
         "nothing can be folded.",
         ("batch-norm folding", "folding", "folded", "batch norm"), ("epilogue",)),
    Term("hlo", "HLO",
         "XLA's High Level Operations: the IR in which XLA writes and optimises a program.",
         "An HLO module holds computations; its entry computation is the program, and each "
         "fusion instruction calls a fusion computation holding the fused ops.",
         ("HLO", "HLO module", "entry computation", "fusion computation"), ("fusion-group",)),
)

#: every term by id, in reading order
TERMS: dict[str, Term] = {t.id: t for t in _TERMS}

#: the glossary entry of each fusion kind (the names the planner gives groups)
KIND_TERMS = {"loop": "loop-fusion", "input": "input-fusion", "output": "output-fusion",
              "multi-output": "multi-output", "opaque": "opaque"}
#: the glossary entry of each bound the cost model names
BOUND_TERMS = {"memory": "memory-bound", "compute": "compute-bound", "launch": "launch-overhead"}


def term(term_id: str) -> Term:
    """The entry ``term_id``.

    Raises
    ------
    KeyError
        If there is no such term (a programming error: links are made from these ids).
    """
    return TERMS[term_id]


def _patterns() -> list[tuple[re.Pattern, str]]:
    pairs = []
    for t in _TERMS:
        for phrase in {t.title.lower(), *(a.lower() for a in t.aliases)}:
            pairs.append((phrase, t.id))
    pairs.sort(key=lambda p: -len(p[0]))  # longest phrase first
    return [(re.compile(r"(?<![\w.-])" + re.escape(p) + r"(?![\w-])", re.IGNORECASE), tid)
            for p, tid in pairs]


_PATTERNS = _patterns()


def find_terms(text: str, only: set | None = None) -> list[tuple[int, int, str]]:
    """The glossary terms named in ``text``: ``(start, end, term id)`` spans, not overlapping,
    in order; the first mention of each term only (a paragraph links a term once).

    Parameters
    ----------
    text : str
    only : set of str, optional
        Term ids to look for (default: all).

    Examples
    --------
    >>> [(text[s:e], t) for s, e, t in find_terms(text := "a memory-bound loop fusion")]
    [('memory-bound', 'memory-bound'), ('loop fusion', 'loop-fusion')]
    """
    matches = sorted((m.start(), -(m.end() - m.start()), m.end(), tid)
                     for pattern, tid in _PATTERNS if only is None or tid in only
                     for m in pattern.finditer(text))
    taken: list[tuple[int, int, str]] = []
    seen: set[str] = set()
    for start, _, end, tid in matches:  # earliest first, the longest phrase at a tie
        if tid in seen or any(start < e and end > s for s, e, _ in taken):
            continue
        taken.append((start, end, tid))
        seen.add(tid)
    return taken


def catalogue() -> list[dict]:
    """Every entry as JSON-ready dicts, in reading order."""
    return [t.to_json() for t in _TERMS]
