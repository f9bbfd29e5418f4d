"""Subprocess helper for the SIGKILL tests (run as a script, not collected by pytest).

python crash_helper.py write PATH NODE            add notes forever, print each id once committed
python crash_helper.py bulk_sync PATH NODE N TARGET TOKEN
                                                  add N notes in batches, print their ids,
                                                  print "syncing", sync, print "synced"
python crash_helper.py serve ROOT                 run a sync server, print its port
"""

from __future__ import annotations

import sys
import time

import grpc

from edgeloop.transport.auth import Principal
from sync import MemoryStore
from sync.client import sync_with
from sync.server import SyncServerThread

TOKENS = {"tok-a": Principal("dev-a", "alice"), "tok-b": Principal("dev-b", "alice")}


def main(argv: list[str]) -> None:
    mode = argv[0]
    if mode == "write":
        store = MemoryStore(argv[1], node_id=argv[2])
        i = 0
        while True:
            note_id = store.add_note(f"write {i} from {argv[2]}")
            print(note_id, flush=True)
            i += 1
    elif mode == "bulk_sync":
        path, node, count, target, token = argv[1], argv[2], int(argv[3]), argv[4], argv[5]
        store = MemoryStore(path, node_id=node, synchronous="NORMAL")
        for start in range(0, count, 1000):
            with store.batch():
                ids = [
                    store.add_note(f"bulk {i} {node} " + "y" * 100)
                    for i in range(start, min(count, start + 1000))
                ]
            print("\n".join(ids), flush=True)
        print("syncing", flush=True)
        with grpc.insecure_channel(target) as channel:
            sync_with(channel, store, token, chunk_bytes=64 * 1024)
        print("synced", flush=True)
        time.sleep(60)
    elif mode == "serve":
        with SyncServerThread(argv[1], tokens=TOKENS) as server:
            print(server.port, flush=True)
            time.sleep(3600)
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main(sys.argv[1:])
