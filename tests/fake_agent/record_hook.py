#!/usr/bin/env python3
"""A stand-in for IdeA's hook relay: appends `{"event", "payload"}` to `$HOOK_LOG`, prints nothing."""

from __future__ import annotations

import json
import os
import sys

event = sys.argv[sys.argv.index("--event") + 1]
payload = json.loads(sys.stdin.read() or "{}")
with open(os.environ["HOOK_LOG"], "a", encoding="utf-8") as handle:
    handle.write(json.dumps({"event": event, "payload": payload}) + "\n")
