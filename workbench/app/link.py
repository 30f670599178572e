"""A shareable link to a workspace state (no Dash): what to put in the URL, and reading it back.

A link carries a token, ``base64url(zlib(JSON))``, of the graph choice (a chooser key the
server made, ``sample:mlp`` or ``file:2``: never a path) with the first 16 hex digits of the
graph's fingerprint (so a link to ``file:2`` of a server that now lists another file there is
refused), the policy, the device profile (a knobbed name included), the What-if sliders'
positions, and the current plan's groups of two or more ops, each as positions in the graph's
topological order (compact, and no node name travels). Reading a token back checks
everything: its size before decoding (:data:`MAX_TOKEN`), its decompressed size, its JSON
shape, the choice against the server's list, the policy and device against the known ones, the
sliders against their ranges, and the groups through :func:`~workbench.planner.plan.make_plan`
and the one legality checker. A bad, tampered or oversized token raises
:class:`~workbench.errors.InputError` with one line; the app shows that line and changes
nothing. Nothing of a token is ever a file name or reaches generated code: the choice is looked
up among the server's keys, the rest are numbers and known names.
"""

from __future__ import annotations

import base64
import json
import zlib

from workbench.errors import InputError, WorkbenchError

#: the longest token read (characters); longer links are refused before decoding
MAX_TOKEN = 8192
#: the most bytes a token may decompress to
MAX_JSON = 256 << 10
#: the format tag of a token's JSON
VERSION = 1


def encode_state(choice: str, policy: str, device: str, plan, graph,
                 knobs: dict | None = None) -> str:
    """The token of a workspace state.

    Parameters
    ----------
    choice : str
        The graph chooser's key (``sample:NAME`` or ``file:N``).
    policy, device : str
        The planner policy and device profile name.
    plan : Plan
        The current plan; its groups of two or more ops are kept (as topological positions).
    graph : Graph
        The plan's graph.
    knobs : dict, optional
        The What-if sliders' positions (knob name -> slider value, :mod:`.whatif`'s
        ``SLIDERS``); neutral ones may be left out.

    Returns
    -------
    str
        URL-safe base64 without padding.

    Raises
    ------
    InputError
        If the state has no chooser key (an uploaded graph cannot be linked) or the token
        would be longer than :data:`MAX_TOKEN`.
    """
    if not choice:
        raise InputError("an uploaded graph cannot be shared as a link: choose a sample or a "
                         "file the server offers")
    pos = {n: i for i, n in enumerate(graph.topo_order)}
    groups = [sorted(pos[n] for n in g.nodes) for g in plan.groups if len(g.nodes) > 1]
    doc = {"v": VERSION, "g": choice, "h": graph.fingerprint[:16], "p": policy, "d": device,
           "f": groups, "k": {k: v for k, v in (knobs or {}).items() if v is not None}}
    raw = zlib.compress(json.dumps(doc, separators=(",", ":")).encode(), 9)
    token = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    if len(token) > MAX_TOKEN:
        raise InputError(f"the plan is too big for a link ({len(token)} characters, limit "
                         f"{MAX_TOKEN}): save it with the Plan JSON button instead")
    return token


def decode_state(token, choices, policies, devices_ok) -> dict:
    """The state a token holds, checked (see the module docstring).

    Parameters
    ----------
    token : str
        From the link.
    choices : collection of str
        The chooser keys the server offers.
    policies : collection of str
        The planner's policies.
    devices_ok : callable
        ``devices_ok(name)`` raises :class:`WorkbenchError` for a device name it refuses.

    Returns
    -------
    dict
        ``choice``, ``fingerprint`` (16 hex digits, or None), ``policy``, ``device``,
        ``groups`` (lists of topological positions), ``knobs`` (slider positions).

    Raises
    ------
    InputError
        One line saying what is wrong with the link.
    """
    if not isinstance(token, str) or not token:
        raise InputError("the link holds no workspace state")
    if len(token) > MAX_TOKEN:
        raise InputError(f"the link is too long ({len(token)} characters, limit {MAX_TOKEN})")
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        d = zlib.decompressobj()
        text = d.decompress(raw, MAX_JSON)
        if d.unconsumed_tail or not d.eof:
            raise InputError("the link is damaged or too big once unpacked")
        doc = json.loads(text)
    except (ValueError, zlib.error, RecursionError):
        raise InputError("the link is damaged (not a workbench link)") from None
    if not isinstance(doc, dict) or doc.get("v") != VERSION:
        raise InputError("the link is not a workbench link of this version")
    choice, policy, device = doc.get("g"), doc.get("p"), doc.get("d")
    if not isinstance(choice, str) or choice not in choices:
        raise InputError("the link names a graph this server does not offer")
    if not isinstance(policy, str) or policy not in policies:
        raise InputError("the link names an unknown planner policy")
    if not isinstance(device, str) or len(device) > 1024:
        raise InputError("the link names no device profile")
    try:
        devices_ok(device)
    except WorkbenchError as exc:
        raise InputError(f"the link's device profile is refused: {exc}") from None
    groups = doc.get("f", [])
    if not (isinstance(groups, list) and len(groups) <= 100_000 and all(
            isinstance(g, list) and 1 < len(g) <= 100_000 and all(
                isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in g)
            for g in groups)):
        raise InputError("the link's plan groups are malformed")
    fingerprint = doc.get("h")
    if fingerprint is not None and not (isinstance(fingerprint, str) and len(fingerprint) == 16
                                        and all(c in "0123456789abcdef" for c in fingerprint)):
        raise InputError("the link's graph fingerprint is malformed")
    return {"choice": choice, "fingerprint": fingerprint, "policy": policy, "device": device,
            "groups": groups, "knobs": check_knobs(doc.get("k", {}))}


