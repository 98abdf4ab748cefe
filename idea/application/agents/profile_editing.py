"""Editing a profile as its profiles.json dictionary — through the form's fields or as JSON text — and
turning the edits into the profile to save.

The form edits the dictionary, not the model: a draft with an empty command is still something the person is
typing, and keys the form does not show (projector, hooks, unknown keys) pass through untouched; the usage-limit
pattern and liveness fields are translated by `profile_limit_fields`. Fields left at their default stay absent, so
a profile written by the original IdeA keeps its keys. Text that cannot be read raises ValueError with one
sentence for the person.
"""

from __future__ import annotations

import copy
import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from idea.application.agents.limit_patterns import LimitPatternCheck
from idea.application.agents.profile_limit_fields import LimitFields, limit_fields_of, liveness_json, rate_limit_json

from idea.domain.profile import (
    DEFAULT_COLD_START_MAX_MS,
    DEFAULT_CWD_TEMPLATE,
    DEFAULT_NEWLINE_SEQUENCE,
    DEFAULT_SUBMIT_DELAY_MS,
    DEFAULT_SUBMIT_SEQUENCE,
    Profile,
)

NEW_PROFILE_NAME = "New profile"
HIDDEN_KEYS = ("edited",)  # bookkeeping of reference profiles, not something to edit by hand
# Keys the form writes; everything else in the profile's JSON is carried over as it was.
FORM_KEYS = (
    "name", "command", "args", "contextInjection", "detect", "cwdTemplate", "session", "structuredAdapter",
    "mcp", "promptReadyPattern", "liveness", "rateLimitPattern", "submitSequence", "submitDelayMs", "env",
    "newlineSequence", "blockingPrompts", "coldStartMaxMs",
)
DEFAULTS: dict[str, Any] = {
    "args": [],
    "cwdTemplate": DEFAULT_CWD_TEMPLATE,
    "submitSequence": DEFAULT_SUBMIT_SEQUENCE,
    "submitDelayMs": DEFAULT_SUBMIT_DELAY_MS,
    "env": {},
    "newlineSequence": DEFAULT_NEWLINE_SEQUENCE,
    "blockingPrompts": [],
    "coldStartMaxMs": DEFAULT_COLD_START_MAX_MS,
}


@dataclass(frozen=True)
class ProfileFields:
    """A profile as the form's fields show it: text as typed, choices as their JSON values."""

    name: str = ""
    command: str = ""
    args: str = ""  # quoted like in a shell
    cwd_template: str = DEFAULT_CWD_TEMPLATE
    detect: str = ""
    env: str = ""  # KEY=VALUE lines
    injection: str | None = "conventionFile"
    injection_target: str = ""
    injection_flag: str = ""
    injection_var: str = ""
    assign_flag: str = ""
    resume_flag: str = ""
    resume_args: str = ""
    family: str | None = None
    mcp: str | None = None
    mcp_target: str = ""
    mcp_home_env: str = ""
    mcp_flag: str = ""
    mcp_var: str = ""
    prompt_ready: str = ""
    submit_sequence: str = ""  # control characters written with escapes
    submit_delay_ms: int = DEFAULT_SUBMIT_DELAY_MS
    newline_sequence: str = ""
    blocking_prompts: str = ""  # one per line
    cold_start_max_ms: int = DEFAULT_COLD_START_MAX_MS
    limits: LimitFields = LimitFields()  # usage-limit pattern and liveness


def fields_of(data: Mapping[str, Any]) -> ProfileFields:
    injection = data.get("contextInjection") or {"strategy": "conventionFile", "target": ""}
    session = data.get("session") or {}
    config = (data.get("mcp") or {}).get("config") or {}
    return ProfileFields(
        name=data.get("name", ""),
        command=data.get("command", ""),
        args=shlex.join(data.get("args", [])),
        cwd_template=data.get("cwdTemplate", DEFAULT_CWD_TEMPLATE),
        detect=data.get("detect") or "",
        env="\n".join(f"{key}={value}" for key, value in data.get("env", {}).items()),
        injection=injection.get("strategy"),
        injection_target=injection.get("target", ""),
        injection_flag=injection.get("flag", ""),
        injection_var=injection.get("var", ""),
        assign_flag=session.get("assignFlag") or "",
        resume_flag=session.get("resumeFlag") or "",
        resume_args=shlex.join(session.get("resumeArgs") or []),
        family=data.get("structuredAdapter"),
        mcp=config.get("strategy"),
        mcp_target=config.get("target", ""),
        mcp_home_env=config.get("home_env", ""),
        mcp_flag=config.get("flag", ""),
        mcp_var=config.get("var", ""),
        prompt_ready=data.get("promptReadyPattern") or "",
        submit_sequence=escape_sequence(data.get("submitSequence", DEFAULT_SUBMIT_SEQUENCE)),
        submit_delay_ms=data.get("submitDelayMs", DEFAULT_SUBMIT_DELAY_MS),
        newline_sequence=escape_sequence(data.get("newlineSequence", DEFAULT_NEWLINE_SEQUENCE)),
        blocking_prompts="\n".join(data.get("blockingPrompts", [])),
        cold_start_max_ms=data.get("coldStartMaxMs", DEFAULT_COLD_START_MAX_MS),
        limits=limit_fields_of(data),
    )


