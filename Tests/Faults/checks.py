"""The checks that run once the last restart is behind and every device has drained its work."""

import copy
import hashlib

from device import MAX_BATCH, apply_change
from expectations import differences
from wire import Refused


def snapshot(office):
    """Every live record from an initial sync (cursor 0), and the newServerSeq it was taken at.
    Run while the devices are paused, so no write lands between its pages."""
    changes, _ = office.follow(None, {})
    records = {}
    for change in changes:
        apply_change(records, change)
    page = office.call("GET", "/v1/sync/pull?limit=1")
    return records, page["newServerSeq"]


def replay_acknowledged(device, report):
    """Pushes every acknowledged op again; each must come back `replayed` with its original result.
    Returns how many did."""
    settled = [op for op in device.ops if op.result]
    found = 0
    for start in range(0, len(settled), MAX_BATCH):
        batch = settled[start:start + MAX_BATCH]
        answer = device.call("POST", "/v1/sync/push",
                             {"deviceId": device.device_id, "schemaVersion": 3, "ops": [op.body for op in batch]})
        for op, result in zip(batch, answer["results"]):
            original = {name: value for name, value in result.items() if name != "replayed"}
            if result.get("replayed") is True and original == op.result:
                found += 1
            elif result.get("replayed") is not True:
                report.violation(f"{device.name}: acknowledged op {op.body['opId']} was not found; applied again as {result}")
            else:
                report.violation(f"{device.name}: op {op.body['opId']} acknowledged as {op.result}, replayed as {result}")
    return found


def download_attachments(device, report):
    """Downloads every photo acknowledged complete and checks its SHA-256; returns how many matched."""
    verified = 0
    for upload in (upload for upload in device.uploads if upload.complete):
        try:
            content = device.call("GET", f"/v1/attachments/{upload.att_id}/content", raw=True)
        except Refused as refusal:
            report.violation(f"{device.name}: complete attachment {upload.att_id} did not download: {refusal}")
            continue
        if hashlib.sha256(content).hexdigest() == upload.sha256:
            verified += 1
        else:
            report.violation(f"{device.name}: attachment {upload.att_id} downloaded {len(content)} bytes of other content")
    return verified


def follow_saved_cursors(device, expected, report):
    """Continues from each cursor the device saved, on the records it held then: the result must be
    the final state (nothing missed, nothing stale), and nothing delivered before may come again.
    Returns how many cursors were followed."""
    for cursor, mirror, delivered in device.saved_cursors:
        records = copy.deepcopy(mirror)
        changes, _ = device.follow(cursor, delivered, limit=37)
        keys = [(change["collection"], change["recordId"]) for change in changes]
        if len(set(keys)) != len(keys):
            report.violation(f"{device.name}: a delta pull after the run delivered a record twice")
        for change in changes:
            apply_change(records, change)
        found = differences(expected, records)
        if found["texts"]:
            report.violation(f"{device.name}: following a saved cursor: " + "; ".join(found["texts"]))
    return len(device.saved_cursors)


def compare_snapshot(label, expected, records, report):
    """Reports how a snapshot differs from what it must hold; returns True when it matched."""
    found = differences(expected, records)
    if found["texts"]:
        report.violation(f"{label}: {found['missing']} missing, {found['unexpected']} unexpected, "
                         f"{found['stale']} stale: " + "; ".join(found["texts"]))
    return not found["texts"]
