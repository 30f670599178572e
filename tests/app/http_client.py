"""A real HTTP server for the app in a thread, and a client that makes Dash callback requests
as the browser does (``POST /_dash-update-component``), for the HTTP-level tests."""

from __future__ import annotations

import base64
import json
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

from dash._utils import split_callback_id

from workbench.app import ids


class Served:
    """``app`` served by werkzeug's threaded server on 127.0.0.1 (a free port), as
    ``workbench serve`` serves it (the same request handler); stop with :meth:`close`."""

    def __init__(self, app):
        from werkzeug.serving import make_server

        from workbench.app.security import quiet_request_handler

        self.app = app
        self.server = make_server("127.0.0.1", 0, app.server, threaded=True,
                                  request_handler=quiet_request_handler())
        self.port = self.server.server_port
        self.base = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.thread.join(10)


@dataclass
class Answer:
    status: int
    body: bytes
    headers: dict

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.body)

    def props(self) -> dict:
        """(id, property) -> value of a callback answer (empty for no update)."""
        if self.status != 200:
            return {}
        out, doc = {}, self.json()
        for part in ("response", "sideUpdate"):   # set_props answers come as side updates
            for cid, props in (doc.get(part) or {}).items():
                for prop, value in props.items():
                    out[(cid, prop)] = value
        return out


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def http(base: str, path: str = "/", data=None, headers=None, method=None,
         timeout: float = 120) -> Answer:
    """One HTTP request (redirects not followed); an error status is an Answer too."""
    req = urllib.request.Request(base + path, data=data, headers=headers or {}, method=method)
    try:
        with _OPENER.open(req, timeout=timeout) as r:
            return Answer(r.status, r.read(), dict(r.headers))
    except urllib.error.HTTPError as e:
        return Answer(e.code, e.read(), dict(e.headers))


class Client:
    """Callback requests against a :class:`Served` app.

    ``call(output, values, changed)``: ``output`` names one output of the callback as
    ``"id.prop"`` (and ``inputs`` picks among callbacks sharing it); ``values`` maps
    ``(id, prop)`` of its inputs and states to values (None when absent).
    """

    def __init__(self, served: Served):
        self.base = served.base
        self.map = served.app.callback_map

    def key(self, output: str, trigger: str | None = None) -> str:
        for k, entry in self.map.items():
            if not callable(entry.get("callback")):
                continue
            outs = split_callback_id(k)
            outs = outs if isinstance(outs, list) else [outs]
            names = {f"{o['id']}.{o['property'].partition('@')[0]}" for o in outs}
            ins = {f"{d['id']}.{d['property']}" for d in entry["inputs"]}
            if output in names and (trigger is None or trigger in ins):
                return k
        raise KeyError(output)

    def body(self, key: str, values: dict, changed=None) -> dict:
        entry = self.map[key]
        item = lambda d: {"id": d["id"], "property": d["property"],  # noqa: E731
                          "value": values.get((d["id"], d["property"]))}
        inputs = [item(d) for d in entry["inputs"]]
        changed = changed or [f"{inputs[0]['id']}.{inputs[0]['property']}"]
        return {"output": key, "outputs": split_callback_id(key), "inputs": inputs,
                "state": [item(d) for d in entry.get("state", [])],
                "changedPropIds": changed}

    def post(self, body, headers=None) -> Answer:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        h = {"Content-Type": "application/json"}
        h.update(headers or {})
        return http(self.base, "/_dash-update-component", data, h, "POST")

    def call(self, output: str, values: dict, trigger: str | None = None) -> Answer:
        key = self.key(output, trigger)
        changed = [trigger] if trigger else None
        return self.post(self.body(key, values, changed))

    # ----- what a browser session does ---------------------------------------------------

    def new_session(self) -> str:
        a = self.call(f"{ids.SESSION}.data", {(ids.SESSION_REQUEST, "data"): 1})
        assert a.status == 200, a.text
        return a.props()[(ids.SESSION, "data")]

    def version(self, sid: str) -> dict:
        return {"sid": sid, "t": time.time_ns(), "graph": False}

    def edit(self, sid: str, button: str, selected: str | None = None, nodes=()) -> Answer:
        return self.call(f"{ids.EDIT_MSG}.children", {
            (button, "n_clicks"): 1, (ids.SESSION, "data"): sid, (ids.SELECTED, "data"): selected,
            (ids.CYTO, "selectedNodeData"): [{"node": n, "gid": "g"} for n in nodes]},
            trigger=f"{button}.n_clicks")

    def upload(self, sid: str, data: bytes, name: str) -> Answer:
        url = "data:application/octet-stream;base64," + base64.b64encode(data).decode()
        return self.call(f"{ids.LOAD_MSG}.children", {
            (ids.UPLOAD_CHECKED, "data"): {"contents": url, "filename": name},
            (ids.SESSION, "data"): sid, (ids.POLICY, "value"): "priority",
            (ids.DEVICE, "value"): "cpu"}, trigger=f"{ids.UPLOAD_CHECKED}.data")
