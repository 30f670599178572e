"""Who may talk to the server, and what its answers tell the browser.

- **Host and Origin** (against DNS rebinding): a page on another site can make its own name
  resolve to 127.0.0.1 and then drive the server as if it were the user; its requests carry
  *its* name in ``Host`` and ``Origin``. A request is answered only when ``Host`` names the
  address the server was started on (for a loopback address also ``localhost``, ``127.0.0.1``
  and ``[::1]``; for ``0.0.0.0`` this machine's names and addresses), with its port, and when
  a request that changes something (not GET/HEAD) has no ``Origin`` but that one, and does not
  come ``cross-site`` (``Sec-Fetch-Site``). Refused: 403 and one line.
- **An access token** (``workbench serve --host 0.0.0.0`` makes one, ``--token`` sets one):
  every request must carry it, as the ``token`` query parameter once (the server then sets a
  cookie, ``HttpOnly; SameSite=Strict``, and redirects to the same page without it), the
  cookie, or the ``X-Workbench-Token`` header. Compared in constant time.
- **Headers on every answer**: a Content-Security-Policy that runs only the server's own
  scripts (and the page's inline ones by their hashes), ``X-Frame-Options: DENY`` (and
  ``frame-ancestors 'none'``), ``X-Content-Type-Options: nosniff``, ``Referrer-Policy:
  no-referrer``, ``Cross-Origin-Opener-Policy`` and ``-Resource-Policy: same-origin``;
  callback answers are not cached. The ``Server`` header names no software or version
  (:class:`QuietRequestHandler`).

The rules follow OWASP's cheat sheets (HTTP Headers, DNS rebinding: "validate the Host
header") and Jupyter's server, which checks ``Host``/``Origin`` and asks for a token when it
listens beyond the loopback interface.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import re
import secrets
import socket
from urllib.parse import urlencode, urlsplit

#: the names a loopback-bound server answers to
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})
#: headers added to every answer (the CSP is built per answer: see :func:`csp`)
HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}
_INLINE_SCRIPT = re.compile(rb"<script(?![^>]*\bsrc=)([^>]*)>(.*?)</script>", re.S | re.I)


def new_token() -> str:
    """A fresh access token (24 random bytes, URL-safe)."""
    return secrets.token_urlsafe(24)


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    h = host.strip("[]").lower()
    if h == "localhost":
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False


def machine_names() -> set[str]:
    """This machine's host names and interface addresses (for a server on 0.0.0.0)."""
    names = {socket.gethostname().lower(), socket.getfqdn().lower()}
    try:
        import psutil

        for addrs in psutil.net_if_addrs().values():
            for a in addrs:
                if a.family in (socket.AF_INET, socket.AF_INET6):
                    ip = a.address.split("%")[0].lower()
                    names.add(f"[{ip}]" if ":" in ip else ip)
    except Exception:  # noqa: BLE001 - the names alone will do
        pass
    return names


def allowed_hosts(host: str, extra=()) -> frozenset[str]:
    """The host names (lower case, IPv6 in brackets) a server bound to ``host`` answers to."""
    h = host.lower()
    names = {f"[{h.strip('[]')}]" if ":" in h else h}
    if is_loopback(h):
        names |= LOOPBACK_NAMES
    if h in ("0.0.0.0", "::", "[::]", ""):
        names |= LOOPBACK_NAMES | machine_names()
    return frozenset(names | {e.lower() for e in extra})


