"""A local OpenAI- (Chat Completions, Responses) and Anthropic-compatible API server.

It lets the record path run end to end offline with the real SDKs: record a
cassette against it, and the cassette's metadata says it came from the simulator.
"""

from harness.simulator._runner import ScriptExhausted
from harness.simulator._script import (
    Condition,
    EchoSentinelsRule,
    ErrorReply,
    Reply,
    ReplyRule,
    Script,
    ScriptToolCall,
    load_script,
)
from harness.simulator._serve import check_host, log_requests, serve
from harness.simulator._server import SEED_HEADER, ReceivedRequest, SimulatorServer

__all__ = [
    "SEED_HEADER",
    "Condition",
    "EchoSentinelsRule",
    "ErrorReply",
    "ReceivedRequest",
    "Reply",
    "ReplyRule",
    "Script",
    "ScriptExhausted",
    "ScriptToolCall",
    "SimulatorServer",
    "check_host",
    "load_script",
    "log_requests",
    "serve",
]
