// The device's memory: one Yjs document laid out as docs/sync-protocol.md section 1 says
// (a root Map per record kind, entries "<record id>|<node id>" whose values are JSON
// strings {"h": hlc, "v": fields} or a tombstone {"h": hlc, "x": 1}), kept in a folder.
//
// The folder holds doc.bin (the document as one Yjs v1 update) and replica.json (the
// node id, chosen once, and the hybrid logical clock). The Yjs client id is NOT kept: a
// fresh one per process (Yjs picks it), so two processes, or a restored backup, never
// write under the same client id with the same clocks.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import * as Y from "yjs";

export const KINDS = ["sessions", "steps", "notes", "timers", "device_state", "facts",
  "receipts", "pending", "transitions"];

/** The hybrid logical clock of section 1.3: "hex12(wall ms) + hex4(counter)". */
export class Clock {
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

/** A note id (section 1.2): 12 hex digits of milliseconds, then 20 random ones. */
export function newNoteId() {
  return Date.now().toString(16).padStart(12, "0") + crypto.randomBytes(10).toString("hex");
}

const isoNow = () => new Date().toISOString(); // UTC, milliseconds, "Z" (section 1.6)

export class Memory {
  /** Open (or create) the memory kept in `dir`. */
  constructor(dir) {
    this.dir = dir;
    this.doc = new Y.Doc();
    const saved = readJson(path.join(dir, "replica.json"));
    // A node id of our own, distinct from every other replica of the user (section 1.2).
    this.node = saved.node || `node-${crypto.randomBytes(8).toString("hex")}`;
    this.clock = new Clock(saved.wall || 0, saved.counter || 0);
    const docPath = path.join(dir, "doc.bin");
    if (fs.existsSync(docPath)) Y.applyUpdate(this.doc, fs.readFileSync(docPath));
    this.observeAll();
  }

  save() {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(this.dir, "doc.bin"), Y.encodeStateAsUpdate(this.doc));
    const replica = { node: this.node, wall: this.clock.wall, counter: this.clock.counter };
    fs.writeFileSync(path.join(this.dir, "replica.json"), JSON.stringify(replica));
  }

  /** Every entry of one record: [{node, key, h, v (null for a tombstone)}] (1.1). */
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

  /** The winning entry: the greatest (h, node id) (1.1). */
  static winner(entries) {
    let best = null;
    for (const e of entries) {
      if (!best || e.h > best.h || (e.h === best.h && e.node > best.node)) best = e;
    }
    return best;
  }

  /** The live records of a kind: {id: fields}. */
  records(kind) {
    const ids = new Set();
    this.doc.getMap(kind).forEach((_value, key) => ids.add(key.slice(0, key.indexOf("|"))));
    const out = {};
    for (const id of ids) {
      const best = Memory.winner(this.entries(kind, id));
      if (best && best.v !== null) out[id] = best.v;
    }
    return out;
  }

  /** Create, edit (data) or delete (null) a record (1.4): our entry replaces the others. */
  write(kind, id, data) {
    const h = this.clock.now();
    const map = this.doc.getMap(kind);
    const body = data === null ? { h, x: 1 } : { h, v: data };
    this.doc.transact(() => {
      for (const e of this.entries(kind, id)) if (e.node !== this.node) map.delete(e.key);
      map.set(`${id}|${this.node}`, JSON.stringify(body));
    });
  }

  /** A new note; returns its id. */
  addNote(text, sourceActId = null) {
    const id = newNoteId();
    this.write("notes", id, { text, source_act_id: sourceActId, created_at: isoNow() });
    return id;
  }

  /** The notes: {id: text}. */
  notes() {
    const out = {};
    for (const [id, v] of Object.entries(this.records("notes"))) out[id] = v.text;
    return out;
  }

  observeAll() {
    for (const kind of KINDS) {
      this.doc.getMap(kind).forEach((value) => {
        const h = JSON.parse(value).h;
        if (/^[0-9a-fA-F]{16}$/.test(h)) this.clock.observe(h.toLowerCase());
      });
    }
  }

  /** Section 1.5: apply a peer's update, observe the clock, drop the losing entries (and
   * bump _sys so the next round ships the deletions). */
  merge(update) {
    Y.applyUpdate(this.doc, update);
    this.observeAll();
    const losers = [];
    for (const kind of KINDS) {
      const counts = new Map();
      this.doc.getMap(kind).forEach((_value, key) => {
        const id = key.slice(0, key.indexOf("|"));
        counts.set(id, (counts.get(id) || 0) + 1);
      });
      for (const [id, count] of counts) {
        if (count < 2) continue;
        const all = this.entries(kind, id);
        const best = Memory.winner(all);
        for (const e of all) if (e !== best) losers.push([kind, e.key]);
      }
    }
    if (losers.length === 0) return;
    const sys = this.doc.getMap("_sys");
    this.doc.transact(() => {
      for (const [kind, key] of losers) this.doc.getMap(kind).delete(key);
      sys.set(this.node, String((Number.parseInt(sys.get(this.node) || "0", 10) || 0) + 1));
    });
  }
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return {};
  }
}
