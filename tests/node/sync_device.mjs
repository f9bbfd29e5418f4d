// A Node.js edgeloop device that keeps notes and syncs them with an edgeloop cloud,
// written from docs/sync-protocol.md and proto/edgeloop/v1/agent.proto alone
// (grpc-js and yjs from npm; nothing from the Python source).
//
//   node sync_device.mjs STATE_DIR NODE_ID COMMAND [ARGS...]
//
// The device's memory lives in STATE_DIR (doc.bin: the Yjs document as one v1 update;
// state.json: the Yjs client id and the hybrid logical clock). Commands print one JSON
// line:
//   add TEXT                -> {"id": ID}
//   edit ID TEXT            -> {"id": ID}
//   delete ID               -> {"id": ID}
//   notes                   -> {"notes": {ID: TEXT, ...}}
//   corrupt                 -> {"id": ID}   a note whose text is a number (invalid: 1.6)
//   sync HOST:PORT [TOKEN]  -> {"rounds": N, "rejected": [...]}  on a rejected record
//                              (section 4) the device drops it (a tombstone) and syncs
//                              again.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as Y from "yjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const KINDS = ["sessions", "steps", "notes", "timers", "device_state", "facts", "receipts",
  "pending", "transitions"];
const CHUNK_BYTES = 1024 * 1024;

// ---- 1.3 the hybrid logical clock ---------------------------------------------------

class Clock {
  constructor(wall = 0, counter = 0) {
    this.wall = wall;
    this.counter = counter;
  }

  now() {
    const physical = Date.now();
    if (physical > this.wall) {
      this.wall = physical;
      this.counter = 0;
    } else if (this.counter < 0xffff) {
      this.counter += 1;
    } else {
      this.wall += 1;
      this.counter = 0;
    }
    return this.wall.toString(16).padStart(12, "0") + this.counter.toString(16).padStart(4, "0");
  }

  observe(h) {
    const wall = parseInt(h.slice(0, 12), 16);
    const counter = parseInt(h.slice(12), 16);
    if (wall > this.wall || (wall === this.wall && counter > this.counter)) {
      this.wall = wall;
      this.counter = counter;
    }
  }
}

// ---- the replica --------------------------------------------------------------------

class Replica {
  constructor(dir, node) {
    this.dir = dir;
    this.node = node;
    this.doc = new Y.Doc();
    const statePath = path.join(dir, "state.json");
    const saved = fs.existsSync(statePath) ? JSON.parse(fs.readFileSync(statePath, "utf8")) : {};
    if (saved.clientID) this.doc.clientID = saved.clientID;
    this.clock = new Clock(saved.wall || 0, saved.counter || 0);
    const docPath = path.join(dir, "doc.bin");
    if (fs.existsSync(docPath)) Y.applyUpdate(this.doc, fs.readFileSync(docPath));
    this.observeAll();
  }

  save() {
    fs.mkdirSync(this.dir, { recursive: true });
    fs.writeFileSync(path.join(this.dir, "doc.bin"), Y.encodeStateAsUpdate(this.doc));
    const state = { clientID: this.doc.clientID, wall: this.clock.wall, counter: this.clock.counter };
    fs.writeFileSync(path.join(this.dir, "state.json"), JSON.stringify(state));
  }

  // Every entry of one record: [{node, key, h, v | null}] (1.1).
  entries(kind, id) {
    const out = [];
    this.doc.getMap(kind).forEach((value, key) => {
      const sep = key.indexOf("|");
      if (key.slice(0, sep) !== id) return;
      const body = JSON.parse(value);
      out.push({ node: key.slice(sep + 1), key, h: body.h, v: body.x ? null : body.v });
    });
    return out;
  }

  // The winner: greatest (h, node) (1.1).
  static winner(entries) {
    let best = null;
    for (const e of entries) {
      if (!best || e.h > best.h || (e.h === best.h && e.node > best.node)) best = e;
    }
    return best;
  }

  records(kind) {
    const ids = new Set();
    this.doc.getMap(kind).forEach((_value, key) => ids.add(key.slice(0, key.indexOf("|"))));
    const out = {};
    for (const id of ids) {
      const best = Replica.winner(this.entries(kind, id));
      if (best && best.v !== null) out[id] = best.v;
    }
    return out;
  }

  // 1.4: a new version under our own key; every other entry we hold goes.
  write(kind, id, data) {
    const h = this.clock.now();
    const map = this.doc.getMap(kind);
    const body = data === null ? { h, x: 1 } : { h, v: data };
    this.doc.transact(() => {
      for (const e of this.entries(kind, id)) if (e.node !== this.node) map.delete(e.key);
      map.set(`${id}|${this.node}`, JSON.stringify(body));
    });
  }

  observeAll() {
    for (const kind of KINDS) {
      this.doc.getMap(kind).forEach((value) => {
        const h = JSON.parse(value).h;
        if (/^[0-9a-fA-F]{16}$/.test(h)) this.clock.observe(h.toLowerCase());
      });
    }
  }

  // 1.5: apply, observe the clock, drop the losing entries and bump _sys.
  merge(update) {
    Y.applyUpdate(this.doc, update);
    this.observeAll();
    const losers = [];
    for (const kind of KINDS) {
      const byId = new Map();
      this.doc.getMap(kind).forEach((_value, key) => {
        const id = key.slice(0, key.indexOf("|"));
        byId.set(id, (byId.get(id) || 0) + 1);
      });
      for (const [id, count] of byId) {
        if (count < 2) continue;
        const all = this.entries(kind, id);
        const best = Replica.winner(all);
        for (const e of all) if (e !== best) losers.push([kind, e.key]);
      }
    }
    if (losers.length === 0) return;
    const sys = this.doc.getMap("_sys");
    this.doc.transact(() => {
      for (const [kind, key] of losers) this.doc.getMap(kind).delete(key);
      const previous = Number.parseInt(sys.get(this.node) || "0", 10) || 0;
      sys.set(this.node, String(previous + 1));
    });
  }
}

