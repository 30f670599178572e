"""The lessons, one per concept, easy to hard.

Each text is a template: every figure is a ``{fact}`` from the graph, the planner, the cost
model, a transform or the profile (:mod:`.facts`); the test suite checks that no lesson types a
figure by hand (:func:`~.template.literal_figures`). Claims are checked on this machine
(:mod:`.claims`). Node names in the texts are the lesson graphs' own ids (:mod:`.graphs`).
"""

from __future__ import annotations

from workbench.teaching import graphs
from workbench.teaching.facts import Fact, text_fact
from workbench.teaching.lesson import Claim, Lesson, Variant


def core_claims(stage: str = "fused") -> tuple:
    """The four claims most lessons check: fewer bytes, faster, the memory-bound textbook
    expectation, and the cost model's prediction."""
    return (
        Claim("fewer-bytes", stage, "Fusion removes the round trips of the values that stay "
              "inside a kernel."),
        Claim("faster", stage, "The fused plan is faster than the unfused one."),
        Claim("memory-bound-ideal", stage, "The textbook argument: these ops are memory-bound, "
              "so time follows bytes and the speedup is the ratio of bytes moved."),
        Claim("prediction", stage, "The cost model predicts both plans' times."),
    )


# ----- lesson-specific facts ------------------------------------------------------------------

def _decision(plan, test) -> str:
    d = next((d for d in plan.decisions if test(d)), None)
    return d.message if d is not None else "(the planner made no such decision on this graph)"


def rules_facts(run) -> dict:
    """The planner's own sentences for each rule the rules lesson shows."""
    plan, where = run.plan, f"the planner's decision log ({run.plan.policy})"

    def fact(test):
        return text_fact(_decision(plan, test), "planner", where)

    return {
        "rules.duplicate": fact(lambda d: d.fused and d.action == "fuse" and len(d.members) > 1),
        "rules.reduction": fact(lambda d: d.reason == "duplicate-reduction"),
        "rules.output": fact(lambda d: d.reason == "graph-output"),
        "rules.sibling": fact(lambda d: d.fused and d.action == "sibling"),
        "rules.cycle": fact(lambda d: d.reason == "cycle"),
    }


def folding_facts(run) -> dict:
    """What batch-norm folding did at inference, and what the transform and the planner say
    about the training graph."""
    from workbench.planner import plan_graph
    from workbench.transforms import fold_batch_norms

    _, report = fold_batch_norms(run.graph)
    folded = run.stage("folded")
    offline = [g for g in folded.plan.groups if g.role == "offline"]
    training = graphs.conv_bn_relu_training()
    _, treport = fold_batch_norms(training)
    tplan = plan_graph(training, run.lesson.policy, run.device)
    refusal = _decision(tplan, lambda d: not d.fused and "conv" in d.nodes)
    return {
        "fold.count": Fact(len(report.folded), "count", "transform",
                           "batch norms folded by workbench.transforms.fold_batch_norms"),
        "fold.offline_ops": Fact(len(report.offline), "count", "transform",
                                 "ops that compute the folded weights and bias"),
        "fold.offline_kernels": Fact(len(offline), "count", "planner",
                                     "offline kernels of the folded plan"),
        "fold.offline_time": Fact(folded.cost.offline_total.predicted_s, "seconds",
                                  "cost model", "predicted time of the offline kernels"),
        "training.fold_reason": text_fact(treport.reason or "; ".join(
            r for _, r in treport.skipped), "transform", "fold_batch_norms on the training graph"),
        "training.refusal": text_fact(refusal, "planner", "the planner on the training graph"),
        "training.kernels": Fact(tplan.num_kernels, "count", "planner",
                                 "kernels of the planner's plan for the training graph"),
    }


def sibling_facts(run) -> dict:
    """The planner's own sentence on the sibling pair (fused or kept apart, and why)."""
    return {"sibling.decision": text_fact(_decision(run.plan, lambda d: d.action == "sibling"),
                                          "planner", f"the planner's decision log "
                                          f"({run.plan.policy})")}


def duplication_facts(run) -> dict:
    return {"t.users": Fact(len(run.graph.users("t")), "count", "graph", "consumers of t")}


