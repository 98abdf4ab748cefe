"""A small `ctypes` layer over Linux Landlock (create_ruleset / add_rule / restrict_self), with ABI checks.

Only what `sandbox-exec` needs: the ABI query, a path-beneath ruleset for the filesystem rights of IdeA's two
access classes, and self-restriction. Rights the running ABI lacks are masked out and named, so the caller
can report Degraded. Directories get directory rights; a file gets only the rights a file can carry (the
kernel refuses directory rights on a file with EINVAL).

Imports only the standard library and starts in a few milliseconds.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import sys
from collections.abc import Iterable

# Syscall numbers are the same on every architecture that has Landlock (asm-generic 444-446).
SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38
SUPPORTED_MACHINES = ("x86_64", "amd64", "aarch64", "arm64", "riscv64", "loongarch64", "s390x", "ppc64le")

# Filesystem access rights (include/uapi/linux/landlock.h) and the ABI that introduced them.
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3

RIGHT_NAMES = {
    EXECUTE: "execute", WRITE_FILE: "write files", READ_FILE: "read files", READ_DIR: "read folders",
    REMOVE_DIR: "remove folders", REMOVE_FILE: "remove files", MAKE_CHAR: "make character devices",
    MAKE_DIR: "make folders", MAKE_REG: "make files", MAKE_SOCK: "make sockets", MAKE_FIFO: "make FIFOs",
    MAKE_BLOCK: "make block devices", MAKE_SYM: "make symbolic links", REFER: "move or link files between folders",
    TRUNCATE: "truncate files",
}
RW_CLASS = (
    WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO | MAKE_BLOCK
    | MAKE_SYM | REFER | TRUNCATE
)
RO_CLASS = READ_FILE | READ_DIR | EXECUTE
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE  # the only rights a rule on a file may carry
_ABI_RIGHTS = {1: (1 << 13) - 1, 2: (1 << 14) - 1}  # ABI >= 3: every right above


def rights_for_abi(abi: int) -> int:
    return _ABI_RIGHTS.get(abi, (1 << 15) - 1) if abi >= 1 else 0


def describe_rights(mask: int) -> str:
    return ", ".join(name for bit, name in RIGHT_NAMES.items() if mask & bit)


class LandlockError(OSError):
    """The ruleset could not be built or applied."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc: ctypes.CDLL | None = None


def _c() -> ctypes.CDLL:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.syscall.restype = ctypes.c_long
        _libc.prctl.restype = ctypes.c_int
    return _libc


def _syscall(number: int, *args: ctypes.c_long | ctypes.c_void_p) -> int:
    result = _c().syscall(ctypes.c_long(number), *args)
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return int(result)


def abi_version(max_abi: int | None = None) -> tuple[int, str]:
    """(ABI, reason): the kernel's Landlock ABI, 0 with the reason when Landlock cannot be used.

    `max_abi` caps the answer (IDEA_LANDLOCK_MAX_ABI, to check how IdeA behaves on an older kernel).
    """
    if not sys.platform.startswith("linux"):
        return 0, f"Landlock is a Linux feature; this system is {sys.platform}"
    machine = os.uname().machine
    if machine.lower() not in SUPPORTED_MACHINES:
        return 0, f"Landlock system calls are not known for the {machine} architecture"
    try:
        abi = _syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.c_void_p(None), ctypes.c_long(0),
                       ctypes.c_long(CREATE_RULESET_VERSION))
    except OSError as exc:
        if exc.errno == errno.ENOSYS:
            return 0, "this kernel was built without Landlock"
        if exc.errno == errno.EOPNOTSUPP:
            return 0, "Landlock is disabled on this kernel (add it to the lsm= boot parameter)"
        return 0, f"Landlock is unavailable: {exc.strerror}"
    if max_abi is not None and max_abi < abi:
        if max_abi < 1:
            return 0, "Landlock use is disabled by IDEA_LANDLOCK_MAX_ABI=0"
        return max_abi, ""
    return abi, ""


class Grant:
    """A path and the rights wanted on it (masked with the handled rights when applied)."""

    __slots__ = ("path", "rights")

    def __init__(self, path: str, rights: int) -> None:
        self.path = path
        self.rights = rights


class Applied:
    """What was enforced: the handled rights, the wanted ones this ABI lacks, the grants that do not exist."""

    __slots__ = ("handled", "missing", "skipped")

    def __init__(self, handled: int, missing: int, skipped: tuple[str, ...]) -> None:
        self.handled = handled
        self.missing = missing
        self.skipped = skipped


def restrict_self(abi: int, wanted_handled: int, grants: Iterable[Grant]) -> Applied:
    """Build the ruleset, set no_new_privs and restrict this process (inherited by what it execs).

    Raises LandlockError on any failure: the caller must then not run the command (fail-closed).
    """
    supported = rights_for_abi(abi)
    handled = wanted_handled & supported
    missing = wanted_handled & ~supported
    attr = _RulesetAttr(handled, 0, 0)
    size = 8 if abi < 4 else (16 if abi < 6 else 24)
    try:
        ruleset = _syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.c_void_p(ctypes.addressof(attr)),
                           ctypes.c_long(size), ctypes.c_long(0))
    except OSError as exc:
        raise LandlockError(exc.errno, f"creating the Landlock ruleset failed: {exc.strerror}") from None
    skipped: list[str] = []
    try:
        for grant in grants:
            if not _add_path(ruleset, grant, handled):
                skipped.append(grant.path)
        if _c().prctl(PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0),
                      ctypes.c_ulong(0)) != 0:
            code = ctypes.get_errno()
            raise LandlockError(code, f"setting no_new_privs failed: {os.strerror(code)}")
        try:
            _syscall(SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_long(ruleset), ctypes.c_long(0))
        except OSError as exc:
            raise LandlockError(exc.errno, f"applying the Landlock ruleset failed: {exc.strerror}") from None
    finally:
        os.close(ruleset)
    return Applied(handled, missing, tuple(skipped))


def _add_path(ruleset: int, grant: Grant, handled: int) -> bool:
    """Add one path-beneath rule; False when the path does not exist (nothing to grant)."""
    try:
        fd = os.open(grant.path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise LandlockError(exc.errno, f"cannot open {grant.path} for the sandbox: {exc.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        allowed = grant.rights & handled
        if not stat.S_ISDIR(mode):
            allowed &= FILE_RIGHTS
        if not allowed:
            return True
        attr = _PathBeneathAttr(allowed, fd)
        try:
            _syscall(SYS_LANDLOCK_ADD_RULE, ctypes.c_long(ruleset), ctypes.c_long(RULE_PATH_BENEATH),
                     ctypes.c_void_p(ctypes.addressof(attr)), ctypes.c_long(0))
        except OSError as exc:
            raise LandlockError(exc.errno, f"granting {grant.path} failed: {exc.strerror}") from None
    finally:
        os.close(fd)
    return True
