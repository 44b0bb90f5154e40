"""A simulated field device: it queues ops on its own jobs and part-usage records, pushes them
in batches with real clientSeq/opIds, re-sends whatever was not acknowledged, uploads photos
in chunks (resuming through registration after any failure) and follows the pull cursor.

Everything it was told is kept for the final checks: each op's settled result, each photo
acknowledged `complete`, and some of the cursors it was handed with the records it held then.
"""

import copy
import datetime
import hashlib
import os
import random
import time
import urllib.parse

from wire import Refused, Unavailable, request

SETTLED = ("applied", "conflict", "rejected")
CHUNK_BYTES = 64 * 1024
MAX_BATCH = 50
SAVED_CURSORS = 12
PATIENCE_SECONDS = 120


class Op:
    """One op as sent, and what the server finally answered for it."""

    def __init__(self, body):
        self.body, self.result, self.last_answer, self.lost_answers = body, None, None, 0

    @property
    def key(self):
        return self.body["collection"], self.body["recordId"]

    @property
    def waits_for(self):
        return self.body.get("dependsOn") or []


class Upload:
    """A photo for a part-usage record, cut into chunks."""

    def __init__(self, att_id, record_id, size):
        self.att_id, self.record_id = att_id, record_id
        self.data = os.urandom(size)
        self.sha256 = hashlib.sha256(self.data).hexdigest()
        self.chunks = [self.data[i:i + CHUNK_BYTES] for i in range(0, size, CHUNK_BYTES)]
        self.missing, self.registered, self.complete = set(), False, False

    def declaration(self):
        return {"attId": self.att_id, "recordId": self.record_id, "collection": "part_usage",
                "contentType": "image/jpeg", "totalBytes": len(self.data), "chunkBytes": CHUNK_BYTES,
                "chunkCount": len(self.chunks), "sha256": self.sha256,
                "chunkSha256": [hashlib.sha256(chunk).hexdigest() for chunk in self.chunks]}


