"""A shareable link to a workspace state (no Dash): what to put in the URL, and reading it back.

A link carries a token, ``base64url(zlib(JSON))``, of the graph choice (a chooser key the
server made, ``sample:mlp`` or ``file:2``: never a path), the policy, the device profile (a
knobbed name included) and the current plan's groups of two or more ops, each as positions in
the graph's topological order (compact, and no node name travels). Reading a token back checks
everything: its size before decoding (:data:`MAX_TOKEN`), its decompressed size, its JSON
shape, the choice against the server's list, the policy and device against the known ones, and
the groups through :func:`~workbench.planner.plan.make_plan` and the one legality checker. A
bad, tampered or oversized token raises :class:`~workbench.errors.InputError` with one line;
the app then opens the default state and shows that line.
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


def encode_state(choice: str, policy: str, device: str, plan, graph) -> str:
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
    doc = {"v": VERSION, "g": choice, "p": policy, "d": device, "f": groups}
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
        ``choice``, ``policy``, ``device``, ``groups`` (lists of topological positions).

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
    return {"choice": choice, "policy": policy, "device": device, "groups": groups}


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
