"""The request-folder door for agent CLIs without MCP (spec 03 §6)."""
