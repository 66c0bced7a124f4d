"""The JSON backends every codec test runs under; the dev extra installs all three."""

from __future__ import annotations

#: The standard library alone; orjson; orjson with msgspec's typed reading (the default then).
BACKENDS = ["json", "orjson", "msgspec"]
