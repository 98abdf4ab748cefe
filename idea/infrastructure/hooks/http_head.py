"""The head of one HTTP/1.1 request to the hook door, read from its bytes (RFC 9112), and the answers the door
gives. Only what a CLI's HTTP hook sends is accepted: `POST` with a `Content-Length` body; anything else is
answered with the status that says why, so a person trying the door with `curl` learns what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from http import HTTPStatus

HEAD_LIMIT = 16 * 1024  # request line and headers
BODY_LIMIT = 16 * 1024 * 1024  # as much as the command relay reads from a CLI's stdin
MAX_HEADERS = 100


class BadRequest(Exception):
    """The request cannot be served: answered with `status` and the connection closed."""

    def __init__(self, status: HTTPStatus, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True)
class RequestHead:
    method: str
    target: str
    version: str
    headers: dict[str, str]  # lower-case names; a repeated header keeps its last value
    content_length: int

    @property
    def keep_alive(self) -> bool:
        connection = self.headers.get("connection", "").lower()
        if self.version == "HTTP/1.0":
            return "keep-alive" in connection
        return "close" not in connection


def parse_head(head: bytes) -> RequestHead:
    """The head, `\\r\\n\\r\\n` included, as the reader took it off the connection."""
    try:
        text = head.decode("latin-1")
    except UnicodeDecodeError as exc:  # pragma: no cover - latin-1 decodes every byte
        raise BadRequest(HTTPStatus.BAD_REQUEST, "unreadable request head") from exc
    lines = text.split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[0] or not parts[1].startswith("/"):
        raise BadRequest(HTTPStatus.BAD_REQUEST, "malformed request line")
    method, target, version = parts
    if version not in ("HTTP/1.1", "HTTP/1.0"):
        raise BadRequest(HTTPStatus.HTTP_VERSION_NOT_SUPPORTED, f"{version[:20]} is not served")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip() or len(headers) >= MAX_HEADERS:
            raise BadRequest(HTTPStatus.BAD_REQUEST, "malformed header")
        headers[name.lower()] = value.strip()
    if "transfer-encoding" in headers:
        raise BadRequest(HTTPStatus.LENGTH_REQUIRED, "send the event with a Content-Length")
    length_text = headers.get("content-length", "0")
    if not length_text.isdigit() or len(length_text) > 12:
        raise BadRequest(HTTPStatus.BAD_REQUEST, "malformed Content-Length")
    length = int(length_text)
    if length > BODY_LIMIT:
        raise BadRequest(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"an event of at most {BODY_LIMIT} bytes")
    return RequestHead(method, target, version, headers, length)


def response(status: HTTPStatus, *, close: bool, reason: str = "", extra: tuple[str, ...] = ()) -> bytes:
    """An answer: empty for a taken event (Claude reads an empty body as `{}`: no decision, no context),
    a line of text saying why otherwise."""
    body = (reason + "\n").encode("utf-8") if reason else b""
    lines = [f"HTTP/1.1 {status.value} {status.phrase}", f"Content-Length: {len(body)}", *extra]
    if body:
        lines.append("Content-Type: text/plain; charset=utf-8")
    if close:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
