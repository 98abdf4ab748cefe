"""The name under which an agent's launch secret travels, shared by what writes it (the run-dir files, the
spawn environment) and what reads it (the bridge, the hook relay). A module without imports: the bridge and
the relay are started by the agent CLIs for every tool call and hook, so they import as little as possible."""

TOKEN_ENV_VAR = "IDEA_MCP_TOKEN"
