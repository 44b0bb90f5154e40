#!/usr/bin/env bash
# Attachment upload benchmark: builds FieldSync and fieldsync-tools in release mode and runs
# `fieldsync bench upload` (one device, then eight at once, each uploading a 50 MB file in
# 256 KiB chunks over loopback, every chunk flushed to disk before it is acknowledged).
# Extra arguments go to the command, e.g. `Benchmarks/upload.sh --clients 16 --megabytes 20 --chunk-kib 1024`.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product fieldsync
swift build -c release --product fieldsync-tools
exec .build/release/fieldsync bench upload "$@"
