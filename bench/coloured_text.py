"""The large coloured file the terminal benchmarks `cat`: source-like lines in 256 colours and truecolor,
with bold and wide characters, as an agent CLI's diff or log output looks."""

from __future__ import annotations


def coloured_text(size: int) -> bytes:
    """About `size` bytes of coloured terminal output (CRLF line ends, as a PTY delivers them)."""
    lines = []
    total = 0
    number = 0
    while total < size:
        red, green, blue = (number * 37) % 256, (number * 91) % 256, (number * 53) % 256
        line = (
            f"\x1b[38;5;{number % 256}m{number:08d}\x1b[0m "
            f"\x1b[38;2;{red};{green};{blue}mdef function_{number % 977}(argument):\x1b[0m "
            f"\x1b[1mreturn\x1b[22m \x1b[48;2;30;30;{number % 200}m'中文 value {number * 7 % 1000}'\x1b[49m"
            f" # {'-' * (number % 40)}\r\n"
        ).encode()
        lines.append(line)
        total += len(line)
        number += 1
    return b"".join(lines)
