// Reads cases from stdin (JSON: [{receipt: base64 ConverseResponse, observations: [base64
// ConverseRequest]}]), decodes them with proto-loader as the Node device does, and prints
// what examples/node-device/lib/receipts.mjs computes: the digest, the receipt id and
// each observation's hash.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const example = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../examples/node-device/lib");
const { loadProtocol, fromStruct } = await import(path.join(example, "protocol.mjs"));
const { observationSha256, receiptDigest, receiptIdFor } = await import(path.join(example, "receipts.mjs"));

const converse = loadProtocol().CloudReasonerService.service.Converse;
const cases = JSON.parse(fs.readFileSync(0, "utf8"));
const out = cases.map((c) => {
  const receipt = converse.responseDeserialize(Buffer.from(c.receipt, "base64")).receipt;
  return {
    digest: receiptDigest(receipt),
    receipt_id: receipt.created_at ? receiptIdFor(receipt.session_id, receipt.query, receipt.created_at) : "",
    observations: c.observations.map((b) => observationSha256(
      fromStruct(converse.requestDeserialize(Buffer.from(b, "base64")).observation.observation))),
  };
});
console.log(JSON.stringify(out));