// ---- 2. the exchange ----------------------------------------------------------------

function newNoteId() {
  // 1.2: 12 hex digits of milliseconds, 20 random ones.
  return Date.now().toString(16).padStart(12, "0") + crypto.randomBytes(10).toString("hex");
}

function chunks(update) {
  const id = crypto.randomUUID().replace(/-/g, "");
  const sha256 = crypto.createHash("sha256").update(update).digest("hex");
  const pieces = [];
  for (let i = 0; i < update.length; i += CHUNK_BYTES) pieces.push(update.subarray(i, i + CHUNK_BYTES));
  if (pieces.length === 0) pieces.push(Buffer.alloc(0));
  return pieces.map((data, index) => ({ update_id: id, index, total: pieces.length, data, sha256 }));
}

// Two v1 state vectors are equal when they map the same client ids to the same clocks.
function sameState(a, b) {
  const decode = (bytes) => [...Y.decodeStateVector(new Uint8Array(bytes)).entries()]
    .sort((x, y) => x[0] - y[0]).map(([k, v]) => `${k}:${v}`).join(",");
  return decode(a) === decode(b);
}

async function loadProto() {
  const grpc = (await import("@grpc/grpc-js")).default;
  const protoLoader = (await import("@grpc/proto-loader")).default;
  const definition = protoLoader.loadSync("edgeloop/v1/agent.proto", {
    includeDirs: [path.resolve(HERE, "../../proto")],
    keepCase: true,
    oneofs: true,
    longs: String,
    defaults: true,
  });
  return { grpc, pkg: grpc.loadPackageDefinition(definition).edgeloop.v1 };
}

function syncOnce(grpc, client, replica, token) {
  const metadata = new grpc.Metadata();
  if (token) metadata.set("authorization", `Bearer ${token}`);
  metadata.set("x-device-id", replica.node);
  const call = client.Sync(metadata, { deadline: Date.now() + 60_000 });
  let round = 0;
  let parts = [];
  let expected = null;
  return new Promise((resolve, reject) => {
    const sendState = () => {
      call.write({ state_vector: { vector: Buffer.from(Y.encodeStateVector(replica.doc)) } });
    };
    let localState = null;
    call.on("data", (msg) => {
      try {
        if (msg.event === "state_vector") {
          const serverState = Buffer.from(msg.state_vector.vector);
          if (sameState(localState, serverState)) return; // `complete` follows
          const diff = Buffer.from(Y.encodeStateAsUpdate(replica.doc, new Uint8Array(serverState)));
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
          replica.merge(update);
          round += 1;
          localState = Buffer.from(Y.encodeStateVector(replica.doc));
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
    call.write({ hello: { device_id: replica.node, user_id: "" } });
    localState = Buffer.from(Y.encodeStateVector(replica.doc));
    sendState();
  });
}

async function sync(replica, target, token) {
  const { grpc, pkg } = await loadProto();
  const client = new pkg.MemorySyncService(target, grpc.credentials.createInsecure());
  const rejected = [];
  try {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        const result = await syncOnce(grpc, client, replica, token);
        return { ...result, rejected };
      } catch (err) {
        // Section 4: INVALID_ARGUMENT with x-rejected-record names the entry; drop it.
        const trailer = err.metadata ? err.metadata.get("x-rejected-record")[0] : undefined;
        if (err.code !== grpc.status.INVALID_ARGUMENT || !trailer) throw err;
        const slash = trailer.indexOf("/");
        const kind = trailer.slice(0, slash);
        const key = trailer.slice(slash + 1);
        const id = key.slice(0, key.indexOf("|"));
        rejected.push({ kind, id, node: key.slice(key.indexOf("|") + 1), message: err.details });
        replica.write(kind, id, null);
      }
    }
    throw new Error("the server kept rejecting records");
  } finally {
    client.close();
  }
}

// ---- commands -----------------------------------------------------------------------

const [dir, node, command, ...args] = process.argv.slice(2);
if (!dir || !node || !command) {
  console.error("usage: node sync_device.mjs STATE_DIR NODE_ID COMMAND [ARGS...]");
  process.exit(2);
}
const replica = new Replica(dir, node);
let out;
if (command === "add") {
  const id = newNoteId();
  replica.write("notes", id, { text: args[0], source_act_id: null, created_at: new Date().toISOString() });
  out = { id };
} else if (command === "edit") {
  const current = replica.records("notes")[args[0]];
  if (!current) throw new Error(`no note ${args[0]}`);
  replica.write("notes", args[0], { ...current, text: args[1] }); // keep unknown fields
  out = { id: args[0] };
} else if (command === "delete") {
  replica.write("notes", args[0], null);
  out = { id: args[0] };
} else if (command === "notes") {
  const notes = {};
  for (const [id, v] of Object.entries(replica.records("notes"))) notes[id] = v.text;
  out = { notes };
} else if (command === "corrupt") {
  const id = newNoteId();
  replica.write("notes", id, { text: 42, source_act_id: null, created_at: new Date().toISOString() });
  out = { id };
} else if (command === "sync") {
  out = await sync(replica, args[0], args[1]);
} else {
  console.error(`unknown command ${command}`);
  process.exit(2);
}
replica.save();
console.log(JSON.stringify(out));
