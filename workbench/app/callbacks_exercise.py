"""Callbacks of the Learn page's exercises (draw the groups, check the answer) and what-if
questions (move a knob of the cost model)."""

from __future__ import annotations

import json

from dash import Input, Output, State, ctx, dcc, no_update
from dash.exceptions import PreventUpdate

from workbench.app import controller, ids, learn_view
from workbench.app.fmt import plural
from workbench.app.glossary_links import linkify
from workbench.errors import WorkbenchError

#: exercise buttons -> the answer edits of learn_view.edit_answer
ACTIONS = {ids.EX_GROUP: "group", ids.EX_UNGROUP: "ungroup", ids.EX_RESET: "reset"}


def exercise_of(item: dict):
    """The exercise an item names, or None."""
    from workbench import teaching

    if (item or {}).get("kind") != "exercise":
        return None
    return teaching.EXERCISES_BY_ID.get(item.get("id"))


def question_of(item: dict):
    from workbench import teaching

    if (item or {}).get("kind") != "question":
        return None
    return teaching.QUESTIONS_BY_ID.get(item.get("id"))


def shown_groups(exercise, answer, show: str) -> tuple[list, str]:
    """The groups to draw (dicts) and a line saying whose they are."""
    from workbench.app.graph_figure import grouping_from_plan
    from workbench.planner import xla_plan
    from workbench.teaching.scoring import planner_key

    if show == "planner":
        key = planner_key(exercise)
        return grouping_from_plan(key), (f"The planner's plan: {key.num_kernels} kernels "
                                         f"({exercise.policy} policy, {key.device} profile).")
    if show == "xla" and exercise.real_module:
        xp = xla_plan(exercise.graph())
        return grouping_from_plan(xp), f"XLA's own fusions: {xp.num_kernels} kernels."
    plan = learn_view.answer_plan(exercise, answer)
    multi = [g for g in plan.groups if g.size > 1]
    text = (f"Your answer: {plural(len(multi), 'group')} of several ops, "
            f"{plural(plan.num_kernels, 'kernel')} in all." if multi else
            "Your answer: every op its own kernel. Select ops and press Group.")
    return grouping_from_plan(plan), text


