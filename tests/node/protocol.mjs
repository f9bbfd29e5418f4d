// The edgeloop.v1 package for the Node.js clients, loaded from proto/ as a third party
// would (proto-loader; camelCase fields, enums as their names, 64-bit numbers as strings).
import path from "node:path";
import { fileURLToPath } from "node:url";
import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";

const here = path.dirname(fileURLToPath(import.meta.url));
const protoRoot = path.resolve(here, "../../proto");

export function loadProtocol() {
  const definition = protoLoader.loadSync("edgeloop/v1/agent.proto", {
    includeDirs: [protoRoot],
    keepCase: false,
    enums: String,
    defaults: false,
    longs: String,
  });
  return grpc.loadPackageDefinition(definition).edgeloop.v1;
}