def json_of(base: Mapping[str, Any], fields: ProfileFields) -> dict[str, Any]:
    """`base` (the dictionary the form was loaded with) as the fields now say it."""
    data = copy.deepcopy(dict(base))
    for key in FORM_KEYS:
        data.pop(key, None)
    values: dict[str, Any] = {
        "name": fields.name.strip(),
        "command": fields.command.strip(),
        "args": _split("Arguments", fields.args),
        "contextInjection": _injection(fields),
        "detect": fields.detect.strip() or None,
        "cwdTemplate": fields.cwd_template.strip() or DEFAULT_CWD_TEMPLATE,
        "session": _session(fields),
        "structuredAdapter": fields.family,
        "mcp": _mcp(fields, base),
        "promptReadyPattern": fields.prompt_ready or None,
        "liveness": liveness_json(fields.limits, base),
        "rateLimitPattern": rate_limit_json(fields.limits, base),
        "submitSequence": _unescaped("Submit sequence", fields.submit_sequence),
        "submitDelayMs": fields.submit_delay_ms,
        "env": _env_lines(fields.env),
        "newlineSequence": _unescaped("Newline sequence", fields.newline_sequence),
        "blockingPrompts": [line for line in fields.blocking_prompts.splitlines() if line.strip()],
        "coldStartMaxMs": fields.cold_start_max_ms,
    }
    ordered: dict[str, Any] = {"id": data.pop("id")} if "id" in data else {}
    for key in FORM_KEYS:
        value = values[key]
        if value is None:
            continue
        if key in DEFAULTS and value == DEFAULTS[key] and key not in base:
            continue  # a default the profile never spelled out stays implicit
        ordered[key] = value
    ordered.update(data)
    return ordered


