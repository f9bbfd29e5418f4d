#!/usr/bin/env node
// A Node.js edgeloop device, written from proto/edgeloop/v1/agent.proto and docs/ alone
// (grpc-js, proto-loader, yjs and ajv from npm; nothing from the Python source).
//
//   node device.mjs [OPTIONS] "QUERY"      Converse: the cloud plans, the device runs its
//                                          tools (water_plants, its own; add_note), then
//                                          the receipt is checked
//   node device.mjs reason "QUERY"         Reason: cloud tools only; the FINAL_ANSWER's
//                                          receipt id is checked
//   node device.mjs tools                  ListTools, with this device's declaration
//   node device.mjs note "TEXT"            a note in the device's memory
//   node device.mjs notes                  the notes in the device's memory
//   node device.mjs sync                   merge the memory with the cloud's, both ways
//
// OPTIONS: --cloud HOST:PORT (127.0.0.1:50051, or $EDGELOOP_CLOUD), --token TOKEN
// ($EDGELOOP_TOKEN), --device-id ID (the token's device; node-device), --state DIR (the
// device's memory and garden; .device-state), --json (one JSON object per line).
// Exit codes: 0 done, 1 a receipt that does not check, 2 usage, 3 an RPC failed.
import path from "node:path";
import { parseArgs } from "node:util";
import { converseTurn, listTools, reasonOnce } from "./lib/converse.mjs";
import { Memory } from "./lib/memory.mjs";
import { fromStruct, loadProtocol, grpc } from "./lib/protocol.mjs";
import { receiptIdFor, verifyReceipt } from "./lib/receipts.mjs";
import { syncMemory } from "./lib/sync.mjs";
import { DeviceTools, WATER_PLANTS, proposeCalls } from "./lib/tools.mjs";

const COMMANDS = new Set(["ask", "reason", "tools", "note", "notes", "sync"]);

function options() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      cloud: { type: "string", default: process.env.EDGELOOP_CLOUD || "127.0.0.1:50051" },
      token: { type: "string", default: process.env.EDGELOOP_TOKEN || "" },
      "device-id": { type: "string", default: process.env.EDGELOOP_DEVICE_ID || "node-device" },
      state: { type: "string", default: process.env.EDGELOOP_DEVICE_STATE || ".device-state" },
      json: { type: "boolean", default: false },
    },
  });
  const command = COMMANDS.has(positionals[0]) ? positionals.shift() : "ask";
  return { command, text: positionals.join(" "), ...values, deviceId: values["device-id"] };
}

function printer(json) {
  if (json) return (event) => console.log(JSON.stringify(event, (_k, v) => (typeof v === "bigint" ? String(v) : v)));
  return (event) => {
    if (event.step) {
      const s = event.step;
      const kind = s.step_type.replace("STEP_TYPE_", "");
      console.log(`${kind.padEnd(12)} ${s.content}`);
    } else if (event.device_action) {
      const a = event.device_action;
      console.log(`${"DEVICE".padEnd(12)} runs ${a.tool} ${JSON.stringify(a.arguments)}`);
    } else if (event.observation) {
      const o = event.observation;
      console.log(`${"OBSERVED".padEnd(12)} ${o.status.replace("OBSERVATION_STATUS_", "")} ${JSON.stringify(o.observation)}`);
    } else if (event.verdict) {
      const v = event.verdict;
      const what = v.checked === "id" ? "receipt id" : "receipt";
      if (v.problems.length) console.log(`${what} ${v.receipt_id.slice(0, 12)} does NOT check:\n  ${v.problems.join("\n  ")}`);
      else if (v.checked === "id") console.log(`${what} ${v.receipt_id.slice(0, 12)} matches the session, the query and the answer's time`);
      else console.log(`${what} ${v.receipt_id.slice(0, 12)} checks: ${v.evidence.length} tool call(s): ${v.evidence.join(", ") || "none"}`);
    } else if (event.note) {
      console.log(`note ${event.note} written (sync to share it)`);
    } else if (event.sync) {
      const rejected = event.sync.rejected.map((r) => `\n  dropped ${r.kind} ${r.id}: ${r.message}`).join("");
      console.log(`synced with the cloud in ${event.sync.rounds} round(s)${rejected}`);
    } else if (event.notes) {
      for (const [id, text] of Object.entries(event.notes)) console.log(`${id}  ${text}`);
    } else if (event.tools) {
      for (const t of event.tools) console.log(`${t.name.padEnd(16)} ${t.executor}${t.declared ? " (declared)" : ""}`);
    } else {
      console.log(JSON.stringify(event));
    }
  };
}

