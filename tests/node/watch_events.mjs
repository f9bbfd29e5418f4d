// A Node.js device UI: streams WatchEvents from an edge agent runtime and prints each
// event as one JSON line. Usage: node watch_events.mjs HOST:PORT COUNT SECONDS
// (exits after COUNT events, or after SECONDS with what it got).
import grpc from "@grpc/grpc-js";
import { loadProtocol } from "./protocol.mjs";

const [target, count, seconds] = process.argv.slice(2);

const pkg = loadProtocol();
const client = new pkg.EdgeAgentService(target, grpc.credentials.createInsecure());
const call = client.WatchEvents({ includeRinging: true });
let seen = 0;
const done = () => {
  call.cancel();
  client.close();
  process.exit(0);
};
console.error("watching");
call.on("metadata", () => console.error("connected"));
call.on("data", (response) => {
  const event = response.event;
  console.log(JSON.stringify({ kind: event.kind, text: event.text, timerId: event.timerId, label: event.label }));
  seen += 1;
  if (seen >= Number(count)) done();
});
call.on("error", (err) => {
  if (err.code === grpc.status.CANCELLED) return;
  console.error(`error: ${err.code} ${err.details}`);
  process.exit(1);
});
setTimeout(done, Number(seconds) * 1000);
