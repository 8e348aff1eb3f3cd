#!/usr/bin/env node
// A small tool-loop agent on the openai npm package: the model may call
// read_file on the workspace until it answers. Nothing here knows about
// harness: the client reads OPENAI_BASE_URL and OPENAI_API_KEY like any other,
// so the same script runs against api.openai.com, the simulator or a proxy.
//
// Usage: node agent.mjs WORKSPACE "question"   (the answer goes to stdout)
import { readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import OpenAI from "openai";

const MODEL = "gpt-4.1-mini";
const STEPS = 6;
const TOOLS = [
  {
    type: "function",
    function: {
      name: "read_file",
      description: "Read a text file of the workspace.",
      parameters: {
        type: "object",
        properties: { path: { type: "string" } },
        required: ["path"],
      },
    },
  },
];

// A file inside the workspace, or an error the model reads (never a crash).
function readFile(workspace, relative) {
  try {
    const root = realpathSync(workspace);
    const target = realpathSync(path.resolve(root, String(relative)));
    if (!target.startsWith(root + path.sep) || !statSync(target).isFile()) {
      throw new Error("outside the workspace");
    }
    return readFileSync(target, "utf8");
  } catch {
    return `error: no file ${JSON.stringify(relative)} in the workspace`;
  }
}

async function run(workspace, prompt) {
  const client = new OpenAI({ maxRetries: 0 });
  const messages = [
    { role: "system", content: "Answer from the workspace files; read them first." },
    { role: "user", content: prompt },
  ];
  for (let step = 0; step < STEPS; step++) {
    const response = await client.chat.completions.create({
      model: MODEL,
      messages,
      tools: TOOLS,
    });
    const message = response.choices[0].message;
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) {
      return message.content ?? "";
    }
    for (const call of message.tool_calls) {
      let args = {};
      try {
        args = JSON.parse(call.function.arguments || "{}");
      } catch {
        args = {};
      }
      const output =
        call.function.name === "read_file"
          ? readFile(workspace, args.path ?? "")
          : `error: no tool ${JSON.stringify(call.function.name)}`;
      messages.push({ role: "tool", tool_call_id: call.id, content: output });
    }
  }
  throw new Error(`no answer within ${STEPS} model calls`);
}

const [workspace, prompt] = process.argv.slice(2);
if (!workspace || !prompt) {
  console.error('usage: node agent.mjs WORKSPACE "question"');
  process.exit(2);
}
try {
  console.log(await run(workspace, prompt));
} catch (error) {
  console.error(`error: ${error.message}`);
  process.exit(1);
}
