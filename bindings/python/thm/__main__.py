"""``python -m thm ARGS`` runs the thm tool, as ``thm ARGS`` does."""

import sys

from thm._tool import main

sys.exit(main())
