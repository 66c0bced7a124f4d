"""Benchmarks of agentscope_py against its peers; run with ``python -m bench``."""
