"""Entry point: ``python -m acphost.agents.replay TRACE [-v] [--report FILE]``."""

import sys

from acphost.agents.replay import main

sys.exit(main())