def split_host(value: str) -> tuple[str, int | None]:
    """``("name", port)`` of a Host header value (``[::1]:8050``, ``localhost``); the port is
    None when absent, -1 when it is not a number."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        name, rest = value[:end + 1], value[end + 1:]
    else:
        name, _, port = value.partition(":")
        rest = f":{port}" if port else ""
    if not rest:
        return name, None
    port = rest[1:]
    return name, int(port) if re.fullmatch(r"[0-9]{1,5}", port) else -1


def csp(body: bytes | None = None) -> str:
    """The Content-Security-Policy for an answer; for an HTML page, its inline scripts are
    allowed by their SHA-256 hashes (CSP level 2 hash sources), nothing else inline."""
    hashes = []
    for attrs, code in _INLINE_SCRIPT.findall(body or b""):
        if b"application/json" in attrs.lower():
            continue  # data, not run
        digest = base64.b64encode(hashlib.sha256(code).digest()).decode()
        hashes.append(f"'sha256-{digest}'")
    scripts = " ".join(["'self'", *hashes])
    return ("default-src 'self'; "
            f"script-src {scripts}; "
            "style-src 'self' 'unsafe-inline'; "   # plotly and React set styles at run time
            "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; "
            "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'")


class Guard:
    """The checks and headers of the module docstring, for one server.

    Parameters
    ----------
    host : str
        The address the server listens on.
    port : int or None
        Its port; None accepts any (an app made for tests, whose port the runner picks).
    token : str or None
        The access token every request must carry, or None.
    allow_hosts : iterable of str
        More names requests may use.
    """

    def __init__(self, host: str, port: int | None, token: str | None = None, allow_hosts=()):
        self.hosts = allowed_hosts(host, allow_hosts)
        self.port = port
        self.token = token
        self.cookie = f"workbench-token-{port or 'any'}"

    def host_ok(self, value: str | None) -> bool:
        """True when a Host header value names this server."""
        if not value:
            return False
        name, port = split_host(value)
        if name not in self.hosts:
            return False
        return self.port is None or port == self.port or (port is None and self.port == 80)

    def origin_ok(self, origin: str | None) -> bool:
        """True when an Origin header (if any) is this server's own."""
        if origin is None:
            return True
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False  # "null" (a sandboxed frame, a file:// page) and the like
        return self.host_ok(parts.netloc)

    def token_ok(self, request) -> bool:
        """True when no token is needed, or the request carries it."""
        if self.token is None:
            return True
        given = (request.cookies.get(self.cookie) or request.headers.get("X-Workbench-Token")
                 or request.args.get("token") or "")
        return hmac.compare_digest(given.encode(), self.token.encode())

    def check(self, request):
        """None when ``request`` may be answered; else the (text, status) to answer."""
        if not self.host_ok(request.headers.get("Host")):
            return ("refused: this request names another host than the one this workbench "
                    "serves (a DNS-rebinding guard); open it at the address `workbench "
                    "serve` printed, or start it with --allow-host NAME", 403)
        changes = request.method not in ("GET", "HEAD", "OPTIONS")
        if changes and (not self.origin_ok(request.headers.get("Origin"))
                        or request.headers.get("Sec-Fetch-Site") == "cross-site"):
            return "refused: a request from another site (Origin)", 403
        if not self.token_ok(request):
            return ("refused: this workbench needs its access token; open the address with "
                    "?token=... that `workbench serve` printed", 403)
        return None

    def install(self, server) -> None:
        """Add the checks (``before_request``) and headers (``after_request``) to a Flask
        server."""
        from flask import redirect, request

        @server.before_request
        def _guard():
            refused = self.check(request)
            if refused is not None:
                text, status = refused
                return text + "\n", status, {"Content-Type": "text/plain; charset=utf-8"}
            if self.token is not None and "token" in request.args and request.method == "GET":
                rest = {k: v for k, v in request.args.items(multi=True) if k != "token"}
                target = request.path + (f"?{urlencode(rest)}" if rest else "")
                answer = redirect(target, code=303)
                answer.set_cookie(self.cookie, self.token, httponly=True, samesite="Strict",
                                  path="/")
                return answer
            return None

        @server.after_request
        def _headers(response):
            for k, v in HEADERS.items():
                response.headers.setdefault(k, v)
            html = (response.mimetype == "text/html" and not response.direct_passthrough)
            response.headers["Content-Security-Policy"] = csp(
                response.get_data() if html else None)
            if request.path.startswith("/_dash-update-component"):
                response.headers["Cache-Control"] = "no-store"
            return response


def quiet_request_handler():
    """Werkzeug's request handler with a ``Server`` header that names no software or version
    (werkzeug's says ``Werkzeug/3.1 Python/3.11``)."""
    from werkzeug.serving import WSGIRequestHandler

    class QuietRequestHandler(WSGIRequestHandler):
        def version_string(self) -> str:
            return "workbench"

    return QuietRequestHandler
