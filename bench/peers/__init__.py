"""Hand-written peers of the agentscope_py message model, for the benchmarks only.

Each peer module imports its own library at the top, so importing a peer whose
library is not installed raises ``ImportError``; the harness reports it as missing.
"""
