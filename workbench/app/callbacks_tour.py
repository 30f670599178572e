"""The first-visit tour of the workbench's main view: a card that walks through the panels,
pointing at each; it opens on a first visit (unless the app was started without it), closes
for good with *Close* (remembered in the browser's local storage) and reopens with *Tour*."""

from __future__ import annotations

from dash import ClientsideFunction, Input, Output, State, ctx, no_update
from dash.exceptions import PreventUpdate

from workbench.app import ids
from workbench.app.glossary_links import linkify

#: (element the step points at, title, text)
STEPS = (
    (ids.GRAPH_CHOICE, "Choose a graph",
     "Pick a sample graph, a real XLA module or your own .json or .hlo file. Policy chooses "
     "the planner's rules and Device the cost model's device profile; changing either plans "
     "again."),
    (ids.CYTO, "The graph and its fusion groups",
     "Each coloured box is a fusion group: one kernel. Click an op to select its group; "
     "shift-click to select several. A duplicated producer is drawn, dashed, in every group "
     "that recomputes it."),
    (ids.SEARCH, "Layers, Find, Fit and the map",
     "The canvas shows the model's layers, from the name scopes JAX writes, with the groups "
     "inside them. Click a closed layer to open it; Find searches ids, ops and scopes and "
     "opens what it finds; Fit shows everything, and the map at the bottom right shows where "
     "you are."),
    (ids.LEGEND, "What the colours mean",
     "Loop fusion, input fusion, output fusion, multi-output fusion: the kinds XLA names. Each "
     "name links to the glossary."),
    (ids.TABS, "Plan: the groups, and your edits",
     "The Plan tab lists every kernel with its predicted time. Merge, split, move, forbid or "
     "pin groups; an illegal edit changes nothing and shows the legality checker's reason."),
    (ids.TABS, "Cost and Explain",
     "Cost shows a group's bytes read and written, FLOPs, arithmetic intensity and launch "
     "overhead, and the roofline. Explain is the planner's decision log: step through it from "
     "every op alone to the final plan."),
    (ids.TABS, "What-if and Diff",
     "What-if moves the cost model's knobs, such as the launch overhead or a bandwidth, plans "
     "again and lists the decisions that flipped. Diff shows two plans side by side."),
    (ids.TABS, "Compile & profile",
     "Compile the plan with numba, check it against the reference interpreter and time every "
     "kernel on this machine, fused and unfused, against the cost model's prediction."),
    (ids.LEARN_LINK, "Learn",
     "Lessons on each kind of fusion that measure their own claims here, exercises where you "
     "predict the fusion and are scored against the planner and XLA, what-if questions and "
     "the glossary."),
)


def step_view(step):
    """(style, title, text, count, next label, back disabled, target) of a tour step (None:
    the card hidden)."""
    if step is None or not 0 <= step < len(STEPS):
        return {"display": "none"}, "", "", "", "Next", True, None
    target, title, text = STEPS[step]
    last = step == len(STEPS) - 1
    return ({}, title, linkify(text), f"{step + 1} of {len(STEPS)}",
            "Done" if last else "Next", step == 0, target)


def register(app, services, enabled: bool) -> None:
    """Attach the tour's callbacks; ``enabled``: a first visit opens it."""

    @app.callback(Output(ids.TOUR_STEP, "data"), Output(ids.TOUR_SEEN, "data"),
                  Output(ids.FIRST_VISIT, "data", allow_duplicate=True),
                  Input(ids.URL, "pathname"), Input(ids.TOUR_OPEN, "n_clicks"),
                  Input(ids.TOUR_NEXT, "n_clicks"), Input(ids.TOUR_BACK, "n_clicks"),
                  Input(ids.TOUR_CLOSE, "n_clicks"), State(ids.TOUR_STEP, "data"),
                  State(ids.TOUR_SEEN, "data"), prevent_initial_call="initial_duplicate")
    def move(pathname, _o, _n, _b, _c, step, seen):
        """The tour's step; a first visit that opens the tour also dismisses the welcome box
        (the tour says what it says), so that a newcomer is not shown both at once."""
        trigger = ctx.triggered_id
        if trigger in (None, ids.URL):  # a page load: a first visit opens the tour
            if enabled and not seen and (pathname or "/") == "/" and step is None:
                return 0, no_update, {"seen": True}
            raise PreventUpdate
        if trigger == ids.TOUR_OPEN:
            return 0, no_update, no_update
        if trigger == ids.TOUR_CLOSE or (trigger == ids.TOUR_NEXT and step is not None
                                         and step >= len(STEPS) - 1):
            return None, True, no_update
        if step is None:
            raise PreventUpdate
        return max(0, step + (1 if trigger == ids.TOUR_NEXT else -1)), no_update, no_update

    @app.callback(Output(ids.TOUR, "style"), Output(ids.TOUR_TITLE, "children"),
                  Output(ids.TOUR_TEXT, "children"), Output(ids.TOUR_COUNT, "children"),
                  Output(ids.TOUR_NEXT, "children"), Output(ids.TOUR_BACK, "disabled"),
                  Output(ids.TOUR_TARGET, "data"), Input(ids.TOUR_STEP, "data"),
                  Input(ids.URL, "pathname"))
    def show(step, pathname):
        if (pathname or "/").startswith("/learn"):
            step = None  # the tour is of the main view
        return step_view(step)

    app.clientside_callback(ClientsideFunction("learn", "pointAt"),
                            Output(ids.TOUR_CLOSE, "title"), Input(ids.TOUR_TARGET, "data"))
