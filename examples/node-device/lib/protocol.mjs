// The edgeloop.v1 package, loaded at run time from the repository's proto/ folder (no
// generated code), and the few conversions every call needs.
//
// proto-loader options: field names as in the .proto (keepCase), enums as their names,
// oneofs reported in `event`, 64-bit numbers as strings. The well-known types
// (google.protobuf.Struct, Timestamp) come from protobufjs's own copies, whose field
// names are camelCase whatever keepCase says: `{fields: {ml: {numberValue: 200}}}`.
import path from "node:path";
import { fileURLToPath } from "node:url";
import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** proto/ of the repository this example lives in (examples/node-device/lib -> ../../../proto). */
export const PROTO_ROOT = process.env.EDGELOOP_PROTO_ROOT || path.resolve(HERE, "../../../proto");

export { grpc };

/** The edgeloop.v1 package: service constructors (CloudReasonerService, MemorySyncService...). */
export function loadProtocol(protoRoot = PROTO_ROOT) {
  const definition = protoLoader.loadSync("edgeloop/v1/agent.proto", {
    includeDirs: [protoRoot],
    keepCase: true,
    enums: String,
    oneofs: true,
    defaults: true,
    longs: String,
  });
  return grpc.loadPackageDefinition(definition).edgeloop.v1;
}

/** Call metadata: the bearer token (when the cloud has tokens) and the device id. */
export function callMetadata({ token, deviceId }) {
  const metadata = new grpc.Metadata();
  if (token) metadata.set("authorization", `Bearer ${token}`);
  if (deviceId) metadata.set("x-device-id", deviceId);
  return metadata;
}

// ---- google.protobuf.Struct <-> plain JSON ------------------------------------------

function toValue(v) {
  if (v === null || v === undefined) return { nullValue: "NULL_VALUE" };
  if (typeof v === "number") return { numberValue: v };
  if (typeof v === "string") return { stringValue: v };
  if (typeof v === "boolean") return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(toValue) } };
  return { structValue: toStruct(v) };
}

/** A plain object as a google.protobuf.Struct message. */
export function toStruct(obj) {
  const fields = {};
  for (const [k, v] of Object.entries(obj || {})) fields[k] = toValue(v);
  return { fields };
}

function fromValue(v) {
  // A decoded Value names its case in `kind`; one built here (toValue) has only the case.
  const kind = v.kind || Object.keys(v).find((k) => k.endsWith("Value"));
  switch (kind) {
    case "nullValue": return null;
    case "numberValue": return v.numberValue;
    case "stringValue": return v.stringValue;
    case "boolValue": return v.boolValue;
    case "listValue": return ((v.listValue && v.listValue.values) || []).map(fromValue);
    case "structValue": return fromStruct(v.structValue);
    default: return null;
  }
}

/** A google.protobuf.Struct message as a plain object (numbers are JS numbers). */
export function fromStruct(s) {
  const out = {};
  for (const [k, v] of Object.entries((s && s.fields) || {})) out[k] = fromValue(v);
  return out;
}

/** A google.protobuf.Timestamp as RFC 3339 in UTC with 0, 3, 6 or 9 fraction digits
 * (protobuf's JSON mapping; Python's Timestamp.ToJsonString writes the same). */
export function timestampJson(ts) {
  const seconds = Number(ts.seconds || 0);
  const nanos = Number(ts.nanos || 0);
  const base = new Date(seconds * 1000).toISOString().slice(0, 19); // YYYY-MM-DDTHH:MM:SS
  if (nanos === 0) return `${base}Z`;
  const digits = String(nanos).padStart(9, "0");
  if (nanos % 1_000_000 === 0) return `${base}.${digits.slice(0, 3)}Z`;
  if (nanos % 1_000 === 0) return `${base}.${digits.slice(0, 6)}Z`;
  return `${base}.${digits}Z`;
}

/** Whether a message field is set (with `defaults: true` proto-loader gives null for an
 * unset message, an object for a set one, even an all-zero one). */
export function isSet(message) {
  return message !== null && message !== undefined;
}
