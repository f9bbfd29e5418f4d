// A Node.js client that loads agent.proto at run time and streams Reason.
// Usage: node reason_client.mjs HOST:PORT "QUERY" -> prints one JSON step per line.
import grpc from "@grpc/grpc-js";
import { loadProtocol } from "./protocol.mjs";

const [target, query] = process.argv.slice(2);

const pkg = loadProtocol();
const client = new pkg.CloudReasonerService(target, grpc.credentials.createInsecure());
const deadline = new Date(Date.now() + 20000);
const metadata = new grpc.Metadata();
metadata.set("x-trace-id", "node-trace-" + Date.now());
const call = client.Reason(
  { sessionId: "node-" + Date.now(), query, deviceId: "node-client" },
  metadata,
  { deadline },
);
call.on("data", (response) => {
  const step = response.step;
  console.log(
    JSON.stringify({
      stepType: step.stepType,
      content: step.content,
      tool: step.tool,
      traceId: step.traceId,
      origin: step.origin,
      sessionId: step.sessionId,
    }),
  );
});
call.on("error", (err) => {
  console.error(`error: ${err.code} ${err.details}`);
  process.exit(1);
});
call.on("end", () => client.close());
