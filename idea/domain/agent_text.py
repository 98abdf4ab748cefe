"""The one rule for a text an agent writes: a task, a reply, a persona, a work-state line, an agent's name.

Such texts end up typed into terminals (a task is typed into its target's), stored in files
(`live-state.json`, personas, the conversation log) and shown to the person. Control characters are
noise there at best, keystrokes at worst: a carriage return submits a half-typed line, an escape starts a
terminal sequence, NUL truncates what C code reads. So every door applies this rule where it parses what
an agent sent, before anything is stored, typed or shown:

- line breaks and tabs are kept; CR LF and a lone CR become LF;
- every other C0 control character, DEL and the C1 controls (U+0080-U+009F) are removed;
- half of a surrogate pair (JSON can carry `"\\ud800"`; no UTF-8 file can hold it) becomes U+FFFD.

Removing rather than refusing lets a model's otherwise good call through; what was removed never
carried meaning a person could see.
"""

from __future__ import annotations

KEPT_CONTROLS = "\n\t"
REPLACEMENT_CHARACTER = "\ufffd"

_REMOVED = [code for code in range(0x20) if chr(code) not in KEPT_CONTROLS] + list(range(0x7F, 0xA0))
_TRANSLATION: dict[int, int | None] = dict.fromkeys(_REMOVED)
_TRANSLATION.update(dict.fromkeys(range(0xD800, 0xE000), ord(REPLACEMENT_CHARACTER)))


def clean_agent_text(text: str) -> str:
    """`text` under the rule above. Idempotent; a text that follows the rule comes back unchanged."""
    return text.replace("\r\n", "\n").replace("\r", "\n").translate(_TRANSLATION)


def follows_the_rule(text: str) -> bool:
    """True when `text` holds nothing the rule would change."""
    return clean_agent_text(text) == text
