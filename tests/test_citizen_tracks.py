"""The next default's citizen tracks (bench/next-default.json, docs/rules-inventory.md §4.5) give the situation of
the rulebook's worked example of the first Cerdà Scoring (R112) in ordinary play, and games end by the third
scoring, not by the supply (R33, R122). Measured at scale in docs/measurements/citizen-tracks.md."""
from __future__ import annotations

from pathlib import Path

import pytest

from barcelona_ai import new_game
from barcelona_ai.rules.tables import load_edition
from barcelona_ai.workflows.arena import chance_rng, game_bots
from barcelona_ai.workflows.playout import play_out

NEXT_DEFAULT = Path(__file__).parent.parent / "bench" / "next-default.json"


def first_scoring(edition, players: int, seed: int, bot: str) -> dict:
    """A seeded self-play game: the round, the most buildings of a player and the rows at their first mark when
    the first Cerdà Scoring fires (R107), and whether the game ended by the third scoring (R122)."""
    s = new_game(players, seed=seed, edition=edition)
    marks = [row[0] for row in s.game_data.edition.t["track_mark"]]
    seen: dict = {}

    def watch(state, _action) -> None:
        v = state.view()
        if not seen and v.cerda_scorings_done:
            seen.update(round=v.round_number, buildings=max(p.markers_placed for p in v.players),
                        rows={k for k in range(3) if marks[k] in v.tracks[k]})
    play_out(s, game_bots([bot] * players, seed), chance_rng(seed, seed), on_step=watch)
    return {**seen, "by_scoring": s.view().cerda_scorings_done == 3}


@pytest.mark.slow
def test_R112_the_first_scoring_comes_late_with_a_player_holding_three_buildings():
    games = [first_scoring(load_edition(str(NEXT_DEFAULT)), 3, seed, "ismcts:200") for seed in range(24)]
    assert all(g["by_scoring"] for g in games)                            # never ended by the supply
    assert sum(g["round"] >= 3 for g in games) >= len(games) / 2
    assert sum(g["buildings"] >= 3 for g in games) >= len(games) / 4
    upper = 2
    assert any(g["rows"] == {upper} and g["round"] >= 3 and g["buildings"] >= 3 for g in games)   # R112 itself

