"""The frozen executable's entry point: the same `main` as the `idea` console script."""

import sys

from idea.__main__ import main

sys.exit(main())
