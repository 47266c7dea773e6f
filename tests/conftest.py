"""Suite-wide isolation: every test gets its own empty tuning cache (``HYBRIDIZE_CACHE_DIR``).

Without it the tests would write convolution verdicts into the user's real ``~/.cache/hybridize``
and read back verdicts of earlier tests or earlier runs, so whether a test times anything would
depend on history. Subprocesses the tests start inherit the variable."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_tuning_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(tmp_path_factory.mktemp("hy-cache")))
