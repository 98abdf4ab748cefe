"""The name a person reads in a path: a folder's or a program's, for titles and labels, from a path written
the way either operating system writes it (`/home/me/shop`, `C:\\Users\\me\\shop`). Nothing is read from
disk."""

from __future__ import annotations

PROGRAM_SUFFIXES = (".exe", ".cmd", ".bat")  # what Windows adds to a program's name


def last_part(path: str) -> str:
    """`/home/me/shop/` and `C:\\Users\\me\\shop` give `shop`; a path with no name in it (`/`, `C:\\`)
    gives itself, trailing separators aside."""
    trimmed = path.rstrip("/\\")
    cut = max(trimmed.rfind("/"), trimmed.rfind("\\"))
    return trimmed[cut + 1 :] or path


def program_name(path: str) -> str:
    """`/bin/bash` gives `bash`, `C:\\Windows\\System32\\cmd.exe` gives `cmd`."""
    name = last_part(path)
    for suffix in PROGRAM_SUFFIXES:
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name
