"""The command handlers of the orchestration core, one module per family of commands (spec 03 §2):

- `agents.py` — list, launch, stop an agent, update its context;
- `asks.py` — ask an agent and wait for its reply, reply (late replies included), cancel a ticket;
- `work_state.py` — read the team's live work state, set one's own row;
- `person.py` — the person's gestures: type into an agent through its mailbox, interrupt it.

A new family (knowledge: memory, skills, context, handoffs; session limits; permissions) is a new module
here with a class that implements `dispatch.CommandFamily`: its constructor takes what its handlers need
(the `CoreContext`, its own stores), its `register` maps each command type to an `async (requester,
command, source) -> Outcome` method. It is registered where the core is composed (`service.py`, or the
`families` an `OrchestratorService` is given), and its tools are one `ToolSpec` each in
`idea/infrastructure/mcp/tools.py`, which both doors read.
"""