async function ask(pkg, opts, emit) {
  const client = new pkg.CloudReasonerService(opts.cloud, grpc.credentials.createInsecure());
  const memory = new Memory(opts.state);
  try {
    const auth = { token: opts.token, deviceId: opts.deviceId };
    const builtins = DeviceTools.builtins();
    // The schemas the cloud checks the built-ins' observations with; the declared tool's
    // come back too, once the cloud has accepted the declaration.
    const listed = await listTools(client, { ...auth, builtins, declared: [WATER_PLANTS] });
    const schemas = Object.fromEntries(listed.filter((t) => builtins.includes(t.name)).map((t) => [
      t.name, { input_schema: fromStruct(t.input_schema), observation_schema: fromStruct(t.observation_schema) }]));
    const tools = new DeviceTools({ memory, gardenFile: path.join(opts.state, "garden.json"), schemas });
    const turn = await converseTurn(client, {
      ...auth, query: opts.text, builtins, declared: [WATER_PLANTS], proposed: proposeCalls(opts.text),
      tools, onEvent: (event) => { if (!event.receipt) emit(event); },
    });
    memory.save();
    if (!turn.receipt) return 0; // the cloud asked back (a CLARIFICATION ends the turn)
    const problems = verifyReceipt(turn.receipt, turn.steps);
    emit({ verdict: { receipt_id: turn.receipt.receipt_id, checked: "receipt", problems,
      evidence: turn.receipt.evidence.map((e) => e.tool) } });
    return problems.length ? 1 : 0;
  } finally {
    client.close();
  }
}

async function reason(pkg, opts, emit) {
  const client = new pkg.CloudReasonerService(opts.cloud, grpc.credentials.createInsecure());
  try {
    const { sessionId, raw } = await reasonOnce(client, { query: opts.text, token: opts.token,
      deviceId: opts.deviceId, onEvent: emit });
    // Reason sends no receipt message; its id still binds session, query and time.
    const final = raw.find((s) => s.step_type === "STEP_TYPE_FINAL_ANSWER");
    if (!final) return 0;
    const expected = receiptIdFor(sessionId, opts.text, final.created_at);
    const problems = expected === final.receipt_id ? [] : ["receipt_id: does not match session id, query and timestamp"];
    emit({ verdict: { receipt_id: final.receipt_id, checked: "id", problems, evidence: [] } });
    return problems.length ? 1 : 0;
  } finally {
    client.close();
  }
}

async function main() {
  let opts;
  try {
    opts = options();
  } catch (err) {
    console.error(`device.mjs: ${err.message}`);
    return 2;
  }
  const emit = printer(opts.json);
  if (["ask", "reason", "note"].includes(opts.command) && !opts.text) {
    console.error('usage: node device.mjs [--cloud HOST:PORT] [--token T] [--device-id ID] [--state DIR] [--json]\n'
      + '       "QUERY" | reason "QUERY" | tools | note "TEXT" | notes | sync');
    return 2;
  }
  const pkg = loadProtocol();
  if (opts.command === "ask") return ask(pkg, opts, emit);
  if (opts.command === "reason") return reason(pkg, opts, emit);
  if (opts.command === "tools") {
    const client = new pkg.CloudReasonerService(opts.cloud, grpc.credentials.createInsecure());
    try {
      const tools = await listTools(client, { token: opts.token, deviceId: opts.deviceId,
        builtins: DeviceTools.builtins(), declared: [WATER_PLANTS] });
      emit({ tools: tools.map((t) => ({ name: t.name, executor: t.executor, declared: t.declared })) });
    } finally {
      client.close();
    }
    return 0;
  }
  const memory = new Memory(opts.state);
  if (opts.command === "note") emit({ note: memory.addNote(opts.text) });
  if (opts.command === "notes") emit({ notes: memory.notes() });
  if (opts.command === "sync") {
    emit({ sync: await syncMemory(pkg, opts.cloud, memory, { token: opts.token, deviceId: opts.deviceId }) });
  }
  memory.save();
  return 0;
}

main().then((code) => { process.exitCode = code; }, (err) => {
  const what = err.code !== undefined && grpc.status[err.code] ? `${grpc.status[err.code]}: ${err.details}` : String(err.message || err);
  console.error(`device.mjs: ${what.trim()}`);
  process.exitCode = 3;
});
