// Yjs interop for edgeloop's memory document (see docs/memory.md for the layout).
//
//   node yjs_interop.mjs file IN_UPDATE OUT_UPDATE TEXT
//       loads a Yjs v1 update written by Python, prints every live record as JSON
//       ({kind: {record_id: data}}), adds a note TEXT as node "node-js" and writes the
//       diff (only what the input lacks) to OUT_UPDATE.
//   node yjs_interop.mjs grpc HOST:PORT TOKEN TEXT
//       the same, but as a MemorySyncService client: syncs down, prints the records,
//       adds the note, and syncs it up in the next round of the same exchange.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as Y from "yjs";

const KINDS = ["sessions", "steps", "notes", "timers", "device_state", "facts", "receipts",
  "pending", "transitions"];
const NODE_ID = "node-js";

// The winning entry of each record: greatest (hlc, node id); tombstones ({"x": 1}) hide it.
function records(doc) {
  const out = {};
  let maxHlc = 0n;
  for (const kind of KINDS) {
    const best = new Map();
    doc.getMap(kind).forEach((value, key) => {
      const sep = key.indexOf("|");
      const id = key.slice(0, sep);
      const node = key.slice(sep + 1);
      const body = JSON.parse(value);
      const h = BigInt("0x" + body.h);
      if (h > maxHlc) maxHlc = h;
      const prev = best.get(id);
      if (!prev || body.h > prev.h || (body.h === prev.h && node > prev.node)) {
        best.set(id, { h: body.h, node, body });
      }
    });
    out[kind] = {};
    for (const [id, { body }] of best) {
      if (!body.x) out[kind][id] = body.v;
    }
  }
  return { out, maxHlc };
}

function addNote(doc, maxHlc, text) {
  const now = BigInt(Date.now()) << 16n;
  const h = (now > maxHlc ? now : maxHlc + 1n).toString(16).padStart(16, "0");
  const id = "js" + crypto.randomUUID().replace(/-/g, "");
  const data = { text, source_act_id: null, created_at: new Date().toISOString() };
  doc.getMap("notes").set(`${id}|${NODE_ID}`, JSON.stringify({ h, v: data }));
  return id;
}

function fileMode(inPath, outPath, text) {
  const doc = new Y.Doc();
  const input = fs.readFileSync(inPath);
  Y.applyUpdate(doc, input);
  const before = Y.encodeStateVector(doc);
  const { out, maxHlc } = records(doc);
  const id = addNote(doc, maxHlc, text);
  fs.writeFileSync(outPath, Y.encodeStateAsUpdate(doc, before));
  console.log(JSON.stringify({ records: out, written: id }));
}

async function grpcMode(target, token, text) {
  const grpc = (await import("@grpc/grpc-js")).default;
  const protoLoader = (await import("@grpc/proto-loader")).default;
  const here = path.dirname(fileURLToPath(import.meta.url));
  const definition = protoLoader.loadSync("edgeloop/v1/agent.proto", {
    includeDirs: [path.resolve(here, "../../proto")],
    keepCase: true,
    oneofs: true,
    longs: String,
    defaults: true,
  });
  const pkg = grpc.loadPackageDefinition(definition).edgeloop.v1;
  const client = new pkg.MemorySyncService(target, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  metadata.set("x-device-id", NODE_ID);
  const doc = new Y.Doc();
  const call = client.Sync(metadata);
  let round = 0;
  let localState = null;
  let parts = [];
  let update = null;
  let written = null;
  let snapshot = null;
  const sendState = () => {
    localState = Y.encodeStateVector(doc);
    call.write({ state_vector: { vector: Buffer.from(localState) } });
  };
  const result = new Promise((resolve, reject) => {
    call.on("data", (msg) => {
      try {
        if (msg.event === "state_vector") {
          const diff = Y.encodeStateAsUpdate(doc, msg.state_vector.vector);
          if (Buffer.compare(Buffer.from(msg.state_vector.vector), Buffer.from(localState)) === 0) {
            return; // equal: the server follows with complete
          }
          call.write({
            update: {
              update_id: crypto.randomUUID().replace(/-/g, ""),
              index: 0,
              total: 1,
              data: Buffer.from(diff),
              sha256: crypto.createHash("sha256").update(diff).digest("hex"),
            },
          });
          call.write({ done: { round } });
          parts = [];
          update = null;
        } else if (msg.event === "update") {
          parts.push(Buffer.from(msg.update.data));
          if (parts.length === msg.update.total) {
            update = Buffer.concat(parts);
            const digest = crypto.createHash("sha256").update(update).digest("hex");
            if (digest !== msg.update.sha256) throw new Error("digest mismatch");
          }
        } else if (msg.event === "done") {
          Y.applyUpdate(doc, update);
          round += 1;
          if (written === null) {
            const { out, maxHlc } = records(doc);
            snapshot = out;
            written = addNote(doc, maxHlc, text);
          }
          sendState();
        } else if (msg.event === "complete") {
          call.end();
          resolve({ records: snapshot, written, rounds: msg.complete.rounds });
        }
      } catch (err) {
        reject(err);
      }
    });
    call.on("error", reject);
  });
  call.write({ hello: { device_id: NODE_ID, user_id: "" } });
  sendState();
  console.log(JSON.stringify(await result));
  client.close();
}

const [mode, ...args] = process.argv.slice(2);
if (mode === "file") fileMode(args[0], args[1], args[2]);
else if (mode === "grpc") await grpcMode(args[0], args[1], args[2]);
else {
  console.error("usage: node yjs_interop.mjs file IN OUT TEXT | grpc HOST:PORT TOKEN TEXT");
  process.exit(2);
}
