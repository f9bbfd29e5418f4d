// A DecisionReceipt verifier written from docs/protocol.md ("Receipts: the canonical
// encoding") alone, with Node's standard library only (no npm package).
//
//   node verify_receipt.mjs VECTORS.json      checks every case of a test-vector file
//   node verify_receipt.mjs --receipt R.json  checks one receipt (protobuf JSON mapping,
//                                             e.g. `edge-agent receipt --json`'s "receipt")
//
// Prints one JSON object ({"checked": n, "failures": [...]}) and exits 1 on any failure.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

const sha256 = (text) => createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");

// Strings: JSON escapes for '"', '\\' and the C0 controls only; everything else as itself.
const SHORT = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };
function quote(text) {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0);
    if (SHORT[ch] !== undefined) out += SHORT[ch];
    else if (code < 0x20) out += "\\u" + code.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

// A double as Python's repr(float): the shortest round-trip digits; fixed notation with
// at least one decimal when -4 <= exponent < 16, otherwise d.ddde+XX / d.ddde-XX.
function double(value) {
  if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const [mantissa, exp] = value.toExponential().split("e");
  const exponent = Number(exp);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  let text;
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) text = "0." + "0".repeat(-exponent - 1) + digits;
    else if (digits.length <= exponent + 1) text = digits + "0".repeat(exponent + 1 - digits.length) + ".0";
    else text = digits.slice(0, exponent + 1) + "." + digits.slice(exponent + 1);
  } else {
    const sign = exponent < 0 ? "-" : "+";
    const rest = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
    text = rest + "e" + sign + String(Math.abs(exponent)).padStart(2, "0");
  }
  return (negative ? "-" : "") + text;
}

// Keys in Unicode code point order (not UTF-16 code units, JavaScript's default sort).
function byCodePoint(a, b) {
  const x = [...a], y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

// Canonical JSON; numbers are doubles inside Struct values (evidence arguments) and
// integers elsewhere (tokenUsage).
function canonical(value, inStruct = false) {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "string") return quote(value);
  if (typeof value === "number") {
    if (inStruct) return double(value);
    if (!Number.isInteger(value)) throw new Error(`not an integer: ${value}`);
    return String(value);
  }
  if (Array.isArray(value)) return "[" + value.map((v) => canonical(v, inStruct)).join(",") + "]";
  const keys = Object.keys(value).sort(byCodePoint);
  return "{" + keys.map((k) => quote(k) + ":" + canonical(value[k], inStruct || k === "arguments")).join(",") + "}";
}

export function receiptId(receipt) {
  return sha256((receipt.sessionId ?? "") + (receipt.query ?? "") + (receipt.createdAt ?? ""));
}

export function receiptDigest(receipt) {
  const rest = { ...receipt };
  delete rest.digest;
  for (const [key, value] of Object.entries(rest)) {
    // Fields at their default are left out, as protobuf's JSON mapping leaves them.
    if (value === "" || (Array.isArray(value) && value.length === 0)) delete rest[key];
  }
  return sha256(canonical(rest));
}

export function checkReceipt(receipt) {
  const problems = [];
  if (receiptId(receipt) !== receipt.receiptId) problems.push("receipt_id");
  if (receiptDigest(receipt) !== receipt.digest) problems.push("digest");
  return problems;
}

function main(args) {
  const failures = [];
  let checked = 0;
  if (args[0] === "--receipt") {
    const receipt = JSON.parse(readFileSync(args[1], "utf8"));
    checked = 1;
    const problems = checkReceipt(receipt);
    if (problems.length) failures.push({ name: args[1], problems });
  } else {
    const vectors = JSON.parse(readFileSync(args[0], "utf8"));
    for (const c of vectors.cases) {
      checked += 1;
      const problems = checkReceipt(c.receipt);
      const rest = { ...c.receipt };
      delete rest.digest;
      if (canonical(rest) !== c.canonical) problems.push("canonical");
      if (sha256(c.receipt_id_input) !== c.receipt_id || c.receipt.receiptId !== c.receipt_id) problems.push("receipt_id_input");
      if (c.receipt.digest !== c.digest) problems.push("vector digest");
      if (problems.length) failures.push({ name: c.name, problems });
    }
  }
  console.log(JSON.stringify({ checked, failures }));
  process.exit(failures.length ? 1 : 0);
}

main(process.argv.slice(2));
