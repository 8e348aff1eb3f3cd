"""Old home of the simulator, which now lives in :mod:`harness.simulator`.

Kept so that code written against ``harness.recording.sim`` (and
``python -m harness.recording.sim``) keeps working; new code imports
``harness.simulator``.
"""

from harness.simulator import (
    Condition,
    EchoSentinelsRule,
    ErrorReply,
    ReceivedRequest,
    Reply,
    ReplyRule,
    Script,
    ScriptExhausted,
    ScriptToolCall,
    SimulatorServer,
    load_script,
    serve,
    serve_or_exit,
)

__all__ = [
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
    "load_script",
    "serve",
    "serve_or_exit",
]

if __name__ == "__main__":
    from harness.simulator._serve import main

    main()
