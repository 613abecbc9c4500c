"""``python -m raidsim.cli``: the ``raidsim`` command."""

import sys

from . import main

sys.exit(main())
