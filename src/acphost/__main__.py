"""``python -m acphost``: the command line."""

from acphost.cli import main

raise SystemExit(main())
