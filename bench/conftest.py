"""Without pytest-benchmark (the bench extra) every benchmark here is skipped, not an error of a missing fixture."""
import importlib.util

import pytest

if importlib.util.find_spec("pytest_benchmark") is None:
    @pytest.fixture
    def benchmark():
        pytest.skip("pytest-benchmark is not installed: pip install -e '.[bench]'")
