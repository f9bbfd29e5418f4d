// Checking a DecisionReceipt the cloud sent, byte for byte as the Python reference does
// (react_kernel/receipts.py; docs/protocol.md, "Receipts: the canonical encoding";
// docs/receipt-vectors.json holds test vectors).
//
//   receipt_id    = hex sha256(UTF-8(session_id + query + created_at as RFC 3339))
//   digest        = hex sha256(UTF-8(canonical JSON of the receipt without `digest`, in
//                   protobuf's JSON mapping: camelCase names, fields at their default left
//                   out, Struct numbers as doubles: 200 is written 200.0))
//   output_sha256 = hex sha256(UTF-8(canonical JSON of the observation Struct, integral
//                   numbers below 2^53 written as integers: 200))
//
// Canonical JSON is Python's json.dumps(sort_keys=True, separators=(",", ":"),
// ensure_ascii=False): keys sorted by code point, no spaces, non-ASCII as UTF-8, and a
// double written as Python's repr(float) writes it ("200.0", "1e-05", "1e+16").
import crypto from "node:crypto";
import { fromStruct, isSet, timestampJson } from "./protocol.mjs";

const sha256 = (text) => crypto.createHash("sha256").update(text, "utf8").digest("hex");

/** A double as Python's repr(float): the shortest digits that read back the same number
 * (as JS has them), laid out in Python's style. */
