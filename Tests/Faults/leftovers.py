"""What crashes left in a data folder once every upload finished: files no live session or row
needs any more, by kind (the figures a start-up sweep has to deal with)."""

import os


def survey(data_directory, spool_directory, complete_sha256s):
    """Counts and sizes of leftovers: chunk files of sessions (all finished by now), request-body
    spools, blob store temporaries and blobs that no acknowledged attachment names."""
    kinds = {"upload session files (uploads/)": [], "request body spools (spool folder)": [],
             "blob temporaries (blobs/.partial-*)": [], "unreferenced blobs (blobs/)": []}
    for path in _files(os.path.join(data_directory, "uploads")):
        kinds["upload session files (uploads/)"].append(path)
    for path in _files(spool_directory):
        kinds["request body spools (spool folder)"].append(path)
    for path in _files(os.path.join(data_directory, "blobs")):
        name = os.path.basename(path)
        if name.startswith(".partial-"):
            kinds["blob temporaries (blobs/.partial-*)"].append(path)
        elif name not in complete_sha256s:
            kinds["unreferenced blobs (blobs/)"].append(path)
    return {kind: (len(paths), sum(os.path.getsize(path) for path in paths)) for kind, paths in kinds.items()}


def _files(root):
    for folder, _, names in os.walk(root):
        for name in names:
            yield os.path.join(folder, name)
