"""How an edition's citizen tracks pace a game: what the table looks like when the first Cerdà Scoring fires
(R107), and whether the game ends by the third scoring (R122) or because no citizen is left to play.

The rulebook's worked example of the first Cerdà Scoring (R112) has the Upper row reach its first mark with one
player holding 3 Corner Buildings. bench/citizen_tracks.py measures this over many seeded games
(docs/measurements/citizen-tracks.md); tests/test_citizen_tracks.py checks it on a few.
"""
from __future__ import annotations

from ..core import new_game
from .arena import chance_rng, game_bots
from .playout import play_out


def game_pace(edition, players: int, bot: str, seed: int) -> dict:
    """One seeded self-play game (`bot` in every seat, setup seed `seed`): the round, the most buildings of one
    player and the rows (class indices) at their first mark when the first Cerdà Scoring fires (None if none
    fired), the scorings done, whether it ended by the third, the rounds played and the citizens left in the bag."""
    s = new_game(players, seed=seed, edition=edition)
    marks = [row[0] for row in s.game_data.edition.t["track_mark"]]
    first: dict = {}

    def note_first(v) -> None:
        first.update(round=v.round_number, buildings=max(p.markers_placed for p in v.players),
                     rows=tuple(k for k in range(3) if marks[k] in v.tracks[k]))

    def watch(state, _action) -> None:
        if not first:
            v = state.view()
            if v.cerda_scorings_done:
                note_first(v)
    play_out(s, game_bots([bot] * players, seed), chance_rng(seed, seed), on_step=watch)
    v = s.view()
    if not first and v.cerda_scorings_done:          # scored by the very last turn
        note_first(v)
    return {"seed": seed, "first_round": first.get("round"), "buildings_at_first": first.get("buildings"),
            "first_rows": first.get("rows"), "scorings": v.cerda_scorings_done,
            "by_scoring": v.cerda_scorings_done == 3, "rounds": max(p.turns for p in v.players),
            "bag_left": sum(v.bag)}


__all__ = ["game_pace"]
