"""IdeA's MCP door: the per-project endpoint and server, the tool catalogue, and the stdio bridge.

Kept free of imports: the bridge subcommand loads this package and must start in milliseconds.
"""
