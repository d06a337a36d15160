"""``python -m engines.drop7``: the ``drop7`` console script."""

import sys

from engines.drop7.cli import main

sys.exit(main())
