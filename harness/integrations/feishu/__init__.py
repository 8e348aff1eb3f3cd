"""harness.integrations.feishu."""
