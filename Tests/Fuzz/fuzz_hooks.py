"""Schemathesis hooks for fuzzing the FieldSync device API (loaded through SCHEMATHESIS_HOOKS
by run_schemathesis.py, which sets the variables read below).

- Authentication signs the device in with POST /v1/auth/token, as a phone does, and signs in
  again whenever a call answers 401. DELETE /v1/auth/token revokes the token it is called with,
  so each such call gets a token of its own, from a second device of the same user: the device
  the other calls use keeps its token through a stateful sequence. Sign-ins come from 127.0.0.2: the server throttles failed logins
  per client address, and the fuzzer's own logins with made-up credentials (from 127.0.0.1)
  would otherwise soon lock the device out.
- Two rules of a push or report sync cannot be written in JSON Schema: `deviceId` must be the
  device the token was issued to, and no `opId` or `clientSeq` may appear twice in one push.
  Generated bodies are adjusted to keep them, so the fuzzer reaches the sync engine instead of
  stopping at those two refusals. Only values that already match the document are replaced, by
  other values that match it, so a case the fuzzer made invalid on purpose stays invalid.
- One valid JSON body in five gets one of its integers replaced by an edge of the Int32, double
  or Int64 range, whatever the document allows there (bodies generated invalid are left alone:
  the swap could replace the very value that made them invalid): schemathesis stays near a member's declared
  bounds, and a server that does arithmetic on a device's number before checking its range
  traps only far beyond them. The choice follows the run's seed, so a run can be repeated.
"""

import http.client
import json
import os
import random
import re
import urllib.parse

import schemathesis

DEVICE_ID_PATTERN = re.compile(r"[A-Za-z0-9._:-]{1,128}")
BOUND_TO_DEVICE = {"/v1/sync/push", "/v1/reports/sync"}
INTEGER_EDGES = (-1, 2**31 - 1, 2**31, 2**53 + 1, 2**63 - 2, 2**63 - 1, -(2**63))
EDGE_SHARE = 0.2
edges = random.Random(os.environ.get("FIELDSYNC_FUZZ_SEED", "0"))


def sign_in(device_id):
    """A fresh bearer token for the fuzzing user on `device_id`."""
    username = os.environ["FIELDSYNC_FUZZ_USERNAME"]
    body = json.dumps({"username": username, "password": os.environ["FIELDSYNC_FUZZ_PASSWORD"],
                       "deviceId": device_id, "platform": "fuzz", "appVersion": "2.4.0"})
    server = urllib.parse.urlsplit(os.environ["FIELDSYNC_FUZZ_BASE_URL"])
    connection = http.client.HTTPConnection(server.hostname, server.port, timeout=30, source_address=("127.0.0.2", 0))
    try:
        connection.request("POST", "/v1/auth/token", body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        answer = response.read()
        if response.status != 200:
            raise RuntimeError(f"signing {username} in failed: {response.status} {answer[:300]!r}")
        return json.loads(answer)["token"]
    finally:
        connection.close()


class BearerToken:
    def set(self, case, data, context):
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {data}"


@schemathesis.auth(refresh_interval=None).apply_to(method="DELETE", path="/v1/auth/token")
class TokenToRevoke(BearerToken):
    def get(self, case, context):
        return sign_in(os.environ["FIELDSYNC_FUZZ_DEVICE_ID"] + "-revoked")


@schemathesis.auth()
class DeviceToken(BearerToken):
    def get(self, case, context):
        return sign_in(os.environ["FIELDSYNC_FUZZ_DEVICE_ID"])


@schemathesis.hook
def map_case(context, case):
    if isinstance(case.body, (dict, list)) and _generated_valid(case) and edges.random() < EDGE_SHARE:
        _replace_one_integer(case.body)
    if case.operation.path not in BOUND_TO_DEVICE or not isinstance(case.body, dict):
        return case
    if isinstance(case.body.get("deviceId"), str) and DEVICE_ID_PATTERN.fullmatch(case.body["deviceId"]):
        case.body["deviceId"] = os.environ["FIELDSYNC_FUZZ_DEVICE_ID"]
    ops = case.body.get("ops")
    if isinstance(ops, list):
        _make_unique(ops)
    return case


def _make_unique(ops):
    """Renames repeated op ids and renumbers repeated client sequence numbers, in place."""
    ids, seqs = set(), set()
    for index, op in enumerate(op for op in ops if isinstance(op, dict)):
        if isinstance(op.get("opId"), str) and DEVICE_ID_PATTERN.fullmatch(op["opId"]):
            if op["opId"] in ids:
                op["opId"] = f"{index}-{op['opId']}"[:128]
            ids.add(op["opId"])
        if isinstance(op.get("clientSeq"), int):
            while op["clientSeq"] in seqs:
                op["clientSeq"] = op["clientSeq"] + 1 if op["clientSeq"] < 2**63 - 1 else 1
            seqs.add(op["clientSeq"])


def _generated_valid(case):
    """Whether schemathesis generated the case as valid (examples from the document count as valid)."""
    return case.meta is None or case.meta.generation.mode.is_positive


def _replace_one_integer(body):
    """Sets one integer inside `body` (chosen with the seeded generator) to an integer edge."""
    places = []

    def collect(container):
        items = container.items() if isinstance(container, dict) else enumerate(container)
        for key, value in items:
            if isinstance(value, int) and not isinstance(value, bool):
                places.append((container, key))
            elif isinstance(value, (dict, list)):
                collect(value)

    collect(body)
    if places:
        container, key = edges.choice(places)
        container[key] = edges.choice(INTEGER_EDGES)
