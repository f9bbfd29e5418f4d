// MemorySyncService.Sync as docs/sync-protocol.md section 2 lays it out: hello, then
// rounds of state vector -> diff for the peer's vector -> done, until both vectors are
// equal (complete). A record the cloud rejects (section 4) is dropped with a tombstone
// and the sync runs again.
import crypto from "node:crypto";
import * as Y from "yjs";
import { callMetadata, grpc } from "./protocol.mjs";

const CHUNK_BYTES = 1024 * 1024; // each chunk's data stays under 1 MiB

function chunks(update) {
  const updateId = crypto.randomUUID().replace(/-/g, "");
  const sha256 = crypto.createHash("sha256").update(update).digest("hex");
  const pieces = [];
  for (let i = 0; i < update.length; i += CHUNK_BYTES) pieces.push(update.subarray(i, i + CHUNK_BYTES));
  if (pieces.length === 0) pieces.push(Buffer.alloc(0));
  return pieces.map((data, index) => ({ update_id: updateId, index, total: pieces.length, data, sha256 }));
}

/** Two v1 state vectors are equal when they map the same client ids to the same clocks. */
function sameState(a, b) {
  const decode = (bytes) => [...Y.decodeStateVector(new Uint8Array(bytes)).entries()]
    .sort((x, y) => x[0] - y[0]).map(([k, v]) => `${k}:${v}`).join(",");
  return decode(a) === decode(b);
}

function syncOnce(client, memory, { token, deviceId }) {
  const call = client.Sync(callMetadata({ token, deviceId }), { deadline: Date.now() + 120_000 });
  let round = 0;
  let parts = [];
  let expected = null;
  let localState = null;
  const sendState = () => {
    localState = Buffer.from(Y.encodeStateVector(memory.doc));
    call.write({ state_vector: { vector: localState } });
  };
  return new Promise((resolve, reject) => {
    call.on("data", (msg) => {
      try {
        if (msg.event === "state_vector") {
          const serverState = Buffer.from(msg.state_vector.vector);
          if (sameState(localState, serverState)) return; // `complete` follows
          const diff = Buffer.from(Y.encodeStateAsUpdate(memory.doc, new Uint8Array(serverState)));
          for (const chunk of chunks(diff)) call.write({ update: chunk });
          call.write({ done: { round } });
          parts = [];
          expected = null;
        } else if (msg.event === "update") {
          expected = msg.update;
          parts.push(Buffer.from(msg.update.data));
        } else if (msg.event === "done") {
          const update = Buffer.concat(parts);
          if (expected === null || parts.length !== expected.total) throw new Error("incomplete update");
          const digest = crypto.createHash("sha256").update(update).digest("hex");
          if (digest !== expected.sha256) throw new Error("update digest mismatch");
          memory.merge(update);
          round += 1;
          sendState();
        } else if (msg.event === "complete") {
          call.end();
          resolve({ rounds: msg.complete.rounds });
        }
      } catch (err) {
        call.cancel();
        reject(err);
      }
    });
    call.on("error", reject);
    // The hello names the device the token was issued for (not the node id: another name
    // is PERMISSION_DENIED); the entries carry this replica's own node id (memory.node).
    call.write({ hello: { device_id: deviceId, user_id: "" } });
    sendState();
  });
}

/** Sync `memory` with the cloud's MemorySyncService; returns {rounds, rejected}. */
export async function syncMemory(pkg, target, memory, { token, deviceId }) {
  const client = new pkg.MemorySyncService(target, grpc.credentials.createInsecure());
  const rejected = [];
  try {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        return { ...(await syncOnce(client, memory, { token, deviceId })), rejected };
      } catch (err) {
        // INVALID_ARGUMENT with x-rejected-record: "<kind>/<record id>|<node id>".
        const trailer = err.metadata ? err.metadata.get("x-rejected-record")[0] : undefined;
        if (err.code !== grpc.status.INVALID_ARGUMENT || !trailer) throw err;
        const kind = trailer.slice(0, trailer.indexOf("/"));
        const key = trailer.slice(trailer.indexOf("/") + 1);
        const id = key.slice(0, key.indexOf("|"));
        rejected.push({ kind, id, message: err.details });
        memory.write(kind, id, null);
      }
    }
    throw new Error("the cloud kept rejecting records");
  } finally {
    client.close();
  }
}
