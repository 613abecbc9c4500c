"""``python -m raidsim``: the command line, as the ``raidsim`` command."""

from .cli import main

raise SystemExit(main())
