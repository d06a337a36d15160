"""``python -m cli``: the ``drop7`` console script."""

import sys

from cli.main import main

sys.exit(main())
