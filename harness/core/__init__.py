"""Protocol types and errors. Imports nothing else of harness and does no I/O.

The message types load on first use (they pull in pydantic), so importing only
the errors, as the command line does, stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.errors import (
    ApprovalError,
    CassetteError,
    ConfigurationError,
    HarnessError,
    ProviderError,
    ToolError,
    TraceAssertionError,
)
from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.core.messages import (
        RAW_ARGUMENTS_KEY,
        LLMRequest,
        LLMResponse,
        Message,
        Role,
        ToolCall,
        ToolChoice,
        ToolDefinition,
        Usage,
        new_tool_call_id,
    )

__all__ = [
    "RAW_ARGUMENTS_KEY",
    "ApprovalError",
    "CassetteError",
    "ConfigurationError",
    "HarnessError",
    "LLMRequest",
    "LLMResponse",
    "Message",
    "ProviderError",
    "Role",
    "ToolCall",
    "ToolChoice",
    "ToolDefinition",
    "ToolError",
    "TraceAssertionError",
    "Usage",
    "new_tool_call_id",
]

_MESSAGES = {
    "RAW_ARGUMENTS_KEY",
    "LLMRequest",
    "LLMResponse",
    "Message",
    "Role",
    "ToolCall",
    "ToolChoice",
    "ToolDefinition",
    "Usage",
    "new_tool_call_id",
}

__getattr__ = lazy_getattr(__name__, dict.fromkeys(_MESSAGES, "messages"))
