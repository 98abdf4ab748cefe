"""Qt key events as the bytes a program reads, through libghostty's key encoder (which follows the modes the
program set: application cursor keys, modifyOtherKeys, the kitty keyboard protocol)."""

from __future__ import annotations

import evp
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent

K = Qt.Key
_KEYS: dict[int, evp.Key] = {
    K.Key_Return.value: evp.Key.ENTER,
    K.Key_Enter.value: evp.Key.NUMPAD_ENTER,
    K.Key_Tab.value: evp.Key.TAB,
    K.Key_Backtab.value: evp.Key.TAB,
    K.Key_Backspace.value: evp.Key.BACKSPACE,
    K.Key_Escape.value: evp.Key.ESCAPE,
    K.Key_Space.value: evp.Key.SPACE,
    K.Key_Insert.value: evp.Key.INSERT,
    K.Key_Delete.value: evp.Key.DELETE,
    K.Key_Home.value: evp.Key.HOME,
    K.Key_End.value: evp.Key.END,
    K.Key_PageUp.value: evp.Key.PAGE_UP,
    K.Key_PageDown.value: evp.Key.PAGE_DOWN,
    K.Key_Up.value: evp.Key.ARROW_UP,
    K.Key_Down.value: evp.Key.ARROW_DOWN,
    K.Key_Left.value: evp.Key.ARROW_LEFT,
    K.Key_Right.value: evp.Key.ARROW_RIGHT,
    K.Key_Minus.value: evp.Key.MINUS,
    K.Key_Equal.value: evp.Key.EQUAL,
    K.Key_Comma.value: evp.Key.COMMA,
    K.Key_Period.value: evp.Key.PERIOD,
    K.Key_Slash.value: evp.Key.SLASH,
    K.Key_Semicolon.value: evp.Key.SEMICOLON,
    K.Key_Apostrophe.value: evp.Key.QUOTE,
    K.Key_BracketLeft.value: evp.Key.BRACKET_LEFT,
    K.Key_BracketRight.value: evp.Key.BRACKET_RIGHT,
    K.Key_Backslash.value: evp.Key.BACKSLASH,
    K.Key_QuoteLeft.value: evp.Key.BACKQUOTE,
    **{(K.Key_A.value + offset): evp.Key(evp.Key.A + offset) for offset in range(26)},
    **{(K.Key_0.value + offset): evp.Key(evp.Key.DIGIT_0 + offset) for offset in range(10)},
    **{(K.Key_F1.value + offset): evp.Key(evp.Key.F1 + offset) for offset in range(12)},
}
_MODIFIER_KEYS = {K.Key_Shift.value, K.Key_Control.value, K.Key_Alt.value, K.Key_Meta.value, K.Key_AltGr.value}


def modifiers_of(qt_modifiers: Qt.KeyboardModifier) -> evp.Mods:
    mods = evp.Mods(0)
    if qt_modifiers & Qt.KeyboardModifier.ShiftModifier:
        mods |= evp.Mods.SHIFT
    if qt_modifiers & Qt.KeyboardModifier.ControlModifier:
        mods |= evp.Mods.CTRL
    if qt_modifiers & Qt.KeyboardModifier.AltModifier:
        mods |= evp.Mods.ALT
    if qt_modifiers & Qt.KeyboardModifier.MetaModifier:
        mods |= evp.Mods.SUPER
    return mods


def encode_key(encoder: evp.KeyEncoder, event: QKeyEvent) -> bytes:
    """The bytes for a key press (b"" for keys that send nothing, such as a modifier alone)."""
    key = event.key()
    if key in _MODIFIER_KEYS:
        return b""
    mods = modifiers_of(event.modifiers())
    if key == K.Key_Backtab.value:
        mods |= evp.Mods.SHIFT
    text = event.text()
    # Qt hands Ctrl+letter as a control character: the encoder wants the key's own text.
    printable = text if text and text.isprintable() else None
    physical = _KEYS.get(key, evp.Key.UNIDENTIFIED)
    consumed = evp.Mods.SHIFT if printable and mods & evp.Mods.SHIFT and physical != evp.Key.TAB else evp.Mods(0)
    unshifted = printable.lower() if printable and len(printable) == 1 else None
    encoded = encoder.encode(physical, mods=mods, consumed_mods=consumed, text=printable, unshifted_codepoint=unshifted)
    if not encoded and physical == evp.Key.UNIDENTIFIED and text:
        return text.encode("utf-8")  # a key the encoder does not know, typed through the layout
    return _legacy(encoded, physical, mods)


def _legacy(encoded: bytes, key: evp.Key, mods: evp.Mods) -> bytes:
    """Shift+Enter and Ctrl+Backspace as IdeA's other terminal sends them while no keyboard protocol is on
    (the encoder's modifyOtherKeys form `CSI 27;2;13~` reaches programs that never asked for it)."""
    if key in (evp.Key.ENTER, evp.Key.NUMPAD_ENTER) and encoded.startswith(b"\x1b[27;"):
        return b"\r"
    if key == evp.Key.BACKSPACE and mods == evp.Mods.CTRL and encoded.startswith(b"\x1b[27;"):
        return b"\b"
    return encoded
