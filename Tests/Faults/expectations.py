"""What the server must hold, computed from the devices' own records of what was acknowledged.

Only the simulated devices write, each to its own records, so the state of every record is
the fold of the applied ops in serverSeq order (a create also sets `teamId` and
`assigneeId` from its author). Folding only the ops numbered at or below a snapshot's
`newServerSeq` gives exactly what that snapshot must show.
"""

import collections

TEAM = "crew"


class Applied:
    """Every op that ended `applied`, in serverSeq order, with the device that sent it."""

    def __init__(self, devices):
        self.entries = sorted(((op.result["serverSeq"], device, op) for device in devices for op in device.ops
                               if op.result and op.result.get("status") == "applied"), key=lambda entry: entry[0])

    def records(self, through=None):
        """The live records after every change numbered at or below `through` (all when None)."""
        state = {}
        for seq, device, op in self.entries:
            if through is not None and seq > through:
                break
            _fold(state, seq, device, op)
        return state

    def sequence_faults(self, final_seq):
        """serverSeqs claimed by two ops, and serverSeqs up to `final_seq` that no acknowledged op holds.

        The second are not faults by themselves: numbers come from a sequence, and a transaction
        cut by a kill takes its numbers with it (docs/decisions/0004). A change committed without
        its op shows in the snapshots instead."""
        claims = collections.Counter(seq for seq, _, _ in self.entries)
        duplicates = sorted(seq for seq, count in claims.items() if count > 1)
        unaccounted = [seq for seq in range(1, final_seq + 1) if seq not in claims]
        return duplicates, unaccounted


def _fold(state, seq, device, op):
    body, key = op.body, op.key
    meta = {"seq": seq, "opId": body["opId"], "deviceId": device.device_id}
    if body["type"] == "create":
        payload = {name: change["new"] for name, change in body["fields"].items()}
        payload.update(teamId=TEAM, assigneeId=device.user_id)
        state[key] = {"payload": payload, "fieldMeta": {name: dict(meta) for name in payload}, "serverSeq": seq}
    elif body["type"] == "update":
        record = state.get(key)
        if record is None:  # reported by the comparison as a missing record
            return
        for name, change in body["fields"].items():
            record["payload"][name], record["fieldMeta"][name] = change["new"], dict(meta)
        record["serverSeq"] = seq
    else:
        state.pop(key, None)


def differences(expected, actual, limit=5):
    """How `actual` (records by key) differs from `expected`: missing, unexpected and stale records."""
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    stale = sorted(key for key in set(expected) & set(actual) if _shape(actual[key]) != expected[key])
    texts = [f"missing {key}" for key in missing[:limit]] + [f"unexpected {key}" for key in extra[:limit]]
    texts += [f"stale {key}: has {_shape(actual[key])}, expected {expected[key]}" for key in stale[:limit]]
    return {"missing": len(missing), "unexpected": len(extra), "stale": len(stale), "texts": texts}


def _shape(record):
    return {"payload": record["payload"], "fieldMeta": record["fieldMeta"], "serverSeq": record["serverSeq"]}
