"""Protocol types and errors. Imports nothing else of harness and does no I/O."""

from harness.core.errors import (
    ApprovalError,
    CassetteError,
    ConfigurationError,
    HarnessError,
    ProviderError,
    ToolError,
    TraceAssertionError,
)
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
