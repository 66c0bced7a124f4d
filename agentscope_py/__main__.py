"""``python -m agentscope_py``: the same commands as ``agentscope-py``."""

from ._cli import main

if __name__ == "__main__":
    raise SystemExit(main())
