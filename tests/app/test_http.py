"""The app over real HTTP, as a careless or hostile client drives it: the Host/Origin guard and
the token, the headers, crafted callback requests, files outside the allowed folders, twenty
sessions at once, two hundred uploads, thirty compile & profile jobs (issue 15)."""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.app.http_client import http
from tests.conftest import REPO_ROOT, SAMPLES_DIR
from workbench.app import controller, ids

#: text that must never reach a client: a traceback, or a folder of this machine
LEAKS = ("Traceback", 'File "', str(REPO_ROOT), str(Path.home()), "/work/", "site-packages")


def leaks(text: str) -> list[str]:
    return [x for x in LEAKS if x and x in text]


# ----- who may ask ---------------------------------------------------------------------------

def test_a_rebinding_host_or_a_foreign_origin_is_refused(served):
    app, s, client = served(port=None)
    assert http(s.base, "/").status == 200
    refused = 0
    for headers in ({"Host": "attacker.example"}, {"Host": f"attacker.example:{s.port}"},
                    {"Host": f"127.0.0.1.attacker.example:{s.port}"}, {"Host": ""}):
        a = http(s.base, "/", headers=headers)
        assert a.status == 403 and "DNS-rebinding" in a.text, headers
        refused += 1
    sid = client.new_session()
    body = client.body(client.key(f"{ids.EDIT_MSG}.children", f"{ids.UNDO}.n_clicks"),
                       {(ids.UNDO, "n_clicks"): 1, (ids.SESSION, "data"): sid},
                       [f"{ids.UNDO}.n_clicks"])
    for headers in ({"Host": "attacker.example", "Origin": "http://attacker.example"},
                    {"Origin": "http://attacker.example"}, {"Origin": "null"},
                    {"Sec-Fetch-Site": "cross-site"}):
        a = client.post(body, headers)
        assert a.status == 403 and len(a.text.splitlines()) == 1, headers
        refused += 1
    assert client.post(body, {"Origin": s.base}).status == 200  # its own page's origin
    print(f"\nrebinding: {refused} of 8 requests with a foreign Host or Origin refused (403); "
          "the server's own origin answered 200")


def test_the_server_started_on_a_port_answers_only_for_that_port(served):
    from workbench.app.security import Guard, allowed_hosts

    g = Guard("127.0.0.1", 8050)
    assert g.host_ok("127.0.0.1:8050") and g.host_ok("localhost:8050") and g.host_ok("[::1]:8050")
    assert not g.host_ok("127.0.0.1:8051") and not g.host_ok("127.0.0.1")
    assert not g.host_ok("evil.example:8050") and not g.host_ok("localhost.:8050")
    assert g.origin_ok("http://localhost:8050") and not g.origin_ok("http://localhost:9999")
    assert "myhost.lan" in allowed_hosts("0.0.0.0", ["MyHost.lan"])
    assert "localhost" not in allowed_hosts("192.0.2.7")


def test_every_answer_has_security_headers_and_names_no_server_software(served):
    app, s, client = served()
    page = http(s.base, "/")
    for path in ("/", "/_dash-layout", "/_dash-dependencies", "/no-such-page"):
        a = http(s.base, path)
        assert a.headers["X-Frame-Options"] == "DENY", path
        assert a.headers["X-Content-Type-Options"] == "nosniff"
        assert "frame-ancestors 'none'" in a.headers["Content-Security-Policy"]
        assert "unsafe-eval" not in a.headers["Content-Security-Policy"]
        assert a.headers["Server"] == "workbench", a.headers["Server"]
        assert "Werkzeug" not in json.dumps(a.headers) and "Python/" not in json.dumps(a.headers)
    csp = page.headers["Content-Security-Policy"]
    assert "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]
    assert "'sha256-" in csp  # Dash's inline renderer script, allowed by its hash


def test_a_token_is_asked_for_when_the_server_has_one(served):
    app, s, client = served(token="s3cret-token")
    assert http(s.base, "/").status == 403
    assert "access token" in http(s.base, "/").text
    assert http(s.base, "/?token=wrong").status == 403
    a = http(s.base, "/?token=s3cret-token")
    assert a.status == 303 and a.headers["Location"] == "/"
    cookie = a.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    jar = cookie.split(";")[0]
    assert http(s.base, "/", headers={"Cookie": jar}).status == 200
    assert http(s.base, "/_dash-layout", headers={"X-Workbench-Token": "s3cret-token"}
                ).status == 200


