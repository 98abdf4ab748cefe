# Run-time hook of IdeA's frozen build, in place of PyInstaller's PySide6 hook: that one imports
# PySide6.QtCore at every start, which would load Qt into the `hook` and `mcp-server` subcommands that agent
# CLIs start on every turn. Qt's own wheel layout is kept in the bundle (PySide6/Qt/...), so PySide6 finds
# its libraries when the GUI imports it; only the plugin path is set here, without importing anything.
import os
import sys

os.environ["QT_PLUGIN_PATH"] = os.path.join(sys._MEIPASS, "PySide6", "Qt", "plugins")
