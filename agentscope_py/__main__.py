"""``python -m agentscope_py``: the same commands as ``agentscope-py``."""

from ._cli import main

raise SystemExit(main())