# ----- crafted callback requests --------------------------------------------------------------

def _deep(n):
    v = []
    for _ in range(n):
        v = [v]
    return v


#: junk in place of one input or state value: wrong types, odd numbers and strings, nesting,
#: forged ids and paths (each sent to every callback, on one of its slots in turn) ...
JUNK = [7, -1, 1.5, True, [1, 2], {"a": 1}, {"contents": 5}, _deep(60), "\u00b2",
        "file:\u0663", "../../../../etc/passwd", ["file:0"], [{"node": ["x"]}] * 3,
        {"sid": ["a"], "t": "now"}, float("nan")]
#: ... large values, past every limit of a name (10,000 characters) or of a list (1,000 items)
#: but the generic bounds (1 MiB strings, 400,000 items: app/validation.py), so that some reach
#: callbacks (one to every callback, in turn) ...
BIG_JUNK = ["x" * 30_000, list(range(20_000))]
#: ... and much larger ones (to every 15th callback: each takes a second or so to send)
HUGE_JUNK = ["x" * 300_000, list(range(200_000))]


def junk_requests(callback_map):
    """(callback key, slot, junk value): every junk value to every server callback, on its
    slots in turn (a different slot for each value; every slot gets some), one large value to
    each, and the huge ones to a few."""
    out = []
    entries = [(k, e) for k, e in callback_map.items() if callable(e.get("callback"))]
    for c, (key, entry) in enumerate(entries):
        slots = [(d["id"], d["property"]) for d in entry["inputs"] + entry.get("state", [])]
        for j in range(max(len(JUNK), len(slots))):
            out.append((key, slots[(c + j) % len(slots)], JUNK[j % len(JUNK)]))
        out.append((key, slots[c % len(slots)], BIG_JUNK[c % len(BIG_JUNK)]))
        if c % 15 == 0:
            out += [(key, slots[(c + 1) % len(slots)], v) for v in HUGE_JUNK]
    return out


