"""Entry point: ``python -m acphost.agents.demo``."""

import sys

from ._agent import main

sys.exit(main())
