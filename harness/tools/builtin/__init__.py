"""Builtin tools: read, write, edit, bash, explore."""
