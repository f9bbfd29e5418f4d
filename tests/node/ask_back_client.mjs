// A Node.js client of EdgeAgentService that answers a question the device asks back.
// Usage: node ask_back_client.mjs HOST:PORT "QUERY" "ANSWER" -> one JSON step per line:
// the steps of Ask(QUERY), then, when the last is a CLARIFICATION, those of
// Ask(ANSWER, session_id) in the same session.
import grpc from "@grpc/grpc-js";
import { loadProtocol } from "./protocol.mjs";

const [target, query, answer] = process.argv.slice(2);

const pkg = loadProtocol();
const client = new pkg.EdgeAgentService(target, grpc.credentials.createInsecure());

// A Struct as a plain object (proto-loader keeps the well-known type's shape).
function plain(struct) {
  const out = {};
  for (const [key, value] of Object.entries(struct?.fields ?? {})) {
    out[key] = value.stringValue ?? value.numberValue ?? value.boolValue ?? null;
  }
  return out;
}

function ask(request) {
  return new Promise((resolve, reject) => {
    const steps = [];
    const call = client.Ask(request, { deadline: new Date(Date.now() + 20000) });
    call.on("data", (response) => {
      const step = response.step;
      const shown = {
        stepType: step.stepType,
        content: step.content,
        sessionId: step.sessionId,
        turnId: step.turnId ?? 0,
        missingArgument: step.missingArgument ?? "",
        argumentSchema: plain(step.argumentSchema),
        answersActId: step.answersActId ?? "",
        actId: step.actId ?? "",
      };
      console.log(JSON.stringify(shown));
      steps.push(shown);
    });
    call.on("error", reject);
    call.on("end", () => resolve(steps));
  });
}

try {
  const asked = await ask({ query });
  const last = asked[asked.length - 1];
  if (last.stepType === "STEP_TYPE_CLARIFICATION") {
    await ask({ query: answer, sessionId: last.sessionId });
  }
  client.close();
} catch (err) {
  console.error(`error: ${err.code} ${err.details}`);
  process.exit(1);
}
