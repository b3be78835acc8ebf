"""The next default's citizen tracks (bench/next-default.json, docs/rules-inventory.md §4.5) give the situation of
the rulebook's worked example of the first Cerdà Scoring (R112) in ordinary play, and games end by the third
scoring, not by the supply (R33, R122). Measured at scale in docs/measurements/citizen-tracks.md."""
from __future__ import annotations

from pathlib import Path

import pytest

from barcelona_ai.rules.tables import load_edition
from barcelona_ai.workflows.pacing import game_pace

NEXT_DEFAULT = Path(__file__).parent.parent / "bench" / "next-default.json"


@pytest.mark.slow
def test_R112_the_first_scoring_comes_late_with_a_player_holding_three_buildings():
    games = [game_pace(load_edition(str(NEXT_DEFAULT)), 3, "ismcts:200", seed) for seed in range(24)]
    assert all(g["by_scoring"] for g in games)                            # never ended by the supply
    assert sum(g["first_round"] >= 3 for g in games) >= len(games) / 2
    assert sum(g["buildings_at_first"] >= 3 for g in games) >= len(games) / 4
    upper = 2
    assert any(g["first_rows"] == (upper,) and g["first_round"] >= 3 and g["buildings_at_first"] >= 3
               for g in games)                                            # R112 itself

