"""Renders IdeA's scalable icon into the hicolor PNG sizes shipped as package data.

    .venv/bin/python packaging/icons/render_icons.py

Run it after changing `idea/resources/icons/idea.svg`; `tests/packaging/test_resources.py` fails while a PNG
differs from what this script draws.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from idea.infrastructure.resources import ICON_SIZES, SCALABLE_ICON, hicolor_icon, resources_dir  # noqa: E402


def render(svg: Path, size: int) -> QImage:
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    return image


def main() -> int:
    _app = QGuiApplication.instance() or QGuiApplication([])
    root = resources_dir()
    for size in ICON_SIZES:
        target = root / hicolor_icon(size)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not render(root / SCALABLE_ICON, size).save(str(target), "PNG"):
            raise SystemExit(f"could not write {target}")
        print(target.relative_to(REPO))
    return 0


if __name__ == "__main__":
    sys.exit(main())