def test_junk_callback_values_are_refused_in_a_line_and_change_nothing(served, caplog):
    """Every server callback, each of its input and state slots, every junk value: the answer
    is a short refusal (400) or an answer without update, never a 500, a traceback or a path;
    the session's state is as it was."""
    app, s, client = served()
    sid = client.new_session()
    before = app.services.session(sid)[0]
    answers = []
    caplog.set_level(logging.WARNING)
    requests = junk_requests(app.callback_map)
    covered = {(key, slot) for key, slot, _ in requests}
    assert all((key, (d["id"], d["property"])) in covered
               for key, e in app.callback_map.items() if callable(e.get("callback"))
               for d in e["inputs"] + e.get("state", []))  # every slot gets junk
    for key, slot, junk in requests:
        values = {(ids.SESSION, "data"): sid, slot: junk}
        body = client.body(key, values)
        data = json.dumps(body, allow_nan=True).encode()
        a = client.post(data)
        answers.append(a)
        assert a.status in (200, 204, 400), (key, slot, a.status, a.text[:300])
        assert not leaks(a.text), (key, slot, a.text[:300])
        if a.status == 400:
            assert len(a.text.strip().splitlines()) == 1 and len(a.text) < 300
        after = app.services.session(sid)
        assert after is not None and after[0].graph_key == before.graph_key
    # forged request shapes
    for body in (b"{", b"[]", b"null", json.dumps({"output": "nope"}).encode(),
                 json.dumps({"output": f"{ids.GROUP_TABLE}.rowData"}).encode(),
                 json.dumps({"output": "fit-button.title", "inputs": []}).encode(),  # clientside
                 b"[" * 5000 + b"]" * 5000, b"{\"output\": " + b"[" * 100_000):
        a = client.post(body)
        assert a.status == 400 and not leaks(a.text), (body[:60], a.status, a.text[:200])
        answers.append(a)
    assert len(answers) > 800
    assert sum(a.status == 400 for a in answers) > 400
    logged = [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
    print(f"\ncrafted requests: {len(answers)} ({sum(a.status == 400 for a in answers)} "
          f"refused in a line, {sum(a.status == 500 for a in answers)} HTTP 500), "
          f"{sum(bool(leaks(a.text)) for a in answers)} with a traceback or path, "
          f"{len(logged)} tracebacks logged")
    assert not logged, logged[0].getMessage()


def test_a_callback_that_fails_inside_shows_a_line_and_keeps_the_state(served, monkeypatch):
    app, s, client = served()
    sid = client.new_session()
    before = app.services.session(sid)[0]
    group = max(before.plan.groups, key=lambda g: g.size)

    def broken(*args, **kwargs):
        raise RuntimeError(f"boom in {REPO_ROOT}/workbench/app/controller.py")

    monkeypatch.setattr(controller, "apply_user_edit", broken)
    a = client.edit(sid, ids.SPLIT, group.nodes[0])
    assert a.status == 200
    message = a.props()[(ids.APP_MSG, "children")]
    assert "could not be handled (RuntimeError)" in message and not leaks(message)
    assert app.services.session(sid)[0] is before  # nothing changed
    monkeypatch.undo()
    assert client.edit(sid, ids.SPLIT, group.nodes[0]).status == 200
    assert app.services.session(sid)[0].plan.num_kernels == before.plan.num_kernels + group.size - 1


def test_an_edit_answers_with_the_new_plans_summary_and_a_refusal_with_none(served):
    """The summary line comes in the edit's own response (with its canvas), not a round trip
    later with the group table: it counts the new plan's kernels, and the old ones after
    undo; a refused edit sends none (the summary stands)."""
    app, s, client = served()
    sid = client.new_session()
    before = app.services.session(sid)[0].plan
    group = max(before.groups, key=lambda g: g.size)
    assert group.size > 1
    split = client.edit(sid, ids.SPLIT, group.nodes[0]).props()
    after = app.services.session(sid)[0].plan
    assert after.num_kernels == before.num_kernels + group.size - 1
    assert split[(ids.PLAN_SUMMARY, "children")].startswith(f"{after.num_kernels} kernels ")
    assert (ids.CYTO, "elements") in split  # the canvas in the same answer
    undo = client.edit(sid, ids.UNDO).props()
    assert undo[(ids.PLAN_SUMMARY, "children")].startswith(f"{before.num_kernels} kernels ")
    refused = client.edit(sid, ids.MERGE, nodes=[group.nodes[0]]).props()
    assert refused[(ids.EDIT_MSG, "children")]
    assert (ids.PLAN_SUMMARY, "children") not in refused


def test_no_file_outside_the_allowed_folders_can_be_named(served, tmp_path):
    """Chooser keys and upload names that point elsewhere open nothing there (audited)."""
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "model.json").write_text((SAMPLES_DIR / "mlp.json").read_text())
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "chain.json").write_text((SAMPLES_DIR / "chain10.json").read_text())
    app, s, client = served(allowed / "chain.json")
    opened = []

    def audit(event, args):
        if event == "open" and args and isinstance(args[0], (str, bytes)):
            opened.append(str(args[0]))
    sys.addaudithook(audit)
    sid = client.new_session()
    names = [str(secret / "model.json"), "file:1", "file:\u00b9", "file:\u0661", "file:\uff11",
             "file:0/../../secret/model.json", "sample:../../secret/model",
             f"sample:{secret}/model", "file:-0", "file:00000001", "file:1e0"]
    for choice in names:
        a = client.call(f"{ids.LOAD_MSG}.children", {
            (ids.GRAPH_CHOICE, "value"): choice, (ids.SESSION, "data"): sid},
            trigger=f"{ids.GRAPH_CHOICE}.value")
        assert a.status in (200, 400) and not leaks(a.text)
        if a.status == 200:
            assert "unknown graph choice" in a.props()[(ids.LOAD_MSG, "children")]
    for name in (str(secret / "model.json"), "../secret/model.json", "/etc/passwd"):
        a = client.upload(sid, b"not a graph", name)
        assert a.status == 200 and not leaks(a.text)
        assert a.props()[(ids.LOAD_MSG, "children")].startswith(Path(name).name)
    hits = [p for p in opened if "secret" in p]
    print(f"\nfiles: {len(names) + 3} requests naming files outside the allowed folder, "
          f"{len(hits)} files opened there")
    assert not hits, hits
    assert app.services.session(sid)[0].source == "chain.json"


