"""Agents that run as their own process, for the proxy's tests: a Python one on the
openai SDK and a Node one on Node's built-in fetch, each a read-the-notes tool loop."""

from __future__ import annotations

from typing import Any

CODE = "RELEASE-CODE-9P3X"

SIM_SCRIPT: dict[str, Any] = {
    "version": 1,
    "rules": [
        {
            "when": {"tools_include": "read_file", "has_tool_results": False},
            "reply": {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        },
        {
            "fill": "RELEASE-CODE-[A-Z0-9]+",
            "when": {"last_tool_result_contains": "RELEASE-CODE"},
            "reply": "The release code is {match}.",
        },
        {"when": {"last_user_contains": "say hello"}, "reply": "hello"},
    ],
}

PYTHON_AGENT = """
import json, pathlib, sys
import openai

workspace = pathlib.Path(sys.argv[1])
client = openai.OpenAI(max_retries=0)  # OPENAI_BASE_URL and OPENAI_API_KEY from the environment
TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]
messages = [{"role": "user", "content": "What is the release code?"}]
for _ in range(4):
    message = client.chat.completions.create(
        model="gpt-4.1-mini", messages=messages, tools=TOOLS
    ).choices[0].message
    if not message.tool_calls:
        print(message.content)
        break
    messages.append(message.model_dump(exclude_none=True))
    for call in message.tool_calls:
        path = json.loads(call.function.arguments)["path"]
        messages.append({"role": "tool", "tool_call_id": call.id,
                         "content": (workspace / path).read_text()})
"""

NODE_AGENT = """
const fs = require("fs");
const path = require("path");
const workspace = process.argv[2];
const base = process.env.OPENAI_BASE_URL;
const tools = [{type: "function", function: {name: "read_file", parameters: {
  type: "object", properties: {path: {type: "string"}}, required: ["path"]}}}];

async function main() {
  const messages = [{role: "user", content: "What is the release code?"}];
  for (let i = 0; i < 4; i++) {
    const answer = await fetch(base + "/chat/completions", {
      method: "POST",
      headers: {"content-type": "application/json",
                "authorization": "Bearer " + process.env.OPENAI_API_KEY},
      body: JSON.stringify({model: "gpt-4.1-mini", messages, tools}),
    });
    const data = await answer.json();
    if (!answer.ok) { console.error(JSON.stringify(data)); process.exit(1); }
    const message = data.choices[0].message;
    if (!message.tool_calls) { console.log(message.content); return; }
    messages.push(message);
    for (const call of message.tool_calls) {
      const file = JSON.parse(call.function.arguments).path;
      messages.push({role: "tool", tool_call_id: call.id,
                     content: fs.readFileSync(path.join(workspace, file), "utf8")});
    }
  }
}
main();
"""

# The inner test file: each agent run through llm_proxy, as a user would write it.
INNER_TESTS = f'''
import pathlib, shutil, subprocess, sys
import pytest

HERE = pathlib.Path(__file__).parent


def _run(command, llm_proxy, tmp_path):
    (tmp_path / "notes.txt").write_text("The code is {CODE}.")
    done = subprocess.run(
        [*command, str(tmp_path)], env=llm_proxy.env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.eval("proxy-python")
def test_python_child(llm_proxy, tmp_path):
    if llm_proxy.replaying:
        assert llm_proxy.env["OPENAI_API_KEY"] == "harness-replay-placeholder"
    out = _run([sys.executable, str(HERE / "agent.py")], llm_proxy, tmp_path)
    assert "{CODE}" in out
    assert [c.name for c in llm_proxy.tool_calls()] == ["read_file"]


@pytest.mark.eval("proxy-node")
def test_node_child(llm_proxy, tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    out = _run([node, str(HERE / "agent.js")], llm_proxy, tmp_path)
    assert "{CODE}" in out
    assert [c.name for c in llm_proxy.tool_calls()] == ["read_file"]
'''