export function pythonFloat(x) {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mantissa, exponentText] = x.toExponential().split("e");
  const exponent = Number(exponentText);
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace("-", "").replace(".", "");
  if (exponent < -4 || exponent >= 16) {
    const lead = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const magnitude = String(Math.abs(exponent)).padStart(2, "0");
    return `${sign}${lead}e${exponent < 0 ? "-" : "+"}${magnitude}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  if (digits.length <= exponent + 1) return `${sign}${digits}${"0".repeat(exponent + 1 - digits.length)}.0`;
  return `${sign}${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
}

function byCodePoint(a, b) {
  const x = Array.from(a, (c) => c.codePointAt(0));
  const y = Array.from(b, (c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/**
 * Canonical JSON of a plain value. `numbers`: "double" writes every number as a Python
 * float (the digest), "integral" writes integral numbers below 2^53 as integers (the
 * observation hash, argument comparison). Integers that are protobuf int32 fields are
 * passed as BigInt so that "double" leaves them integers.
 */
export function canonicalJson(value, numbers = "integral") {
  const encode = (v) => {
    if (v === null || v === undefined) return "null";
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "boolean") return v ? "true" : "false";
    if (typeof v === "string") return JSON.stringify(v);
    if (typeof v === "number") {
      if (numbers === "integral" && Number.isInteger(v) && Math.abs(v) < 2 ** 53) {
        return String(v === 0 ? 0 : v);
      }
      return pythonFloat(v);
    }
    if (Array.isArray(v)) return `[${v.map(encode).join(",")}]`;
    const keys = Object.keys(v).sort(byCodePoint);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${encode(v[k])}`).join(",")}}`;
  };
  return encode(value);
}

/** The receipt (a proto-loader object) in protobuf's JSON mapping, without `digest`. */
export function receiptJson(receipt) {
  const out = {};
  if (receipt.receipt_id) out.receiptId = receipt.receipt_id;
  if (receipt.session_id) out.sessionId = receipt.session_id;
  if (receipt.query) out.query = receipt.query;
  if (receipt.answer) out.answer = receipt.answer;
  if (receipt.evidence && receipt.evidence.length) {
    out.evidence = receipt.evidence.map((e) => {
      const item = {};
      if (e.act_id) item.actId = e.act_id;
      if (e.tool) item.tool = e.tool;
      if (isSet(e.arguments)) item.arguments = fromStruct(e.arguments);
      if (e.output_sha256) item.outputSha256 = e.output_sha256;
      return item;
    });
  }
  if (receipt.reasoning && receipt.reasoning.length) out.reasoning = [...receipt.reasoning];
  if (receipt.model) out.model = receipt.model;
  if (isSet(receipt.token_usage)) {
    const usage = {};
    if (receipt.token_usage.prompt_tokens) usage.promptTokens = BigInt(receipt.token_usage.prompt_tokens);
    if (receipt.token_usage.completion_tokens) {
      usage.completionTokens = BigInt(receipt.token_usage.completion_tokens);
    }
    out.tokenUsage = usage;
  }
  if (isSet(receipt.created_at)) out.createdAt = timestampJson(receipt.created_at);
  return out;
}

export function receiptDigest(receipt) {
  return sha256(canonicalJson(receiptJson(receipt), "double"));
}

export function receiptIdFor(sessionId, query, createdAt) {
  return sha256(sessionId + query + timestampJson(createdAt));
}

/** Hex sha256 of an observation (a plain object) in canonical JSON. */
export function observationSha256(observation) {
  return sha256(canonicalJson(observation, "integral"));
}

/**
 * Check a receipt against the steps this device saw in its turn: the cloud's steps (its
 * THOUGHTs, ACTIONs, cloud OBSERVATIONs, the FINAL_ANSWER), the device actions and the
 * observations the device sent. Steps are plain objects: {step_type, session_id, act_id,
 * tool, arguments, observation, status, content, receipt_id} with `arguments` and
 * `observation` plain objects. Returns what does not match (empty: valid), as
 * react_kernel.verify_receipt does.
 */
export function verifyReceipt(receipt, steps) {
  const problems = [];
  if (receiptDigest(receipt) !== receipt.digest) {
    problems.push("digest: the receipt's fields were changed after it was issued");
  }
  if (!isSet(receipt.created_at)
      || receiptIdFor(receipt.session_id, receipt.query, receipt.created_at) !== receipt.receipt_id) {
    problems.push("receipt_id: does not match session id, query and timestamp");
  }
  const final = steps.find((s) => s.step_type === "STEP_TYPE_FINAL_ANSWER"
    && s.receipt_id === receipt.receipt_id);
  if (!final) {
    problems.push("answer: no FINAL_ANSWER step carries this receipt id");
    return problems;
  }
  if (final.session_id !== receipt.session_id) problems.push("session_id: differs from the final answer's session");
  if (final.content !== receipt.answer) problems.push("answer: differs from the FINAL_ANSWER");
  const thoughts = steps.filter((s) => s.step_type === "STEP_TYPE_THOUGHT").map((s) => s.content);
  if (JSON.stringify(thoughts) !== JSON.stringify([...(receipt.reasoning || [])])) {
    problems.push("reasoning: differs from the THOUGHT steps");
  }
  const byAct = new Map();
  for (const s of steps) {
    if (!s.act_id) continue;
    if (!byAct.has(s.act_id)) byAct.set(s.act_id, {});
    byAct.get(s.act_id)[s.step_type] = s;
  }
  const cited = new Set();
  (receipt.evidence || []).forEach((evidence, i) => {
    cited.add(evidence.act_id);
    const found = byAct.get(evidence.act_id) || {};
    const action = found.STEP_TYPE_ACTION;
    const observation = found.STEP_TYPE_OBSERVATION;
    const where = `evidence[${i}] (${evidence.act_id.slice(0, 8)})`;
    if (!observation) {
      problems.push(`${where}: no OBSERVATION with this act id`);
      return;
    }
    if (observation.status !== "OBSERVATION_STATUS_OK") problems.push(`${where}: the OBSERVATION is not OK`);
    if (evidence.tool !== observation.tool) problems.push(`${where}: tool differs from the step`);
    if (action && canonicalJson(action.arguments) !== canonicalJson(fromStruct(evidence.arguments))) {
      problems.push(`${where}: arguments differ from the ACTION`);
    }
    if (observationSha256(observation.observation) !== evidence.output_sha256) {
      problems.push(`${where}: output hash differs from the OBSERVATION`);
    }
  });
  for (const [actId, found] of byAct) {
    const observation = found.STEP_TYPE_OBSERVATION;
    if (observation && observation.status === "OBSERVATION_STATUS_OK" && !cited.has(actId)) {
      problems.push(`evidence: the OK observation of act ${actId.slice(0, 8)} is not cited`);
    }
  }
  return problems;
}
