"""Use cases and the ports (typing.Protocol) they need; runs on the core asyncio loop."""