class Device:
    def __init__(self, name, endpoint, gate, report, rng):
        self.name, self.endpoint, self.gate, self.report, self.rng = name, endpoint, gate, report, rng
        self.device_id, self.token, self.user_id = f"dev-{name}", None, None
        self.ops, self.uploads, self.next_seq, self.counter = [], [], 1, 0
        self.jobs, self.part_usages = {}, {}  # record id -> fields, as this device last wrote them
        self.mirror, self.cursor, self.delivered, self.saved_cursors, self.pulls = {}, None, {}, [], 0
        # Checks must not give up on a rate limit or a slow restart: `patient` retries such calls.
        self.patient = False

    # MARK: - Calls

    def call(self, method, path, body=None, headers=None, raw=False):
        headers = dict(headers or {}, **{"X-Device-Id": self.device_id})
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        deadline = time.monotonic() + PATIENCE_SECONDS
        while True:
            try:
                return request(self.endpoint, self.gate, method, path, body, headers, raw)
            except Unavailable:
                if not self.patient or time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def sign_in(self, username, password):
        answer = self.call("POST", "/v1/auth/token", {"username": username, "password": password,
                                                      "deviceId": self.device_id, "platform": "ios",
                                                      "appVersion": "2.4.0"})
        self.token, self.user_id = answer["token"], answer["user"]["id"]

    # MARK: - Work

    def step(self, generating):
        """One round: maybe queue new work, push, move one upload forward, sometimes pull."""
        if generating and self.rng.random() < 0.7:
            for _ in range(self.rng.randint(1, 6)):
                self.queue_op()
        self.push()
        self.upload_step()
        if self.rng.random() < 0.15:
            self.pull()

    @property
    def is_drained(self):
        return all(op.result for op in self.ops) and all(upload.complete for upload in self.uploads)

    def queue_op(self):
        roll, live_jobs = self.rng.random(), [key for key, fields in self.jobs.items() if fields is not None]
        open_uploads = sum(not upload.complete for upload in self.uploads)
        if len(live_jobs) < 3 or roll < 0.2:
            self._create_job()
        elif roll < 0.27 and len(live_jobs) > 6:
            self._write("jobs", self.rng.choice(live_jobs), "delete", None)
        elif roll < 0.4 and open_uploads < 3:
            self._create_part_usage(self.rng.choice(live_jobs))
        elif roll < 0.5 and self.part_usages:
            record = self.rng.choice(sorted(self.part_usages))
            self._write("part_usage", record, "update", {"qty": self.rng.randint(1, 99)})
        else:
            changes = {"labor_minutes": self.rng.randint(0, 10_000), "notes": f"note {self.next_seq}"}
            if self.rng.random() < 0.3:
                changes["status"] = self.rng.choice(["in_progress", "on_hold", "complete"])
            self._write("jobs", self.rng.choice(live_jobs), "update", changes)

    def _create_job(self):
        self.counter += 1
        fields = {"title": f"job {self.counter} of {self.name}", "status": "in_progress", "labor_minutes": 0}
        self._write("jobs", f"job-{self.name}-{self.counter}", "create", fields)

    def _create_part_usage(self, job_id):
        self.counter += 1
        record, att_id = f"pu-{self.name}-{self.counter}", f"att-{self.name}-{self.counter}"
        self.uploads.append(Upload(att_id, record, self.rng.randint(70_000, 400_000)))
        fields = {"job_id": job_id, "sku": f"SKU-{self.counter}", "qty": 1, "photo": att_id}
        self._write("part_usage", record, "create", fields, depends_on=[att_id])

    def _write(self, collection, record_id, kind, fields, depends_on=None):
        known = (self.jobs if collection == "jobs" else self.part_usages)
        before = known.get(record_id) or {}
        seq = self.next_seq
        body = {"opId": f"{self.device_id}-op-{seq}", "clientSeq": seq, "collection": collection,
                "recordId": record_id, "type": kind, "baseServerSeq": None if kind == "create" else 0,
                "occurredAt": now()}
        if fields is not None:
            body["fields"] = {name: {"old": before.get(name), "new": value} for name, value in fields.items()}
        if depends_on:
            body["dependsOn"] = depends_on
        known[record_id] = None if kind == "delete" else dict(before, **fields)
        self.ops.append(Op(body))
        self.next_seq += 1

    # MARK: - Push

    def push(self):
        """Sends the unsettled ops in clientSeq order; ops held for a photo go again once it is complete."""
        complete = {upload.att_id for upload in self.uploads if upload.complete}
        batch = [op for op in self.ops if op.result is None
                 and (op.last_answer != "DEPENDENCY_PENDING" or set(op.waits_for) <= complete)][:MAX_BATCH]
        if not batch:
            return
        body = {"deviceId": self.device_id, "schemaVersion": 3, "ops": [op.body for op in batch]}
        try:
            answer = self.call("POST", "/v1/sync/push", body)
        except Unavailable:
            for op in batch:
                op.lost_answers += 1
            raise
        results = answer.get("results") or []
        if [result.get("opId") for result in results] != [op.body["opId"] for op in batch]:
            self.report.violation(f"{self.name}: push answered other ops than it was sent: {answer}")
            return
        for op, result in zip(batch, results):
            self._settle(op, result)

    def _settle(self, op, result):
        status = result.get("status")
        if status in SETTLED:
            if status != "applied":
                # Only this device writes its records: anything but `applied` means the server
                # kept part of an earlier attempt (RECORD_EXISTS, CLIENT_SEQ_REGRESSED) or lost one.
                self.report.violation(f"{self.name}: op {op.body['opId']} ({op.body['type']}) answered {result}")
            op.result = {name: value for name, value in result.items() if name != "replayed"}
            if op.lost_answers:
                self.report.count("ops settled by a replay after a lost answer" if result.get("replayed")
                                  else "ops applied by a retry after a lost answer")
        elif status in ("deferred", "retry"):
            op.last_answer = result.get("code")
        else:
            self.report.violation(f"{self.name}: op {op.body['opId']} got an unknown status: {result}")

    # MARK: - Uploads

    def upload_step(self):
        """Moves the oldest unfinished upload one step: register (or resume), a few chunks, or finalize."""
        upload = next((upload for upload in self.uploads if not upload.complete), None)
        if upload is None:
            return
        try:
            if not upload.registered:
                self._register(upload)
            elif upload.missing:
                for index in sorted(upload.missing)[:3]:
                    self._send_chunk(upload, index)
            else:
                self._finalize(upload)
        except Unavailable:
            upload.registered = False  # resume through registration, as a device does after any failure
            raise
        except Refused as refusal:
            upload.registered = False
            self._refused_upload(upload, refusal)

    def _register(self, upload):
        answer = self.call("POST", "/v1/attachments", upload.declaration())
        if answer.get("status") == "complete":
            upload.complete = True
            return
        upload.missing = set(range(len(upload.chunks))) - set(answer.get("receivedChunks") or [])
        upload.registered = True

    def _send_chunk(self, upload, index):
        chunk = upload.chunks[index]
        self.call("PUT", f"/v1/attachments/{upload.att_id}/chunks/{index}", chunk,
                  {"X-Chunk-SHA256": hashlib.sha256(chunk).hexdigest()}, raw=True)
        upload.missing.discard(index)

    def _finalize(self, upload):
        answer = self.call("POST", f"/v1/attachments/{upload.att_id}/finalize", {})
        if answer.get("status") != "complete" or answer.get("sha256") != upload.sha256:
            self.report.violation(f"{self.name}: finalize of {upload.att_id} answered {answer}")
            return
        upload.complete = True

    def _refused_upload(self, upload, refusal):
        if refusal.code == "CHUNKS_MISSING":
            # A chunk's row is committed without waiting for the WAL flush, so a PostgreSQL crash
            # may forget it: the device sends it again (PROTOCOL.md, Attachments).
            self.report.count("chunks re-sent after CHUNKS_MISSING")
        else:
            self.report.violation(f"{self.name}: upload {upload.att_id} refused: {refusal}")

    # MARK: - Pull

    def pull(self):
        """Follows the cursor to the end and applies the changes to the mirror."""
        changes, self.cursor = self.follow(self.cursor, self.delivered)
        for change in changes:
            apply_change(self.mirror, change)
            key = (change["collection"], change["recordId"])
            self.delivered[key] = max(self.delivered.get(key, 0), change["serverSeq"])
        self.pulls += 1
        self._maybe_save_cursor()

    def follow(self, cursor, delivered, limit=None):
        """Pages from `cursor` (None: initial sync) to the end; returns the changes and the last cursor.

        Reports a record twice in one page, and a change of a record at or below the serverSeq
        `delivered` (record key to serverSeq) or an earlier page gave it: pages follow the order
        of the writing transactions (docs/decisions/0004), not serverSeq across records, but a
        record's serverSeq only grows and nothing delivered comes again."""
        delivered = dict(delivered)
        changes = []
        while True:
            query = f"/v1/sync/pull?limit={limit or self.rng.randint(20, 200)}"
            page = self.call("GET", query + ("&cursor=" + urllib.parse.quote(cursor) if cursor else ""))
            keys = [(change["collection"], change["recordId"]) for change in page["changes"]]
            if len(set(keys)) != len(keys):
                self.report.violation(f"{self.name}: a pull page held a record twice: {sorted(keys)}")
            for change in page["changes"]:
                key = (change["collection"], change["recordId"])
                if change["serverSeq"] <= delivered.get(key, 0):
                    self.report.violation(f"{self.name}: pull repeated or went back on {key}: seq {change['serverSeq']} "
                                          f"after {delivered[key]}")
                delivered[key] = change["serverSeq"]
            changes += page["changes"]
            cursor = page["nextCursor"]
            if not page["hasMore"]:
                return changes, cursor

    def _maybe_save_cursor(self):
        """Keeps up to SAVED_CURSORS cursors, spread over the run, with the mirror as it was then."""
        sample = (self.cursor, copy.deepcopy(self.mirror), dict(self.delivered))
        if len(self.saved_cursors) < SAVED_CURSORS:
            self.saved_cursors.append(sample)
        elif self.rng.random() < SAVED_CURSORS / self.pulls:
            self.saved_cursors[self.rng.randrange(SAVED_CURSORS)] = sample


def apply_change(mirror, change):
    """What a device does with one pulled change."""
    key = change["collection"], change["recordId"]
    if change["type"] == "upsert":
        mirror[key] = {"payload": change["payload"], "fieldMeta": change["fieldMeta"], "serverSeq": change["serverSeq"]}
    elif change["type"] in ("delete", "remove"):
        mirror.pop(key, None)


def now():
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def run_device(device, flags):
    """The device's thread: steps until `flags.stop`, backing off while the server is away."""
    while not flags.stop.is_set():
        try:
            device.step(generating=not flags.draining.is_set())
            time.sleep(device.rng.uniform(0.005, 0.03))
        except Unavailable:
            device.report.count("calls without an answer")
            time.sleep(device.rng.uniform(0.05, 0.25))
        except Refused as refusal:
            device.report.violation(f"{device.name}: refused: {refusal}")
            time.sleep(0.5)
        except Exception as error:  # a bug in the simulation must fail the run, not hang it
            device.report.violation(f"{device.name}: {type(error).__name__}: {error}")
            time.sleep(0.5)
