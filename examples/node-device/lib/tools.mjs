// The tools this device runs for the cloud:
//
// - water_plants: a tool of its own that the cloud has never heard of, declared on the
//   wire (ReasonRequest.declared_tools: a ToolDeclaration with JSON Schemas of its input
//   and of its observation, side effects, examples), run on a small simulated garden;
// - add_note: one of the cloud's built-in device tools (ReasonRequest.device_tools),
//   writing to the device's synced memory, its observation shaped by the schema that
//   ListTools gives.
//
// Every action's arguments are checked against the tool's input schema before it runs,
// and every observation against its observation schema before it is sent (ajv, JSON
// Schema draft 2020-12, as the cloud checks them with Python's jsonschema).
import fs from "node:fs";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020.js";

// strict: false, because the cloud's schemas carry annotations of their own (x-edgeloop-slots).
const ajv = new Ajv2020({ strict: false, allErrors: false });

/** The tool this device brings (sent as it is, in ReasonRequest.declared_tools). */
export const WATER_PLANTS = {
  name: "water_plants",
  description: "Waters one of the plants on this device's balcony: the pump runs until "
    + "the given millilitres have flowed. Answers with the soil moisture after watering.",
  input_schema: {
    type: "object",
    properties: {
      plant: { type: "string", minLength: 1, maxLength: 64, description: "The plant as people call it: fern, basil, lemon tree." },
      ml: { type: "integer", minimum: 1, maximum: 2000, description: "Millilitres of water." },
    },
    required: ["plant", "ml"],
    additionalProperties: false,
  },
  observation_schema: {
    type: "object",
    properties: {
      plant: { type: "string" },
      ml: { type: "integer" },
      soil_moisture: { type: "number", minimum: 0, maximum: 1 },
      watered_at: { type: "string" },
    },
    required: ["plant", "ml", "soil_moisture", "watered_at"],
    additionalProperties: false,
  },
  side_effects: true,
  requires_approval: false,
  examples: [
    "water the fern with 200 ml",
    "give the basil 150 ml of water",
    "water the lemon tree with half a litre",
  ],
};

const NUMBER_WORDS = { a: 1, one: 1, two: 2, three: 3, four: 4, five: 5, half: 0.5 };

/**
 * The device's own reading of a request for its tool (a ProposedCall): what a device's
 * model would send. Here a pattern stands in for the model: "water the fern with 200 ml",
 * "give the basil 150 ml (of water)", "water the lemon tree with half a litre".
 */
export function proposeCalls(query) {
  const amount = String.raw`(\d+(?:\.\d+)?|a|one|two|three|four|five|half)\s*(?:an?\s+)?(ml|millilit(?:er|re)s?|l|lit(?:er|re)s?|cl)`;
  const patterns = [
    new RegExp(String.raw`\bwater\s+(?:the\s+|my\s+)?([a-z][a-z ]*?)\s+with\s+${amount}`, "i"),
    new RegExp(String.raw`\bgive\s+(?:the\s+|my\s+)?([a-z][a-z ]*?)\s+${amount}(?:\s+of\s+water)?`, "i"),
  ];
  for (const pattern of patterns) {
    const m = query.match(pattern);
    if (!m) continue;
    const count = NUMBER_WORDS[m[2].toLowerCase()] ?? Number(m[2]);
    const unit = m[3].toLowerCase();
    const factor = unit.startsWith("m") ? 1 : unit === "cl" ? 10 : 1000;
    return [{
      tool: WATER_PLANTS.name,
      arguments: { plant: m[1].trim().toLowerCase(), ml: Math.round(count * factor) },
      span: m[0],
      confidence: 0.9,
    }];
  }
  return [];
}

/** Runs the device's tools; `schemas` maps a built-in tool's name to its ListTools schemas. */
export class DeviceTools {
  constructor({ memory, gardenFile, schemas = {} }) {
    this.memory = memory;
    this.gardenFile = gardenFile;
    this.checks = {};
    const all = { ...schemas, [WATER_PLANTS.name]: WATER_PLANTS };
    for (const [name, s] of Object.entries(all)) {
      this.checks[name] = {
        input: ajv.compile(s.input_schema || {}),
        output: ajv.compile(Object.keys(s.observation_schema || {}).length ? s.observation_schema : {}),
      };
    }
  }

  /** The built-in device tools this device runs (ReasonRequest.device_tools). */
  static builtins() {
    return ["add_note"];
  }

  /** Run one device action; returns {status, observation, content}. */
  run(tool, args, actId) {
    const check = this.checks[tool];
    if (!check) return refused(`this device does not run ${tool}`);
    if (!check.input(args)) return refused(`bad arguments for ${tool}: ${describe(check.input.errors)}`);
    let observation;
    try {
      observation = tool === WATER_PLANTS.name ? this.waterPlants(args) : this.addNote(args, actId);
    } catch (err) {
      return { status: "OBSERVATION_STATUS_ERROR", observation: { error: String(err.message || err) }, content: String(err.message || err) };
    }
    if (!check.output(observation)) {
      return refused(`${tool} produced an observation its schema refuses: ${describe(check.output.errors)}`);
    }
    return { status: "OBSERVATION_STATUS_OK", observation, content: "" };
  }

  waterPlants({ plant, ml }) {
    const garden = readGarden(this.gardenFile);
    const before = garden[plant]?.soil_moisture ?? 0.2;
    const soilMoisture = Math.min(1, Math.round((before + ml / 1000) * 100) / 100);
    const wateredAt = new Date().toISOString();
    garden[plant] = { soil_moisture: soilMoisture, watered_at: wateredAt, last_ml: ml };
    fs.mkdirSync(path.dirname(this.gardenFile), { recursive: true, mode: 0o700 });
    fs.writeFileSync(this.gardenFile, JSON.stringify(garden, null, 2));
    return { plant, ml, soil_moisture: soilMoisture, watered_at: wateredAt };
  }

  addNote({ text, list }, actId) {
    // A list item is a note "<list> list: <item>" (docs/edge.md, lists).
    const name = list ? String(list).trim().toLowerCase() : "";
    if (name && !text) return { note_id: this.memory.addNote(`${name} list:`, actId), list: name, created: true, count: 0 };
    const noteId = this.memory.addNote(name ? `${name} list: ${text}` : text, actId);
    return name ? { note_id: noteId, text, list: name } : { note_id: noteId, text };
  }
}

function refused(message) {
  return { status: "OBSERVATION_STATUS_ERROR", observation: { error: message }, content: message };
}

function describe(errors) {
  return (errors || []).map((e) => `${e.instancePath || "(root)"} ${e.message}`).join("; ");
}

function readGarden(file) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return {};
  }
}
