"""Terminals in the GUI: the QTermWidget-backed terminal port, the view cells show, and their appearance."""
