// One turn of split execution over CloudReasonerService.Converse (docs/protocol.md,
// "Reason and Converse, step by step"): the start names the built-in device tools this
// device runs, declares its own tools and proposes the calls it read from the query; the
// cloud streams its steps and sends a device_action whenever the plan needs the device;
// the device answers each with one OBSERVATION of the same act_id; the turn ends with a
// FINAL_ANSWER, then the receipt, then status OK.
import crypto from "node:crypto";
import { callMetadata, fromStruct, grpc, toStruct } from "./protocol.mjs";

/** A ReactStep (proto-loader object) as a plain object, Structs as plain JSON. */
export function plainStep(s) {
  return {
    step_type: s.step_type,
    session_id: s.session_id,
    turn_id: s.turn_id,
    step_index: s.step_index,
    act_id: s.act_id,
    tool: s.tool,
    arguments: fromStruct(s.arguments),
    observation: fromStruct(s.observation),
    status: s.status,
    content: s.content,
    receipt_id: s.receipt_id,
    stop_reason: s.stop_reason,
    metadata: s.metadata || {},
  };
}

/** A ToolDeclaration message from a plain declaration (schemas as plain JSON). */
export function declarationMessage(d) {
  return {
    name: d.name,
    description: d.description,
    input_schema: toStruct(d.input_schema),
    observation_schema: toStruct(d.observation_schema || {}),
    side_effects: Boolean(d.side_effects),
    requires_approval: Boolean(d.requires_approval),
    examples: d.examples || [],
  };
}

/** ListTools for this device: the cloud's tools, the built-ins it runs, its own declared. */
export function listTools(client, { token, deviceId, builtins, declared }) {
  const request = { device_tools: builtins, declared_tools: declared.map(declarationMessage) };
  return new Promise((resolve, reject) => {
    client.ListTools(request, callMetadata({ token, deviceId }), { deadline: Date.now() + 10_000 },
      (err, reply) => (err ? reject(err) : resolve(reply.tools)));
  });
}

/**
 * Run one turn. `tools.run(tool, args, actId)` answers device actions; `onEvent(event)`
 * sees every event as it happens ({step}, {device_action}, {observation}, {receipt}).
 * Resolves with {steps, receipt} (steps: the cloud's and the device's, plain) or rejects
 * with the gRPC error.
 */
export function converseTurn(client, { query, token, deviceId, builtins, declared, proposed,
  tools, onEvent = () => {}, deadlineMs = 60_000 }) {
  const sessionId = crypto.randomUUID().replace(/-/g, "");
  const call = client.Converse(callMetadata({ token, deviceId }), { deadline: Date.now() + deadlineMs });
  const steps = [];
  let receipt = null;
  call.write({
    start: {
      session_id: sessionId,
      query,
      device_id: deviceId,
      device_tools: builtins,
      declared_tools: declared.map(declarationMessage),
      proposed_calls: proposed.map((p) => ({ ...p, arguments: toStruct(p.arguments) })),
    },
  });
  return new Promise((resolve, reject) => {
    call.on("data", (msg) => {
      if (msg.event === "step") {
        steps.push(plainStep(msg.step));
        onEvent({ step: steps.at(-1) });
      } else if (msg.event === "device_action") {
        const action = plainStep(msg.device_action);
        steps.push(action);
        onEvent({ device_action: action });
        const result = tools.run(action.tool, action.arguments, action.act_id);
        const observation = {
          session_id: sessionId,
          turn_id: action.turn_id,
          step_type: "STEP_TYPE_OBSERVATION",
          act_id: action.act_id,
          tool: action.tool,
          status: result.status,
          observation: toStruct(result.observation),
          content: result.content,
          origin: "ORIGIN_EDGE",
          created_at: { seconds: String(Math.floor(Date.now() / 1000)), nanos: 0 },
        };
        steps.push({ ...plainStep(observation), step_index: action.step_index });
        onEvent({ observation: steps.at(-1) });
        call.write({ observation });
      } else if (msg.event === "receipt") {
        receipt = msg.receipt;
        onEvent({ receipt });
        call.end(); // half-close only after the FINAL_ANSWER
      }
    });
    call.on("error", reject);
    call.on("status", (status) => {
      if (status.code === grpc.status.OK) resolve({ sessionId, steps, receipt });
    });
  });
}

/** One query over Reason (cloud tools only): resolves with the plain steps. */
export function reasonOnce(client, { query, token, deviceId, onEvent = () => {} }) {
  const sessionId = crypto.randomUUID().replace(/-/g, "");
  const request = { session_id: sessionId, query, device_id: deviceId };
  const call = client.Reason(request, callMetadata({ token, deviceId }), { deadline: Date.now() + 60_000 });
  const steps = [];
  const raw = [];
  return new Promise((resolve, reject) => {
    call.on("data", (msg) => {
      raw.push(msg.step);
      steps.push(plainStep(msg.step));
      onEvent({ step: steps.at(-1) });
    });
    call.on("error", reject);
    call.on("end", () => resolve({ sessionId, steps, raw }));
  });
}
