"""Adapters to outside channels, each an optional extra in its own sub-package.

``harness.integrations.feishu`` carries approvals to and from Feishu chats.
Nothing is imported here, so the extras' dependencies load only when used.
"""

__all__: list[str] = []