def register_facts(run) -> dict:
    from workbench.costmodel.model import get_device

    cap = run.device.max_registers_per_thread
    return {
        "device.cap": Fact(cap, "count", "cost model",
                           f"{run.device.name} profile: registers per thread allowed"),
        "device.real_cap": Fact(get_device("h100").max_registers_per_thread, "count",
                                "cost model", "h100 profile (datasheet): registers per thread"),
        "regs.refusal": text_fact(_decision(run.plan, lambda d: d.reason == "registers"),
                                  "planner", "the planner's decision log"),
    }


def _plan_groups_on(device: str):
    """Member sets of the planner's plan of a graph on another device (a variant's groups)."""
    def groups(graph):
        from workbench.planner import plan_graph

        return [g.nodes for g in plan_graph(graph, "priority", device).groups]
    return groups


def _folded(graph):
    from workbench.transforms import fold_batch_norm

    return fold_batch_norm(graph)


# ----- the lessons ----------------------------------------------------------------------------

LESSONS = (
    Lesson(
        "vertical", "Vertical fusion: a producer into its consumer",
        ("producer-consumer", "vertical-fusion", "kernel", "bytes"), graphs.vertical,
        ("The graph multiplies x by y, then adds z. Unfused, the multiply is a kernel and the "
         "add another: the producer writes its result, product ({value.product}), to memory and "
         "the consumer reads it back.",
         "Fused, the add computes the product where it needs it, in a register, and the product "
         "never leaves the kernel: {unfused.kernels} kernels become {fused.kernels}, and the "
         "bytes the cost model counts drop from {unfused.bytes_moved} to {fused.bytes_moved}. "
         "On the {device.name} profile it predicts {unfused.predicted} unfused and "
         "{fused.predicted} fused.",
         "Measured on this machine: {fused.measured} fused against {fused.measured_unfused} "
         "unfused, a speedup of {fused.measured_speedup}."),
        core_claims()),
    Lesson(
        "sibling", "Horizontal (sibling) fusion: sine and cosine of one tensor",
        ("horizontal-fusion", "multi-output", "transcendental"), graphs.sin_cos,
        ("Sine and cosine both read x and neither reads the other: there is no edge between "
         "them to fuse along. Unfused, each is a kernel that reads x ({value.x}) for itself.",
         "Horizontal (sibling) fusion puts them side by side in one multi-output kernel, which "
         "reads x once and writes both results: {unfused.kernels} kernels become "
         "{fused.kernels}, the bytes read go from {unfused.bytes_read} to {fused.bytes_read}, and "
         "the bytes written stay {fused.bytes_written}, since both results are outputs. The "
         "planner, on the {device.name} profile: \u201c{sibling.decision}\u201d.",
         "The saving is smaller than a vertical fusion's: a read and a launch, no intermediate "
         "value. And sine and cosine are transcendentals, costly per element: the cost model "
         "counts {fused.transcendentals} of them and finds the kernel {fused.bound}."),
        core_claims(), facts=sibling_facts),
    Lesson(
        "loop", "Loop fusion: a chain of pointwise ops",
        ("loop-fusion", "vertical-fusion", "launch-overhead", "memory-bound"), graphs.chain,
        ("The chain applies pointwise ops to {graph.inputs} inputs, one after another; the "
         "constants it "
         "uses are broadcast to the tensors' shape, and each broadcast is an op too: "
         "{graph.ops} ops in all. Unfused, each is a kernel: {unfused.kernels} launches, every "
         "intermediate value written and read back, {unfused.bytes_read} read and "
         "{unfused.bytes_written} written.",
         "Loop fusion computes each output element through the whole chain in one loop: the "
         "inputs are read once, the result written once, the intermediate values live in "
         "registers. Fused: {fused.kernels} kernel, {fused.bytes_read} read and "
         "{fused.bytes_written} written. The arithmetic does not change ({unfused.flops} FLOPs "
         "unfused, {fused.flops} fused); only the traffic and the launches do.",
         "The cost model predicts {unfused.predicted} unfused, of which {unfused.launch} is "
         "launch overhead, and {fused.predicted} fused, {fused.bound}.",
         "Compute time counts FLOP-equivalents, not FLOPs: each transcendental, here the square "
         "root, counts as {device.transcendental_flops} on the {device.name} profile. The "
         "fused "
         "kernel's {fused.flops} FLOPs and {fused.transcendentals} square roots come to "
         "{fused.kernel_flop_equivalents}, {fused.kernel_intensity} counted so per byte moved. "
         "The ridge "
         "of its memory level ({fused.level}) is {fused.ridge}: a kernel above it is "
         "compute-bound, below it memory-bound. This one is {fused.bound}, "
         "{fused.kernel_compute} of arithmetic against {fused.kernel_memory} of memory "
         "traffic."),
        core_claims(), questions=("chain-launch",)),
    Lesson(
        "input", "Input fusion: exp, reduce-sum, divide",
        ("input-fusion", "reduction", "loop-fusion"), graphs.softmax_sum,
        ("Softmax of each row without its max: exponentiate, sum the row, divide each element "
         "by its row's sum. The sum is a reduction, and a reduction with the ops that feed it is "
         "an input fusion: the exponentials are computed while the row is reduced.",
         "Unfused, {unfused.kernels} kernels write the exponentials ({value.exp}), the row sums "
         "({value.row_sum}) and the sums broadcast back over the rows ({value.sum_b}); the cost "
         "model counts {unfused.bytes_moved} moved. Fused, {fused.kernels} kernel reads x "
         "({value.x}) and writes the probabilities: {fused.bytes_moved}.",
         "The broadcast only re-reads the row sums, so it is fused into the divide, as "
         "broadcasts nearly always are; and the divide reads the same row the reduction just "
         "summed. The kernel is {fused.bound} in the cost model."),
        core_claims()),
    Lesson(
        "output", "Output fusion: MatMul + bias + GELU",
        ("output-fusion", "epilogue", "contraction", "compute-bound"), graphs.matmul_bias_gelu,
        ("A dense layer: a matmul, a bias added to each row, GELU. The matmul is a contraction, "
         "{flops.matmul} FLOPs on operands of {value.x} and {value.w}; the bias add and GELU are "
         "its epilogue, element by element on its result ({value.matmul}).",
         "Unfused, that result is written, read by the bias add, written again and read by GELU. "
         "Output fusion applies the epilogue to each tile of the matmul's result before storing "
         "it: {unfused.kernels} kernels become {fused.kernels} and {fused.saved_bytes} of "
         "traffic goes. A ReLU epilogue fuses the same way; GELU, in its tanh form, adds "
         "{fused.transcendentals} transcendentals to the kernel.",
         "The matmul's arithmetic stays. The cost model finds the fused kernel {fused.bound}, "
         "{fused.kernel_compute} of compute against {fused.kernel_memory} of memory traffic, and "
         "predicts a speedup of {fused.speedup} where the bytes ratio is {fused.bytes_ratio}. "
         "A producer cannot be fused in front of a matmul the same way: the contraction reads "
         "its operands from memory, tile by tile, many times."),
        core_claims()),
    Lesson(
        "conv", "Output fusion: Conv + bias + ReLU",
        ("output-fusion", "epilogue", "contraction"), graphs.conv_bias_relu,
        ("A convolution is a contraction too: every output element sums products over a window "
         "of the input and all its channels, {flops.conv} FLOPs here. Its epilogue, a "
         "per-channel bias and a ReLU, works element by element on its result ({value.conv}).",
         "So it fuses as a matmul's does: {unfused.kernels} kernels become {fused.kernels}, "
         "and the cost model counts {fused.saved_bytes} fewer bytes, {unfused.bytes_moved} "
         "against {fused.bytes_moved}.",
         "Whether that shows in the time depends on how much of the time those bytes were. The "
         "cost model predicts {unfused.predicted} unfused and {fused.predicted} fused; the fused "
         "kernel is {fused.bound}."),
        core_claims()),
    Lesson(
        "conv-bn", "Conv + batch norm + ReLU, and batch-norm folding",
        ("batch-norm-folding", "epilogue", "output-fusion", "reduction"), graphs.conv_bn_relu,
        ("At inference a batch norm uses fixed statistics: subtract a per-channel mean, divide "
         "by a per-channel deviation, scale and shift. That is a per-channel affine map, so the "
         "planner can run it as the convolution's epilogue with the ReLU: {unfused.kernels} "
         "kernels become {fused.kernels}, with {fused.saved_bytes} fewer bytes.",
         "Folding goes further. The map's scale can be multiplied into the convolution's "
         "weights and its shift becomes a bias, so the batch norm leaves the per-call graph. "
         "The transform folded {fold.count} batch norm; {fold.offline_ops} offline ops, in "
         "{fold.offline_kernels} kernels ({fold.offline_time}), compute the new weights and "
         "bias once, when the weights are loaded. Per call the folded graph runs "
         "{folded.kernels} kernel, a convolution with a bias and ReLU: {folded.flops} FLOPs "
         "against {fused.flops} with the batch norm fused.",
         "In training it does not apply: the mean and variance are the batch's own, reduced "
         "from the convolution's output at every step, so there is nothing constant to fold. "
         "Given the training graph, the folding transform says: "
         "\u201c{training.fold_reason}\u201d. "
         "Nor can the normalisation be the convolution's epilogue, since it needs the whole "
         "output reduced first; the planner: \u201c{training.refusal}\u201d. The training graph "
         "runs as {training.kernels} kernels.",
         "Rules of thumb promise a large speedup from fusing conv, batch norm and ReLU. This "
         "machine measured {fused.measured} with the batch norm fused and {folded.measured} "
         "folded, against {fused.measured_unfused} unfused."),
        core_claims() + (
            Claim("slower-than", "fused", "Folding makes each call cheaper than fusing the "
                  "batch norm as an epilogue does.", other="folded"),),
        variants=(Variant("folded", "after batch-norm folding (inference)", graph=_folded),),
        facts=folding_facts),
    Lesson(
        "layernorm", "LayerNorm + GELU: a named input fusion",
        ("input-fusion", "reduction", "transcendental"), graphs.layernorm_gelu,
        ("Layer norm normalises each row: it reduces the row for its mean and variance, then "
         "shifts and scales every element; GELU follows, element by element. The workbench keeps "
         "layer norm as one composite op, and its code generator expands it inside the kernel.",
         "The planner's named pattern layer_norm+gelu makes the pair one input fusion: "
         "{unfused.kernels} kernels become {fused.kernels}, and the normalised tensor "
         "({value.ln}) is never written: {fused.saved_bytes} fewer bytes.",
         "The kernel reduces each row and applies the normalisation and GELU to the same row "
         "while it is close at hand. The cost model finds it {fused.bound}, with "
         "{fused.transcendentals} transcendentals (GELU's tanh)."),
        core_claims()),
    Lesson(
        "rules", "The planner's rules: several users, duplication, outputs",
        ("duplication", "producer-consumer", "decision", "legality", "horizontal-fusion"),
        graphs.rules,
        ("Fusing is simple when a producer has one consumer. Here each producer has several: "
         "shared (read by square and diff), row_sum (a reduction, read by share through a "
         "broadcast and by sum_sq), and t (a tanh that is also a graph output). Step through "
         "the planner's decisions: each is a record with its reason and numbers.",
         "A cheap producer is duplicated, fused into each consumer's kernel and recomputed "
         "there, since an add costs less than writing its result and reading it back: "
         "\u201c{rules.duplicate}\u201d.",
         "A reduction is not: recomputing it would repeat all of its work for every consumer. "
         "\u201c{rules.reduction}\u201d. A graph output must be written anyway, so copying its "
         "producer into the consumers saves nothing: \u201c{rules.output}\u201d.",
         "Kernels that read the same input can become one multi-output kernel, "
         "\u201c{rules.sibling}\u201d, unless a path between them runs through another kernel, "
         "which would make the fused kernel depend on itself: \u201c{rules.cycle}\u201d. In all, "
         "{unfused.kernels} kernels become {fused.kernels}. Expensive producers and register "
         "pressure have lessons of their own."),
        core_claims()[:2] + core_claims()[3:], facts=rules_facts),
    Lesson(
        "cost-model", "The cost model, and why not every fusion pays",
        ("cost-model", "roofline", "arithmetic-intensity", "launch-overhead", "duplication"),
        graphs.expensive_shared,
        ("The cost model prices a kernel from what it moves and what it computes. Memory time "
         "is the bytes read and written over the bandwidth of the level they stream from "
         "({device.bandwidth} from DRAM on the {device.name} profile); compute time is the "
         "FLOPs, each transcendental counted as many FLOPs, over the peak rate "
         "({device.peak}); compute and memory overlap, and each kernel adds a launch overhead "
         "({device.launch}). Arithmetic intensity, FLOPs per byte, says which term wins: that "
         "is the roofline.",
         "Fusion removes bytes and launches, but it can add work. Here an expensive producer, "
         "t = tanh(x), has {t.users} consumers. A fuser that always fuses puts t into each of "
         "their kernels and computes it again in each: {duplicated.kernels} kernels, "
         "{duplicated.transcendentals} transcendentals against {unfused.transcendentals} "
         "unfused, {duplicated.bytes_moved} moved. The planner prices that and writes t once "
         "instead: {fused.kernels} kernels, {fused.bytes_moved} moved, "
         "{fused.transcendentals} transcendentals.",
         "Predicted: {duplicated.predicted} duplicated, {fused.predicted} for the planner's "
         "plan, {unfused.predicted} unfused. The slowest duplicated kernel is "
         "{duplicated.bound}, at an intensity of {duplicated.intensity}.",
         "Not every fusion pays: it pays when the bytes and launches it removes cost more than "
         "the work it adds, and that depends on the device. The what-if question below moves "
         "the launch overhead until duplicating pays."),
        (Claim("slower-than", "duplicated", "Recomputing the expensive producer in every "
               "consumer is slower than writing it once.", other="fused"),
         Claim("faster", "fused", "The planner's plan is faster than the unfused one."),
         Claim("prediction", "duplicated", "The cost model predicts the duplicated plan."),
         Claim("prediction", "fused", "The cost model predicts the planner's plan.")),
        variants=(Variant("duplicated", "t fused into every consumer (duplicated)",
                          groups=graphs.duplicated_groups),),
        facts=duplication_facts, questions=("duplication-launch", "duplication-transcendental")),
    Lesson(
        "registers", "Register pressure and occupancy",
        ("register-pressure", "occupancy", "legality"), graphs.wide_product,
        ("Every value a fused kernel keeps live at once needs a register. The cost model "
         "estimates a kernel's registers as the peak number of live values in its expression "
         "plus a few for indexing. This graph multiplies exponentials in a tree, so many values "
         "are live before the products combine them.",
         "On a GPU, registers per thread are capped, and a kernel above the cap spills to "
         "memory. This lesson plans on the {device.name} profile, a cap of {device.cap} "
         "registers per thread, far below a real GPU's {device.real_cap}, so that a small graph "
         "meets it. Fused whole, the kernel would need {uncapped.registers} registers. The "
         "planner grows its kernels one merge at a time and refuses the first merge whose "
         "kernel would pass the cap, long before the whole graph is one kernel: "
         "\u201c{regs.refusal}\u201d. Its plan has {fused.kernels} kernels, "
         "needing at most {fused.registers} registers each.",
         "Registers also set occupancy, the share of a multiprocessor's thread slots a kernel "
         "keeps busy: more registers per thread, fewer threads resident. At "
         "{uncapped.registers} registers the kernel fused whole keeps {uncapped.occupancy}; "
         "occupancy falls only for kernels that need many more.",
         "The cost model gives the CPU no register cap, so this lesson is costed, not "
         "measured."),
        (Claim("registers", "fused", "The planner keeps every kernel within the register cap, "
               "though fusing everything would exceed it.", other="uncapped"),),
        variants=(Variant("uncapped", "fused whole (as without a cap)",
                          groups=_plan_groups_on("h100"), measure=False),),
        facts=register_facts, device="h100-r20", measure=False),
)

#: lessons by id, in teaching order
BY_ID = {lesson.id: lesson for lesson in LESSONS}
