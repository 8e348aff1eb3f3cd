"""Conversations: a simulated user talks to an agent over many turns, recorded once.

One concept per module:

- ``_spec``: the ``user:`` block of a case file (persona, goal, scripted turns or a
  graph, stop condition, the user's own tools).
- ``_match``: what the agent said, against a branch's ``when``.
- ``_user``: the speakers: a script, a turn graph, or a model through the provider.
- ``_state``: the workspace's JSON state file: the user's tools write it, the goal reads it.
- ``_targets``: the agent side: harness's runtime, or ``module:function`` of your own.
- ``_runner``: the turn loop and its trace (``user.turn``, ``agent.turn``, ``user.tool``).
- ``_transcript``: what a conversation produced.
"""

from harness.conversations._match import next_node, said_matches
from harness.conversations._runner import run_conversation, set_message
from harness.conversations._spec import (
    AgentSaid,
    Branch,
    GraphNode,
    StopSpec,
    TurnGraph,
    UserSpec,
    UserStep,
    UserToolCall,
    UserToolSpec,
)
from harness.conversations._state import read_state, run_user_tool, set_path, state_failures
from harness.conversations._targets import (
    ConversationTarget,
    FunctionTarget,
    RuntimeAgent,
    RuntimeApplication,
    load_conversation_target,
)
from harness.conversations._transcript import ChatMessage, ConversationResult, UserTurn
from harness.conversations._user import (
    GraphUser,
    ModelUser,
    ScriptedUser,
    UserSpeaker,
    speaker_for,
    user_instructions,
)

__all__ = [
    "AgentSaid",
    "Branch",
    "ChatMessage",
    "ConversationResult",
    "ConversationTarget",
    "FunctionTarget",
    "GraphNode",
    "GraphUser",
    "ModelUser",
    "RuntimeAgent",
    "RuntimeApplication",
    "ScriptedUser",
    "StopSpec",
    "TurnGraph",
    "UserSpeaker",
    "UserSpec",
    "UserStep",
    "UserToolCall",
    "UserToolSpec",
    "UserTurn",
    "load_conversation_target",
    "next_node",
    "read_state",
    "run_conversation",
    "run_user_tool",
    "said_matches",
    "set_message",
    "set_path",
    "speaker_for",
    "state_failures",
    "user_instructions",
]
