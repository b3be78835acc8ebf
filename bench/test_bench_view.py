"""pytest-benchmark: State.view() against State.raw() (moved from tests/test_view.py: a timing comparison is a
benchmark, not a test). Run: python -m pytest bench --benchmark-only -k view; compare the two means."""
import random

import pytest

from barcelona_ai import new_game


def _state_with_frames():
    """A 4-player state in the middle of a turn (the view has frames): the dearer case for both."""
    s = new_game(4, seed=8)
    rng = random.Random(8)
    while not s.view().frames:
        assert not s.is_terminal()
        s.apply(rng.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("kind", ["raw", "view"])
def test_raw_or_view(benchmark, kind):
    s = _state_with_frames()
    out = benchmark(getattr(s, kind))
    assert out and (kind == "raw" or out.frames)
    benchmark.group = "state: raw() or view()"
