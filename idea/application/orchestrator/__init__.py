"""The orchestration core of a project: how agents delegate to one another through IdeA (spec 03).

`gateway.OrchestrationGateway` is the one entrance every door uses; `service.OrchestratorService` composes
the units behind it (see its docstring for the map, and `handlers/` for where command families plug in).
"""
