"""Glob matching for permission rules, written by hand (the domain does not use `re`).

Two flavours:
- path globs (`src/**/*.rs`): `*`, `?` and `[...]` stay within one path segment, `**` as a whole segment
  matches any number of segments (none included); a pattern also covers everything beneath a path it
  matches, as a rule on a folder covers what the folder holds;
- command globs (`git *`): fnmatch semantics on the whole command line, `*` matching any text.
"""

from __future__ import annotations

GLOB_METACHARACTERS = ("*", "?", "[")


def has_metacharacters(pattern: str) -> bool:
    return any(ch in pattern for ch in GLOB_METACHARACTERS)


def match_text(pattern: str, text: str) -> bool:
    """fnmatch semantics (`*` any text, `?` one character, `[...]`/`[!...]` a class), case-sensitive."""
    return _match(pattern, 0, text, 0, cross_slash=True)


def match_path(pattern: str, path: str) -> bool:
    """Whether the project-relative `path` or one of its ancestors matches the path glob `pattern`."""
    pattern_parts = [part for part in pattern.strip("/").split("/") if part not in ("", ".")]
    path_parts = [part for part in path.strip("/").split("/") if part not in ("", ".")]
    if not pattern_parts:
        return True  # "" or "/" denotes the project root, which holds everything
    return any(_match_segments(pattern_parts, path_parts[:length]) for length in range(1, len(path_parts) + 1))


def _match_segments(pattern: list[str], parts: list[str]) -> bool:
    if not pattern:
        return not parts
    head = pattern[0]
    if head == "**":
        rest = pattern[1:]
        return any(_match_segments(rest, parts[skip:]) for skip in range(len(parts) + 1))
    if not parts:
        return False
    return _match(head, 0, parts[0], 0, cross_slash=False) and _match_segments(pattern[1:], parts[1:])


def _match(pattern: str, p: int, text: str, t: int, *, cross_slash: bool) -> bool:
    """Iterative wildcard matching with one backtracking point per `*` (linear in practice)."""
    star_p = -1
    star_t = 0
    while t < len(text):
        if p < len(pattern):
            ch = pattern[p]
            if ch == "*":
                while p < len(pattern) and pattern[p] == "*":
                    p += 1
                star_p, star_t = p, t
                continue
            if ch == "?" and (cross_slash or text[t] != "/"):
                p += 1
                t += 1
                continue
            if ch == "[":
                matched, end = _match_class(pattern, p, text[t])
                if end is not None and matched and (cross_slash or text[t] != "/"):
                    p = end
                    t += 1
                    continue
                if end is None and text[t] == "[":  # an unclosed "[" is a literal
                    p += 1
                    t += 1
                    continue
            elif ch != "?" and ch == text[t]:
                p += 1
                t += 1
                continue
        if star_p >= 0 and (cross_slash or text[star_t] != "/"):
            star_t += 1
            p, t = star_p, star_t
            continue
        return False
    while p < len(pattern) and pattern[p] == "*":
        p += 1
    return p == len(pattern)


def _match_class(pattern: str, start: int, ch: str) -> tuple[bool, int | None]:
    """Match `ch` against the class opening at `pattern[start] == "["`; returns (matched, index after `]`)
    or (False, None) when the class is not closed."""
    i = start + 1
    negate = i < len(pattern) and pattern[i] in "!^"
    if negate:
        i += 1
    matched = False
    first = True
    while i < len(pattern):
        c = pattern[i]
        if c == "]" and not first:
            return (matched != negate), i + 1
        first = False
        if i + 2 < len(pattern) and pattern[i + 1] == "-" and pattern[i + 2] != "]":
            if c <= ch <= pattern[i + 2]:
                matched = True
            i += 3
            continue
        if c == ch:
            matched = True
        i += 1
    return False, None
