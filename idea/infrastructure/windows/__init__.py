"""Windows adapters behind IdeA's ports, chosen by `idea.infrastructure.platform` at the composition root.

Each module runs for real only on Windows; its logic takes the operating system's calls as parameters
(or a small ctypes layer that tests replace), so it is tested on Linux too (tests/MATRIX.md).
"""