def json_text(data: Mapping[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


def parse_json_text(text: str, profile_id: str | None) -> dict[str, Any]:
    """What the JSON tab holds, as the profile `profile_id`."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"JSON line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    if not isinstance(data, dict):
        raise ValueError("The profile must be a JSON object")
    if data.get("id") != profile_id:
        raise ValueError("The id of a profile cannot be changed; duplicate the profile instead")
    return data


def check_json(data: Mapping[str, Any]) -> None:
    """Raise ValueError unless `data` is a valid profile (for showing the JSON tab's edits in the form)."""
    try:
        Profile.from_json(dict(data))
    except ValidationError as exc:
        raise ValueError(validation_message(exc)) from None


def profile_to_save(
    data: Mapping[str, Any],
    stored: Profile | None,
    original: Mapping[str, Any] | None,
    limit_patterns: LimitPatternCheck,
) -> Profile:
    """The profile the edits make. A stored profile is changed key by key, so a reference profile records
    which keys the person changed; a new one is read whole. A limit pattern the limits service could not use
    is refused, as `ProfileCatalogue.save_profile` would."""
    try:
        if stored is None or original is None:
            profile = Profile.from_json(dict(data))
        else:
            changes: dict[str, Any] = {k: v for k, v in data.items() if original.get(k) != v}
            changes.update({k: None for k in original if k not in data})
            profile = stored.with_changes(changes)
    except ValidationError as exc:
        raise ValueError(validation_message(exc)) from None
    refusal = limit_patterns.refusal(profile)
    if refusal is not None:
        raise ValueError(refusal)
    return profile


def editable(data: Mapping[str, Any]) -> dict[str, Any]:
    """A stored profile's dictionary as the editor shows it."""
    return {key: value for key, value in data.items() if key not in HIDDEN_KEYS}


def new_custom_profile(profile_id: str) -> dict[str, Any]:
    """The draft of "Add custom": a program IdeA knows nothing of, told its context in AGENTS.md."""
    return {
        "id": profile_id,
        "name": NEW_PROFILE_NAME,
        "command": "",
        "contextInjection": {"strategy": "conventionFile", "target": "AGENTS.md"},
    }


def copy_of(profile: Profile, profile_id: str) -> dict[str, Any]:
    data = editable(profile.to_json())
    data["id"] = profile_id
    data["name"] = f"{profile.name} copy"
    return data


def validation_message(error: ValidationError) -> str:
    """One line per problem, naming the JSON key unless the message already does."""
    lines = []
    for problem in error.errors():
        loc = [str(part) for part in problem["loc"]]
        message = problem["msg"].removeprefix("Value error, ")
        named = not loc or message.startswith((loc[0], f"profile {loc[-1]}"))
        lines.append(message if named else f"{'.'.join(loc)}: {message}")
    return "\n".join(lines)


def _injection(fields: ProfileFields) -> dict[str, Any]:
    strategy = fields.injection
    injection: dict[str, Any] = {"strategy": strategy}
    if strategy == "flag":
        injection["flag"] = fields.injection_flag.strip()
    if strategy == "env":
        injection["var"] = fields.injection_var.strip()
    target = fields.injection_target.strip()
    if target or strategy == "conventionFile":
        injection["target"] = target
    return injection


def _session(fields: ProfileFields) -> dict[str, Any] | None:
    session: dict[str, Any] = {}
    if fields.assign_flag.strip():
        session["assignFlag"] = fields.assign_flag.strip()
    if fields.resume_flag.strip():
        session["resumeFlag"] = fields.resume_flag.strip()
    resume_args = _split("Resume arguments", fields.resume_args)
    if resume_args:
        session["resumeArgs"] = resume_args
    return session or None


def _mcp(fields: ProfileFields, base: Mapping[str, Any]) -> dict[str, Any] | None:
    strategy = fields.mcp
    if strategy is None:
        return None
    config: dict[str, Any] = {"strategy": strategy}
    if strategy in ("configFile", "tomlConfigHome"):
        config["target"] = fields.mcp_target.strip()
    if strategy == "tomlConfigHome":
        config["home_env"] = fields.mcp_home_env.strip()
    if strategy == "flag":
        config["flag"] = fields.mcp_flag.strip()
    if strategy == "env":
        config["var"] = fields.mcp_var.strip()
    mcp: dict[str, Any] = {"config": config}
    transport = (base.get("mcp") or {}).get("transport")
    if transport is not None:
        mcp["transport"] = transport
    return mcp


def _split(what: str, text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise ValueError(f"{what}: {exc} (quote arguments like in a shell)") from None


def _unescaped(what: str, text: str) -> str:
    try:
        return unescape_sequence(text)
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None


def _env_lines(text: str) -> dict[str, str]:
    env: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        key, separator, value = line.partition("=")
        if not separator:
            raise ValueError(f"Environment line {number} needs the form KEY=VALUE")
        env[key.strip()] = value
    return env


_NAMED_ESCAPES = {"\r": "\\r", "\n": "\\n", "\t": "\\t", "\\": "\\\\"}
_UNESCAPES = {"r": "\r", "n": "\n", "t": "\t", "e": "\x1b", "a": "\x07", "b": "\x08", "0": "\x00", "\\": "\\"}


def escape_sequence(text: str) -> str:
    """Control characters as the user types them: "\\x1b\\r" for ESC CR."""
    shown = []
    for ch in text:
        if ch in _NAMED_ESCAPES:
            shown.append(_NAMED_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            shown.append(f"\\x{ord(ch):02x}")
        else:
            shown.append(ch)
    return "".join(shown)


def unescape_sequence(text: str) -> str:
    """The inverse of escape_sequence; also accepts \\e for ESC and \\uHHHH. ValueError on a bad escape."""
    result = []
    index = 0
    while index < len(text):
        ch = text[index]
        if ch != "\\":
            result.append(ch)
            index += 1
            continue
        if index + 1 >= len(text):
            raise ValueError("a backslash must be followed by an escape such as \\r, \\n, \\e or \\x1b")
        code = text[index + 1]
        if code in _UNESCAPES:
            result.append(_UNESCAPES[code])
            index += 2
            continue
        width = {"x": 2, "u": 4}.get(code)
        digits = text[index + 2 : index + 2 + width] if width else ""
        if width is None or len(digits) != width or any(d not in "0123456789abcdefABCDEF" for d in digits):
            raise ValueError(f"unknown escape \\{code}: use \\r, \\n, \\t, \\e, \\xHH or \\uHHHH")
        result.append(chr(int(digits, 16)))
        index += 2 + width
    return "".join(result)
