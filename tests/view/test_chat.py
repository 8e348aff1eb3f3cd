"""A conversation trace shown as a chat (``harness view``): the entries the page
reads, the page's HTML, and the chat in a real headless Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.tracing import TraceTree
from harness.view import build_trace_page, trace_data
from harness.view._chat import is_conversation
from tests.view.traces import HOSTILE_TEXT, conversation_tree, overlapping_tree


def _entries(tree: TraceTree) -> list[dict[str, Any]]:
    chat = trace_data(tree, source="t.json")["chat"]
    assert chat is not None
    entries: list[dict[str, Any]] = chat["entries"]
    return entries


def test_a_conversation_reads_as_turns_user_tools_and_the_judge() -> None:
    tree = conversation_tree()
    data = trace_data(tree, source="t.json")
    chat = data["chat"]
    assert (chat["turns"], chat["stop_reason"], chat["texts"]) == (2, "user_stop", True)
    assert data["stop_reason"] == "user_stop"  # the summary and the trace list show it
    kinds = [(e["t"], e.get("turn")) for e in chat["entries"]]
    assert kinds == [
        ("user_tool", None),  # the user acts first, then speaks
        ("user", 1),
        ("agent", 1),
        ("user", 2),
        ("judge", None),
    ]
    tool, user, agent, _, judge = chat["entries"]
    assert (tool["name"], tool["args"], tool["result"]) == (
        "restart_router",
        '{"force": true}',
        "rebooted",
    )
    assert user["text"] == "My internet is down. " + HOSTILE_TEXT
    assert agent["text"].startswith("The log says") and agent["llm_calls"] == 1
    (read,) = agent["tools"]
    assert (read["name"], read["args"], read["result"], read["err"]) == (
        "read",
        '{"path": "router.log"}',
        "link up at 10:02",
        False,
    )
    assert (judge["verdict"], judge["reason"]) == ("pass", "the agent read the log first")
    # Each entry points at its span in the page's list, so a click opens its details.
    spans = data["spans"]
    assert spans[agent["span"]]["k"] == "agent.turn" and spans[read["span"]]["n"] == "read"


def test_a_metadata_trace_keeps_the_turns_without_their_text() -> None:
    entries = _entries(conversation_tree(mode="metadata"))
    user = next(e for e in entries if e["t"] == "user")
    assert user["text"] is None and user["chars"] == len("My internet is down. " + HOSTILE_TEXT)
    tool = entries[0]
    assert tool["t"] == "user_tool" and tool["args"] is None and tool["result"] is None
    assert trace_data(conversation_tree(mode="metadata"), source="t")["chat"]["texts"] is False


def test_any_other_trace_has_no_chat_and_keeps_its_tree() -> None:
    tree = overlapping_tree()
    assert not is_conversation(tree) and trace_data(tree, source="t")["chat"] is None


def test_the_page_embeds_the_chat_as_data_never_as_markup() -> None:
    page = build_trace_page([conversation_tree()])
    assert 'id="show-chat"' in page and 'id="chat"' in page
    # The hostile text is JSON inside the data script, escaped: no live tag anywhere.
    assert HOSTILE_TEXT not in page
    assert "\\u003cimg src=x onerror" in page


def _open(page: Any, html: str, folder: Path, name: str) -> None:
    file = folder / f"{name}.html"
    file.write_text(html, "utf-8")
    page.goto(file.as_uri())
    page.wait_for_selector("body[data-ready='1']")


def test_the_chat_in_a_browser(page: Any, shots: Path, tmp_path: Path) -> None:
    _open(page, build_trace_page([conversation_tree(), overlapping_tree()]), tmp_path, "chat")
    page.screenshot(path=str(shots / "chat.png"), full_page=True)
    # A conversation opens as a chat: bubbles in turn order, the tree hidden.
    assert page.locator("#chat").is_visible() and not page.locator("#waterfall").is_visible()
    entries = page.eval_on_selector_all("#chat [data-entry]", "n => n.map(e => e.dataset.entry)")
    assert entries == ["user_tool", "user", "agent", "user", "judge"]
    user = page.locator(".bubble.user").first
    assert user.locator(".said").text_content() == "My internet is down. " + HOSTILE_TEXT
    assert page.evaluate("window.pwned") is None  # shown as text, never run
    assert "user ran restart_router" in (page.locator(".chat-event.user-tool").text_content() or "")
    assert "judge: pass" in (page.locator(".chat-event.judge").text_content() or "")
    # The agent's tool calls are folded under its bubble until opened.
    agent = page.locator(".bubble.agent")
    assert not agent.locator(".chat-tool").is_visible()
    agent.locator("summary").click()
    assert "→ read" in (agent.locator(".chat-tool").text_content() or "")
    assert "link up at 10:02" in (agent.locator(".chat-tool").text_content() or "")
    # A click on a bubble opens its span's details.
    agent.locator(".said").click()
    assert "agent.turn" in (page.locator("#details").text_content() or "")
    # Another trace, no conversation: the tree, and no chat button.
    page.locator(".trace-item").nth(1).click()
    assert page.locator("#waterfall").is_visible() and not page.locator("#show-chat").is_visible()
    # Back to the conversation: the chat again; the waterfall is one click away.
    page.locator(".trace-item").nth(0).click()
    assert page.locator("#chat").is_visible()
    page.locator("#show-waterfall").click()
    assert page.locator("#waterfall").is_visible() and not page.locator("#chat").is_visible()
    labels = page.eval_on_selector_all("#rows .row", "r => r.map(x => x.dataset.kind)")
    assert labels[:2] == ["agent.run", "user.turn"]