def check_knobs(knobs) -> dict:
    """A link's slider positions, checked: known knobs, finite numbers within each slider's
    range (:data:`workbench.app.whatif.SLIDERS`; a linear slider: any finite value).

    Raises
    ------
    InputError
        For an unknown knob or a value out of range.
    """
    from workbench.app.whatif import SLIDERS

    specs = {s.knob: s for s in SLIDERS}
    if not isinstance(knobs, dict):
        raise InputError("the link's knob settings are malformed")
    for k, v in knobs.items():
        spec = specs.get(k)
        if spec is None:
            raise InputError(f"the link sets an unknown knob {str(k)[:40]!r}")
        number = isinstance(v, (int, float)) and not isinstance(v, bool) and v == v
        # a log slider's position is an exponent in its range; a linear one holds the value
        # itself (the profile's own is its neutral position), as validation.py checks them
        inside = number and (spec.low <= v <= spec.high if spec.scale == "log"
                             else abs(v) < 1e12)
        if not inside:
            raise InputError(f"the link's knob {k} is outside its slider's range")
    return dict(knobs)


def check_graph(state: dict, graph) -> None:
    """Refuse a link whose graph is not the one the server offers under its choice now.

    Raises
    ------
    InputError
        If the fingerprints differ (the server's file changed, or lists another file there).
    """
    want = state.get("fingerprint")
    if want is not None and graph.fingerprint[:16] != want:
        raise InputError(f"the link's graph is not available: {state['choice']} on this server "
                         f"is another graph ({graph.name}) than the one the link was made on")


def same_state(ws, graph, state: dict) -> bool:
    """True when workspace ``ws`` (on ``graph``) already shows a link's ``state``: the same
    chooser key and graph, policy, device and grouping (what following it again would make)."""
    if (ws.choice, ws.policy, ws.device) != (state["choice"], state["policy"], state["device"]):
        return False
    if state.get("fingerprint") not in (None, graph.fingerprint[:16]):
        return False
    pos = {n: i for i, n in enumerate(graph.topo_order)}
    mine = sorted(sorted(pos[n] for n in g.nodes) for g in ws.plan.groups if len(g.nodes) > 1)
    return mine == sorted(sorted(g) for g in state["groups"])


def restore_plan(graph, groups, policy: str, device: str):
    """The plan a link's groups describe on ``graph``: those groups, every other op alone,
    each group checked by the legality checker.

    Raises
    ------
    InputError
        If a position is outside the graph or a group is not a legal kernel.
    """
    from workbench.costmodel import get_device
    from workbench.planner.legality import check_group
    from workbench.planner.plan import is_source, make_plan

    order = graph.topo_order
    if any(i >= len(order) for g in groups for i in g):
        raise InputError("the link's plan does not fit this graph (a node past its end)")
    sets = [[order[i] for i in g] for g in groups]
    covered = {n for s in sets for n in s}
    sets += [[n] for n in order if n not in covered and not is_source(graph, n)]
    dev = get_device(device)
    for s in sets:
        refusal = check_group(graph, frozenset(s), dev, None) if len(s) > 1 else None
        if refusal is not None:
            raise InputError(f"the link's plan has an illegal group: {refusal.message}")
    try:
        return make_plan(graph, sets, policy=policy, device=device)
    except WorkbenchError as exc:
        raise InputError(f"the link's plan does not fit this graph: {exc}") from None
