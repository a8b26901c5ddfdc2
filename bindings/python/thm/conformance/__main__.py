"""``python -m thm.conformance ARGS`` is ``thm conformance ARGS``: the same options, reports
and exit codes (``thm conformance --help``)."""

import sys

from thm._tool import main

sys.exit(main(["conformance", *sys.argv[1:]]))
