// A Node.js device for split execution, written from docs/protocol.md and agent.proto:
// it asks ListTools which tools it must run (executor ORIGIN_EDGE) and what their
// observations must hold, opens Converse, runs each device_action on a tiny simulated
// home, answers with an observation that meets the schema, and prints every message it
// got as one JSON line each.
//
//   node converse_device.mjs HOST:PORT "QUERY" [good|wrong|halfclose]
//     good:      answer device actions properly
//     wrong:     answer with `state` as an object (the cloud refuses it, naming the field)
//     halfclose: half-close instead of answering (the turn ends with an ERROR step)
import path from "node:path";
import { fileURLToPath } from "node:url";
import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";

const here = path.dirname(fileURLToPath(import.meta.url));
const [target, query, mode = "good"] = process.argv.slice(2);
const definition = protoLoader.loadSync("edgeloop/v1/agent.proto", {
  includeDirs: [path.resolve(here, "../../proto")],
  keepCase: true,
  enums: String,
  oneofs: true,
  defaults: true,
  longs: String,
});
const pkg = grpc.loadPackageDefinition(definition).edgeloop.v1;
const client = new pkg.CloudReasonerService(target, grpc.credentials.createInsecure());

// google.protobuf.Struct <-> plain JSON. proto-loader reads the well-known types from
// protobufjs's own copies, whose field names are camelCase whatever keepCase says.
function toValue(v) {
  if (v === null || v === undefined) return { nullValue: "NULL_VALUE" };
  if (typeof v === "number") return { numberValue: v };
  if (typeof v === "string") return { stringValue: v };
  if (typeof v === "boolean") return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(toValue) } };
  return { structValue: toStruct(v) };
}
function toStruct(obj) {
  const fields = {};
  for (const [k, v] of Object.entries(obj)) fields[k] = toValue(v);
  return { fields };
}
function fromValue(v) {
  switch (v.kind) {
    case "nullValue": return null;
    case "numberValue": return v.numberValue;
    case "stringValue": return v.stringValue;
    case "boolValue": return v.boolValue;
    case "listValue": return (v.listValue.values || []).map(fromValue);
    case "structValue": return fromStruct(v.structValue);
    default: return null;
  }
}
function fromStruct(s) {
  const out = {};
  for (const [k, v] of Object.entries((s && s.fields) || {})) out[k] = fromValue(v);
  return out;
}

const listTools = () => new Promise((resolve, reject) => {
  client.ListTools({ device_tools: [] }, { deadline: Date.now() + 10000 }, (err, reply) => {
    if (err) reject(err); else resolve(reply.tools);
  });
});

// The simulated home: device_control's observation, shaped by the schema from ListTools.
function runDeviceControl(args, schema) {
  const state = args.action === "set" ? String(args.value ?? "set") : String(args.action);
  const out = { device: args.device, state: mode === "wrong" ? { power: state } : state };
  if ("room" in (schema.properties || {})) out.room = args.room ?? null;
  return out;
}

const tools = await listTools();
const deviceTools = tools.filter((t) => t.executor === "ORIGIN_EDGE");
const schemas = Object.fromEntries(deviceTools.map((t) => [t.name, fromStruct(t.observation_schema)]));
const printed = [{ tools: tools.map((t) => [t.name, t.executor]) }];

const call = client.Converse({ deadline: Date.now() + 20000 });
call.write({
  start: {
    session_id: "node-dev-" + Date.now(),
    query,
    device_tools: deviceTools.map((t) => t.name),
  },
});
call.on("data", (msg) => {
  if (msg.event === "device_action") {
    const action = msg.device_action;
    printed.push({ device_action: action.tool, act_id: action.act_id });
    if (mode === "halfclose") { call.end(); return; }
    const args = fromStruct(action.arguments);
    const output = action.tool === "device_control"
      ? runDeviceControl(args, schemas.device_control)
      : {};
    call.write({
      observation: {
        step_type: "STEP_TYPE_OBSERVATION",
        act_id: action.act_id,
        status: "OBSERVATION_STATUS_OK",
        observation: toStruct(output),
      },
    });
  } else if (msg.event === "step") {
    const s = msg.step;
    printed.push({ step: s.step_type, content: s.content, act_id: s.act_id,
      metadata: s.metadata, stop_reason: s.stop_reason });
  } else if (msg.event === "receipt") {
    printed.push({ receipt: msg.receipt.receipt_id, answer: msg.receipt.answer });
    call.end();
  }
});
call.on("error", () => {}); // the status event below reports it
call.on("status", (status) => {
  printed.push(status.code === grpc.status.OK
    ? { status: "OK" }
    : { status: grpc.status[status.code], details: status.details });
  for (const line of printed) console.log(JSON.stringify(line));
  client.close();
});
