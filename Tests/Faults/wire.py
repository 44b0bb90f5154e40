"""HTTP as a device speaks it to FieldSync (docs/PROTOCOL.md), telling apart the answers a
device must act on from a server that is down, restarting or answering 5xx."""

import http.client
import json
import threading
import urllib.error
import urllib.request

APP_VERSION = "2.4.0"
TIMEOUT_SECONDS = 30


class Unavailable(Exception):
    """No answer, or one that says "try again later": the device keeps its work and retries."""


class Refused(Exception):
    """A 4xx answer: the status and the parsed error envelope."""

    def __init__(self, status, body):
        super().__init__(f"HTTP {status}: {body}")
        self.status, self.body = status, body

    @property
    def code(self):
        return (self.body.get("error") or {}).get("code") if isinstance(self.body, dict) else None


class Endpoint:
    """Where the server listens now (a restart may have to move it to another port)."""

    def __init__(self, base=None):
        self._base, self._lock = base, threading.Lock()

    @property
    def base(self):
        with self._lock:
            return self._base

    @base.setter
    def base(self, value):
        with self._lock:
            self._base = value


class Gate:
    """Lets the run pause every device between requests: `close` waits until none is in flight,
    so a snapshot taken while closed sees no write in progress."""

    def __init__(self):
        self._condition = threading.Condition()
        self._open, self._in_flight = True, 0

    def enter(self):
        with self._condition:
            self._condition.wait_for(lambda: self._open)
            self._in_flight += 1

    def leave(self):
        with self._condition:
            self._in_flight -= 1
            self._condition.notify_all()

    def close(self, timeout=60):
        with self._condition:
            self._open = False
            if not self._condition.wait_for(lambda: self._in_flight == 0, timeout):
                raise RuntimeError("devices still had requests in flight after %s s" % timeout)

    def open(self):
        with self._condition:
            self._open = True
            self._condition.notify_all()


def request(endpoint, gate, method, path, body=None, headers=None, raw=False):
    """One call; returns the parsed JSON body (the bytes when `raw`).

    Raises `Unavailable` for a refused or broken connection, a timeout, 429 or any 5xx, and
    `Refused` for other 4xx answers."""
    data = body if raw and body is not None else (None if body is None else json.dumps(body).encode())
    call = urllib.request.Request(endpoint.base + path, method=method, data=data)
    call.add_header("Content-Type", "application/octet-stream" if raw else "application/json")
    call.add_header("X-App-Version", APP_VERSION)
    for name, value in (headers or {}).items():
        call.add_header(name, value)
    gate.enter()
    try:
        with urllib.request.urlopen(call, timeout=TIMEOUT_SECONDS) as response:
            payload = response.read()
    except urllib.error.HTTPError as error:
        answer = _parse(error.read())
        if error.code == 429 or error.code >= 500:
            raise Unavailable(f"HTTP {error.code}: {answer}") from None
        raise Refused(error.code, answer) from None
    except (OSError, http.client.HTTPException) as error:  # refused, reset, timed out, cut short
        raise Unavailable(f"{type(error).__name__}: {error}") from None
    finally:
        gate.leave()
    return payload if raw else _parse(payload)


def _parse(payload):
    try:
        return json.loads(payload)
    except ValueError:
        return {"unparsed": payload[:200].decode(errors="replace")}
