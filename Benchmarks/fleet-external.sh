#!/usr/bin/env bash
# The 1,000-device drain (`make bench-fleet`) with the server in a process of its own, so that
# its memory is measured apart from the devices': starts the release `fieldsync serve` on a
# throwaway data folder, runs `fieldsync simulate --server … --server-pid …` against it (the
# summary then shows the server's resident memory now and at its peak, from /proc), and stops
# the server. The embedded PostgreSQL runs in processes of its own and is in neither figure.
# Extra arguments go to simulate, e.g. `Benchmarks/fleet-external.sh --devices 200`;
# FLEET_PORT picks the server's port (default 18089).
set -euo pipefail
cd "$(dirname "$0")/.."
port="${FLEET_PORT:-18089}"
data="$(mktemp -d)"
# The embedded PostgreSQL runs as its own account when started by root: it must reach the folder.
chmod 755 "$data"
# Every simulated device connects from 127.0.0.1: the per-address limits, meant for one
# client each, would turn most of the fleet away.
FIELDSYNC_MAX_CONNECTIONS_PER_ADDRESS=0 FIELDSYNC_SPOOL_BYTES_PER_ADDRESS=$((512 << 20)) \
    .build/release/fieldsync serve --data-dir "$data" --port "$port" >"$data/serve.log" 2>&1 &
server=$!
cleanup() {
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    rm -rf "$data"
}
trap cleanup EXIT
deadline=$((SECONDS + 120))
until curl -fs "http://127.0.0.1:$port/v1/health" >/dev/null; do
    if ((SECONDS > deadline)) || ! kill -0 "$server" 2>/dev/null; then
        echo "fieldsync serve did not come up on port $port:" >&2
        cat "$data/serve.log" >&2
        exit 1
    fi
    sleep 0.5
done
.build/release/fieldsync simulate --server "http://127.0.0.1:$port/" --server-pid "$server" --data-dir "$data" \
    --devices 1000 --concurrency 1000 --scale 0.1 --photo-bytes 100000 "$@"
