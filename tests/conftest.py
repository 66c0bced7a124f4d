"""Test-suite settings: hypothesis profiles, and the ``backend`` fixture.

``default`` keeps the suite fast on a laptop; ``ci`` (chosen when the ``CI``
environment variable is set) runs more examples, derandomized so a run can be
repeated, and prints the blob that reproduces a failure.  Neither has a
deadline: timing must never decide whether a test passes.
``HYPOTHESIS_PROFILE`` picks a profile by name.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest
from backends import BACKENDS
from hypothesis import HealthCheck, settings

from agentscope_py import _json

# The too_slow health check times data generation, so it is off everywhere.
_TIMED_CHECKS = [HealthCheck.too_slow]
settings.register_profile("default", deadline=None, suppress_health_check=_TIMED_CHECKS, max_examples=50)
settings.register_profile(
    "ci", deadline=None, suppress_health_check=_TIMED_CHECKS, max_examples=200, derandomize=True, print_blob=True
)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run the test under each JSON backend: all must read and write alike."""
    with _json.use_backend(request.param):
        yield request.param


_RECURSION_LIMIT = sys.getrecursionlimit()


@pytest.fixture(autouse=True)
def _recursion_limit_kept() -> Iterator[None]:
    # A test (or a fixture it uses) that leaves Python's recursion limit raised hides depth faults
    # from every test after it.
    yield
    assert sys.getrecursionlimit() == _RECURSION_LIMIT, "sys.getrecursionlimit() was changed and not put back"
