"""Converters between agentscope_py messages and the message formats agents meet.

One module per format, each with ``to_<format>(messages, ...)`` and
``from_<format>(payload)``.
"""