# ----- many users --------------------------------------------------------------------------------

def _session_work(client, sid, members, edits, times, errors):
    """Split the group of each member in turn and undo it, timing every edit request; then
    split the first ``len(members) % 4`` groups for good."""
    try:
        for k in range(edits):
            member = members[k % len(members)]
            for button, sel in ((ids.SPLIT, member), (ids.UNDO, None)):
                t0 = time.perf_counter()
                a = client.edit(sid, button, sel)
                times.append(time.perf_counter() - t0)
                style = a.props().get((ids.EDIT_MSG, "className")) if a.status == 200 else ""
                # what the edit did (a split of the selected group clears the selection with
                # a note) is information: an error is styled so
                if a.status != 200 or style != "msg info":
                    errors.append((button, a.status, a.text[:200]))
                client.call(f"{ids.GROUP_TABLE}.rowData",
                            {(ids.VERSION, "data"): client.version(sid)})
    except Exception as exc:  # noqa: BLE001 - reported by the test
        errors.append(repr(exc))


@pytest.mark.slow
def test_twenty_concurrent_sessions_are_isolated_and_edits_stay_fast(served):
    app, s, client = served()
    sids = [client.new_session() for _ in range(20)]
    proposal = app.services.session(sids[0])[0].plan
    multi = sorted((g for g in proposal.groups if g.size > 1), key=lambda g: -g.size)
    members = [g.nodes[0] for g in multi[:4]]
    times, errors, threads = [], [], []
    for sid in sids:
        t = threading.Thread(target=_session_work, args=(client, sid, members, 12, times, errors))
        threads.append(t)
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    wall = time.perf_counter() - t0
    assert not errors, errors[:3]
    # each session's own last edits, then isolation: every plan is what its own edits made
    for i, sid in enumerate(sids):
        for m in members[: i % 4]:
            assert client.edit(sid, ids.SPLIT, m).status == 200
    for i, sid in enumerate(sids):
        ws = app.services.session(sid)[0]
        want = proposal.num_kernels + sum(g.size - 1 for g in multi[: i % 4])
        assert ws.plan.num_kernels == want, (i, ws.plan.num_kernels, want)
        # each split was undone, and the next split dropped what could be redone
        assert len(ws.history) == 1 + max(1, i % 4) and ws.position == i % 4
    times.sort()
    p50, p95 = times[len(times) // 2], times[int(len(times) * 0.95)]
    goal = "met" if p95 <= 0.300 else "NOT met (a busy machine? compare with bench_web.py)"
    print(f"\n20 sessions, {len(times)} edits in {wall:.1f} s: edit p50 {p50 * 1e3:.1f} ms, "
          f"p95 {p95 * 1e3:.1f} ms, max {times[-1] * 1e3:.0f} ms; goal p95 <= 300 ms: {goal}")
    assert len(times) == 20 * 12 * 2
    # the figure (p95 <= 300 ms) is measured by bench/bench_web.py on a quiet machine;
    # here, beside another test worker, only a gross regression fails
    assert p95 <= 3.0, f"edit p95 {p95 * 1e3:.0f} ms under 20 sessions"


def chain_json(n: int, name: str) -> bytes:
    """A JSON graph: ``n`` elementwise ops in a chain on a [64, 64] input."""
    nodes = [{"id": "x", "op": "parameter", "type": {"shape": [64, 64], "dtype": "f32"},
              "attrs": {"index": 0}}]
    prev = "x"
    for k in range(n):
        op = ("exponential", "negate", "tanh")[k % 3]
        nodes.append({"id": f"op{k}", "op": op, "operands": [prev]})
        prev = f"op{k}"
    return json.dumps({"format": "fusion-workbench-graph", "version": 1, "name": name,
                       "nodes": nodes, "outputs": [prev]}).encode()


@pytest.mark.slow
def test_server_memory_stays_bounded_after_200_uploads(served):
    """200 distinct uploads, each from a new session, with at most 40 sessions and 48 MiB of
    estimated state kept: the store stays within both, evicted users are told so when they
    come back, and the server's resident memory grows by less than 120 MiB after the first 40
    (the uploads are parsed in the loader worker, whose memory is its own)."""
    import psutil

    budget = 48 << 20
    app, s, client = served(max_sessions=40, session_budget_bytes=budget)
    me = psutil.Process()
    sids, rss = [], {}
    for k in range(200):
        sid = client.new_session()
        sids.append(sid)
        a = client.upload(sid, chain_json(20 + k, f"chain{k}"), f"chain{k}.json")
        assert a.status == 200 and a.props()[(ids.LOAD_MSG, "children")] == "", a.text[:300]
        assert app.services.store.used_bytes() <= budget
        assert len(app.services.store) <= 40
        if k + 1 in (40, 200):
            rss[k + 1] = me.memory_info().rss
    growth = (rss[200] - rss[40]) / 2**20
    print(f"\n200 uploads: server RSS {rss[40] / 2**20:.0f} MiB after 40, "
          f"{rss[200] / 2**20:.0f} MiB after 200 (+{growth:.0f} MiB); store "
          f"{app.services.store.used_bytes() / 2**20:.1f} MiB estimated, "
          f"{len(app.services.store)} sessions")
    assert growth < 120
    gone = sids[0]
    assert app.services.session(gone) is None and app.services.store.gone(gone) == "evicted"
    a = client.call(f"{ids.SESSION}.data", {(ids.SESSION_REQUEST, "data"): 2,
                                            (ids.SESSION, "data"): gone})
    assert "let go to keep the server within its memory budget" in a.props()[
        (ids.LOAD_NOTE, "children")]


def _profile_session(client, sid, jobs, outcomes, deadline_s=240):
    for _ in range(jobs):
        a = client.call(f"{ids.PROFILE_MSG}.children", {
            (ids.PROFILE_RUN, "n_clicks"): 1, (ids.SESSION, "data"): sid,
            (ids.PROFILE_BACKEND, "value"): "cpu"}, trigger=f"{ids.PROFILE_RUN}.n_clicks")
        msg = a.props().get((ids.PROFILE_MSG, "children"))
        if msg:
            outcomes.append(("refused", msg))
            continue
        end = time.monotonic() + deadline_s
        while time.monotonic() < end:
            p = client.call(f"{ids.PROFILE_VERSION}.data", {
                (ids.PROFILE_POLL, "n_intervals"): 1, (ids.SESSION, "data"): sid}).props()
            if p.get((ids.PROFILE_POLL, "disabled")):
                outcomes.append((p[(ids.PROFILE_STATUS, "children")],
                                 p.get((ids.PROFILE_MSG, "children"), "")))
                break
            time.sleep(0.3)
        else:
            outcomes.append(("hung", sid))


@pytest.mark.slow
def test_thirty_profile_jobs_from_five_sessions_all_end(served):
    """Five sessions, six jobs each, two workers, a second job of a session refused while one
    is in flight: every job ends (a report, or a message), none hangs. (Time-outs, cancels,
    a dead worker and the global limit: tests/app/test_jobs.py.)"""
    app, s, client = served(profile_workers=2, max_jobs=5, job_timeout_s=120,
                            profile_options={"repeat": 2, "warmup": 0, "budget_s": 0.2})
    samples = ["chain10", "mlp", "softmax", "layernorm_gelu", "chain10_transc"]
    sids = []
    for name in samples:
        sid = client.new_session()
        a = client.call(f"{ids.LOAD_MSG}.children", {
            (ids.GRAPH_CHOICE, "value"): f"sample:{name}", (ids.SESSION, "data"): sid},
            trigger=f"{ids.GRAPH_CHOICE}.value")
        assert a.status == 200
        sids.append(sid)
    # one job in flight per session: a second click is refused in words
    run = {(ids.PROFILE_RUN, "n_clicks"): 1, (ids.SESSION, "data"): sids[0],
           (ids.PROFILE_BACKEND, "value"): "cpu"}
    assert client.call(f"{ids.PROFILE_MSG}.children", run, f"{ids.PROFILE_RUN}.n_clicks"
                       ).props()[(ids.PROFILE_MSG, "children")] == ""
    second = client.call(f"{ids.PROFILE_MSG}.children", run, f"{ids.PROFILE_RUN}.n_clicks")
    assert "already" in second.props()[(ids.PROFILE_MSG, "children")]
    app.services.jobs.latest(sids[0]).done.wait(240)
    outcomes, threads = [], []
    for sid in sids:
        threads.append(threading.Thread(target=_profile_session, args=(client, sid, 6, outcomes)))
    for t in threads:
        t.start()
    for t in threads:
        t.join(900)
    states = [o[0] for o in outcomes]
    print(f"\n30 jobs: {states.count('done')} done, "
          f"{len(states) - states.count('done')} ended otherwise: "
          f"{sorted(set(o for o in outcomes if o[0] != 'done'))[:5]}")
    assert len(outcomes) == 30 and "hung" not in states
    for state, message in outcomes:
        assert state == "done" or message, (state, message)   # an end says why
    assert states.count("done") == 30   # one job per session in flight: within the limit
    for sid in sids:
        assert app.services.store.report(sid)["report"]["ok"] is True
    assert app.services.jobs.active() == 0


# ----- Tune: a job, not a request ----------------------------------------------------------------

def _click_tune(client, sid, budget):
    t0 = time.perf_counter()
    a = client.call(f"{ids.TUNE_SUMMARY}.children", {
        (ids.TUNE_RUN, "n_clicks"): 1, (ids.TUNE_BUDGET, "value"): budget,
        (ids.SESSION, "data"): sid}, trigger=f"{ids.TUNE_RUN}.n_clicks")
    assert a.status == 200, a.text[:300]
    return a.props(), time.perf_counter() - t0


def _poll_tune(client, sid, limit_s=600):
    """Poll the tune job as the page's interval does, until the poll turns itself off; returns
    (the last answer's props, every status line seen)."""
    seen, end = [], time.monotonic() + limit_s
    while time.monotonic() < end:
        p = client.call(f"{ids.TUNE_STATUS}.children", {
            (ids.TUNE_POLL, "n_intervals"): 1, (ids.SESSION, "data"): sid},
            trigger=f"{ids.TUNE_POLL}.n_intervals").props()
        seen.append(p[(ids.TUNE_STATUS, "children")])
        if p.get((ids.TUNE_POLL, "disabled")):
            return p, seen
        time.sleep(0.3)
    raise AssertionError(f"the tune job did not end in {limit_s} s: {seen[-3:]}")


@pytest.mark.slow
def test_tune_answers_at_once_and_its_job_ends_with_trials(served, private_cache):
    """*Tune* queues a job and answers in well under a second (it used to compile and measure
    every variant inside the request); a second *Tune* while it runs is refused in a line; the
    poll follows it to its end: the trials, the results store's history; a second tune reuses
    every stored measurement (none fresh)."""
    from workbench.tuning.store import ResultsStore

    app, s, client = served(SAMPLES_DIR / "chain10.json")
    sid = client.new_session()
    assert app.services.session(sid)[1].name == "chain10"
    start = app.services.session(sid)[0].plan
    p, took = _click_tune(client, sid, 2)
    assert took < 1.0, f"the Tune request took {took:.2f} s"
    assert p[(ids.TUNE_STATUS, "children")] == "tuning: up to 2 variant(s)…"
    assert p[(ids.TUNE_POLL, "disabled")] is False and p[(ids.TUNE_RUN, "disabled")] is True
    task = app.services.jobs.latest(f"tune:{sid}")
    assert task is not None and task.kind == "tune" and not task.over
    again, took2 = _click_tune(client, sid, 5)
    assert took2 < 1.0 and "already" in again[(ids.TUNE_SUMMARY, "children")]
    assert len(again[(ids.TUNE_SUMMARY, "children")].splitlines()) == 1
    assert app.services.jobs.latest(f"tune:{sid}") is task     # refused: nothing queued
    p, seen = _poll_tune(client, sid)
    assert task.state == "done", (task.state, task.error)
    result = task.result["result"]
    assert any(x.startswith("tuning:") for x in seen)           # progress was shown
    assert p[(ids.TUNE_STATUS, "children")] == \
        f"done: {sum(t.status == 'ok' for t in result.trials)} variant(s) measured"
    rows = p[(ids.TUNE_TABLE, "rowData")]
    assert len(rows) == len(result.trials) == 2
    assert [r["change"] for r in rows] == [t.description for t in result.trials]
    assert (result.fresh, result.reused) == (3, 0)               # the start and 2 variants
    summary = p[(ids.TUNE_SUMMARY, "children")]
    assert summary.startswith("Measured the start plan and 2 variant(s) in ")
    assert "(3 measurements: 3 made now, 0 from the results store)" in summary
    with ResultsStore(private_cache / "results.sqlite") as store:
        assert store.count() == 3
    assert len(p[(ids.TUNE_HISTORY, "rowData")]) == 3
    # each stored prediction says which cost model made it
    assert {r["cost"] for r in p[(ids.TUNE_HISTORY, "rowData")]} == {"cpu"}
    ws = app.services.session(sid)[0]
    if result.improved:     # the faster plan is the current one, and the page is told
        assert ws.plan.fingerprint == result.best.fingerprint
        assert p[(ids.VERSION, "data")]["sid"] == sid
    else:
        assert ws.plan.fingerprint == start.fingerprint and (ids.VERSION, "data") not in p
    # the second tune (of the same plan, unless the first made a faster one current)
    _click_tune(client, sid, 2)
    _poll_tune(client, sid)
    second = app.services.jobs.latest(f"tune:{sid}")
    assert second is not task and second.state == "done"
    if not result.improved:     # every measurement is the store's
        assert (second.result["result"].fresh, second.result["result"].reused) == (0, 3)
    else:                       # its start is the first tune's best: measured already
        assert second.result["result"].reused >= 1
    print(f"\ntune job: the click answered in {took * 1e3:.0f} ms (a second click refused in "
          f"{took2 * 1e3:.0f} ms); {len(result.trials)} variants, {result.fresh} fresh "
          f"measurements in {result.seconds:.1f} s; the second tune: "
          f"{second.result['result'].fresh} fresh, {second.result['result'].reused} reused")


def _alive(procs, wait_s=10.0) -> list:
    """Those of ``procs`` (psutil processes) still running after up to ``wait_s`` (an orphan
    leaves this process's tree, so it is looked for by its own pid)."""
    import psutil

    end = time.monotonic() + wait_s
    while True:
        left = [p for p in procs if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
        if not left or time.monotonic() > end:
            return left
        time.sleep(0.1)


@pytest.mark.slow
def test_a_tune_whose_kernel_hangs_past_the_job_limit_ends_in_a_line_and_leaves_no_process(
        served, private_cache):
    """A tune whose measurement hangs (``tests.tuning.faulty:hang``) runs past the server's
    job limit: it is stopped with one line; its worker and the worker measuring for it (which
    would hang on, orphaned) are both ended; nothing is stored; the plan is as it was; Cancel
    with nothing in flight says so."""
    import psutil

    from workbench.tuning.store import ResultsStore

    # the limit leaves time for the tune's worker to start its measuring worker (a fresh Python
    # importing numba: over 3 s on a loaded 2-core machine, where a 3 s limit ended the job first)
    app, s, client = served(SAMPLES_DIR / "chain10.json", job_timeout_s=15.0,
                            tune_options={"task": "tests.tuning.faulty:hang", "timeout_s": 600})
    sid = client.new_session()
    start = app.services.session(sid)[0].plan

    def measuring():
        return [c for c in psutil.Process().children(recursive=True)
                if "workbench.tuning.worker" in " ".join(c.cmdline())]
    p, took = _click_tune(client, sid, 3)
    assert took < 1.0
    end = time.monotonic() + 60
    while not measuring() and time.monotonic() < end:    # the hanging measurement started
        time.sleep(0.1)
    hung = measuring()
    assert hung, "the tune's measuring worker never started"
    p, _ = _poll_tune(client, sid, limit_s=120)
    assert p[(ids.TUNE_STATUS, "children")] == "timed out: stopped"
    message = p[(ids.TUNE_SUMMARY, "children")]
    assert message == "the tune job took longer than its limit of 15 s and was stopped", message
    assert p[(ids.TUNE_RUN, "disabled")] is False and p[(ids.TUNE_POLL, "disabled")] is True
    assert app.services.session(sid)[0].plan.fingerprint == start.fingerprint
    assert not _alive(hung), "the hung measuring worker outlived its tune"
    with ResultsStore(private_cache / "results.sqlite") as store:
        assert store.count() == 0
    a = client.call(f"{ids.TUNE_STATUS}.children", {
        (ids.TUNE_CANCEL, "n_clicks"): 1, (ids.SESSION, "data"): sid},
        trigger=f"{ids.TUNE_CANCEL}.n_clicks")
    assert a.props()[(ids.TUNE_STATUS, "children")] == \
        "nothing to cancel: no tune is queued or running"


@pytest.mark.slow
def test_a_tune_whose_kernel_crashes_says_so_in_a_line_and_stores_nothing(served,
                                                                           private_cache):
    from workbench.tuning.store import ResultsStore

    app, s, client = served(SAMPLES_DIR / "chain10.json",
                            tune_options={"task": "tests.tuning.faulty:crash"})
    sid = client.new_session()
    _click_tune(client, sid, 2)
    p, _ = _poll_tune(client, sid, limit_s=120)
    summary = p[(ids.TUNE_SUMMARY, "children")]
    assert summary.startswith("The plan could not be measured (crash): the worker process "
                              "died (killed by signal SIGSEGV)"), summary
    assert len(summary.splitlines()) == 1 and p[(ids.TUNE_TABLE, "rowData")] == []
    with ResultsStore(private_cache / "results.sqlite") as store:
        assert store.count() == 0


@pytest.mark.slow
def test_a_running_tune_is_cancelled_with_its_measuring_worker(served, private_cache):
    import psutil

    app, s, client = served(SAMPLES_DIR / "chain10.json",
                            tune_options={"task": "tests.tuning.faulty:hang", "timeout_s": 600})
    sid = client.new_session()
    _click_tune(client, sid, 2)
    task = app.services.jobs.latest(f"tune:{sid}")

    def measuring():
        return [c for c in psutil.Process().children(recursive=True)
                if "workbench.tuning.worker" in " ".join(c.cmdline())]
    end = time.monotonic() + 60
    while not measuring() and time.monotonic() < end:    # the hanging measurement started
        time.sleep(0.1)
    hung = measuring()
    assert task.state == "running" and hung
    a = client.call(f"{ids.TUNE_STATUS}.children", {
        (ids.TUNE_CANCEL, "n_clicks"): 1, (ids.SESSION, "data"): sid},
        trigger=f"{ids.TUNE_CANCEL}.n_clicks").props()
    assert a[(ids.TUNE_STATUS, "children")].startswith("cancelled: stopped")
    assert a[(ids.TUNE_RUN, "disabled")] is False and task.state == "cancelled"
    assert not _alive(hung), "the hung measuring worker outlived its tune"


def test_an_uploaded_bad_json_graph_names_file_line_node_and_key_and_the_server_runs_on(
        served):
    """In the app: the upload's message has the key path too, and the session keeps its graph
    and answers the next upload."""
    app, _, client = served()
    sid = client.new_session()
    before = app.services.session(sid)[0].source
    from tests.importers.test_json import X, doc

    bad = doc([X, {"id": "y", "op": "negate", "operands": ["x"],
                   "type": {"shape": [4, "x"], "dtype": "f32"}}]).encode()
    msg = client.upload(sid, bad, "graph.json").props()[(ids.LOAD_MSG, "children")]
    assert msg.startswith("graph.json:") and "node 'y': nodes[1].type.shape[1]: bad dimension" \
        in msg, msg
    assert app.services.session(sid)[0].source == before
    good = client.upload(sid, doc([X, {"id": "y", "op": "negate", "operands": ["x"]}]).encode(),
                         "good.json").props()
    assert good[(ids.LOAD_MSG, "children")] == ""