def register(app, services) -> None:
    """Attach the exercise and what-if callbacks."""

    @app.callback(Output(ids.EX_TITLE, "children"), Output(ids.EX_PROMPT, "children"),
                  Output(ids.EX_CYTO, "elements"), Output(ids.EX_STATE, "children"),
                  Output(ids.EX_SCORE, "children"), Output(ids.EX_DIFFS, "data"),
                  Output(ids.EX_PROGRESS, "children"), Output(ids.EX_SHOW, "options"),
                  Input(ids.LEARN_ITEM, "data"), Input(ids.EX_VERSION, "data"),
                  Input(ids.EX_SHOW, "value"), State(ids.SESSION, "data"),
                  prevent_initial_call=True)
    def show_exercise(item, _v, show, sid):
        from workbench import teaching
        from workbench.teaching.exercises import LEVELS

        exercise = exercise_of(item)
        if exercise is None:
            if (item or {}).get("kind") != "exercise":
                raise PreventUpdate
            return (f"No exercise named {item.get('id')!r}", "", [], "", "", [], "",
                    no_update)
        learning = services.store.learning(sid)
        options = [{"label": " my answer", "value": "answer"},
                   {"label": " the planner's plan", "value": "planner"},
                   {"label": " XLA's fusions", "value": "xla",
                    "disabled": not exercise.real_module}]
        title = f"{exercise.title} · level {exercise.level} ({LEVELS[exercise.level]})"
        progress = learn_view.progress_line(learning, teaching.EXERCISES)
        try:
            graph = exercise.graph()
            answer = learning.get("answers", {}).get(exercise.id, [])
            groups, state = shown_groups(exercise, answer, show or "answer")
        except WorkbenchError as exc:
            return title, exercise.prompt, [], controller.error_text(exc), "", [], progress, \
                options
        elements = learn_view.drawn_elements(services.layouts, graph, groups,
                                             salt=f"{exercise.id}|{show}")
        prompt = linkify(exercise.prompt) + [
            " Against: " + ("the planner and XLA's own fusions" if exercise.real_module
                            else "the planner") + "."]
        score = learning.get("scores", {}).get(exercise.id)
        if score is None:
            return title, prompt, elements, state, "", [], progress, options
        from workbench.teaching.scoring import score_answer

        result = score_answer(exercise, answer)  # the stored answer, scored again: the same
        return (title, prompt, elements, state, learn_view.score_line(result),
                learn_view.difference_rows(result), progress, options)

    @app.callback(Output(ids.EX_VERSION, "data"), Output(ids.EX_MSG, "children"),
                  Output(ids.EX_SHOW, "value"),
                  *[Input(b, "n_clicks") for b in (*ACTIONS, ids.EX_CHECK)],
                  State(ids.EX_CYTO, "selectedNodeData"), State(ids.LEARN_ITEM, "data"),
                  State(ids.SESSION, "data"), prevent_initial_call=True)
    def edit(*args):
        selected, item, sid = args[-3:]
        exercise = exercise_of(item)
        if exercise is None or services.session(sid) is None or not ctx.triggered_id:
            raise PreventUpdate
        nodes = controller.selection_nodes(selected)
        with services.lock(sid):
            learning = services.store.learning(sid)
            answer = learning.get("answers", {}).get(exercise.id, [])
            try:
                if ctx.triggered_id == ids.EX_CHECK:
                    from workbench.teaching.scoring import score_answer

                    new = learn_view.record_score(learning, exercise.id,
                                                  score_answer(exercise, answer))
                else:
                    groups = learn_view.edit_answer(exercise, answer, ACTIONS[ctx.triggered_id],
                                                    nodes)
                    new = learn_view.with_answer(learning, exercise.id, groups)
            except WorkbenchError as exc:
                return no_update, controller.error_text(exc), no_update
            services.store.put_learning(sid, new, size=len(json.dumps(new)))
        return {"exercise": exercise.id, "n": sum(a or 0 for a in args[:-3])}, "", "answer"

    @app.callback(Output(ids.Q_TITLE, "children"), Output(ids.Q_TEXT, "children"),
                  Output(ids.Q_CHART_BOX, "children"), Output(ids.Q_ANSWER, "children"),
                  Input(ids.LEARN_ITEM, "data"), Input(ids.Q_DEVICE, "value"),
                  Input(ids.Q_KNOB, "value"), prevent_initial_call=True)
    def show_question(item, device, knob):
        from workbench.app.learn_figures import whatif_figure
        from workbench.teaching.whatif import KNOBS, answer_text, sweep

        question = question_of(item)
        if question is None:
            raise PreventUpdate
        s = sweep(question, device or "cpu")
        value = min(max(s.own_value * 10 ** float(knob or 0), s.values[0]), s.values[-1])
        label, unit = KNOBS[question.knob]
        scale, shown = {"seconds": (1e-6, "µs"), "bytes-rate": (1e9, "GB/s")}.get(
            unit, (1.0, "FLOP"))
        fig = whatif_figure(s.values, s.times_a, s.times_b, [n for n, _ in question.plans],
                            label, value, s.crossing, scale, shown, s.planner_times)
        from workbench.teaching.whatif import planner_choice

        kernels = planner_choice(question, s.device, value)
        (a, _), (b, _) = question.plans
        answer = answer_text(s, value) + (
            f" The planner itself, with the knob here, makes {plural(kernels, 'kernel')}; "
            f"{a} has {s.kernels[0]} and {b} {s.kernels[1]}.")
        text = linkify(question.text) + [" Move the knob: the slider multiplies the device's "
                                         "own value by powers of ten."]
        chart = dcc.Graph(id=ids.Q_CHART, figure=fig, config={"displaylogo": False},
                          className="chart")
        return question.title, text, chart, answer

    @app.callback(Output(ids.Q_KNOB, "value"), Output(ids.Q_KNOB, "min"),
                  Output(ids.Q_KNOB, "max"), Input(ids.LEARN_ITEM, "data"),
                  Input(ids.Q_DEVICE, "value"), prevent_initial_call=True)
    def reset_knob(item, device):
        """The knob back at the device's own value; the slider spans the sweep's range."""
        import math

        from workbench.teaching.whatif import sweep

        question = question_of(item)
        if question is None:
            raise PreventUpdate
        s = sweep(question, device or "cpu")
        return (0, math.floor(100 * math.log10(s.values[0] / s.own_value)) / 100,
                math.ceil(100 * math.log10(s.values[-1] / s.own_value)) / 100)

