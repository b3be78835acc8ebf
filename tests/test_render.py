"""Plain-text rendering (barcelona_ai.rules.render): the key facts of a position appear, for 2-4 players and at the end.

Positions are built as position documents (tests/helpers.py); rule numbers refer to docs/rules-inventory.md.
"""
from __future__ import annotations

import random

import pytest

from barcelona_ai import PlayerCountError, new_game
from barcelona_ai.rules.render import render_player, render_state

from helpers import (C, T, W, M, U, building, citizens, cobblestones, edit, face_down, game, hand, intersection, own,
                     passenger, place_id, projects, scored, track)


def _grid_line(text: str, row: int) -> str:
    return next(line for line in text.splitlines() if line.startswith(f"r{row} ") and len(line) > 60)


def _lines_between(text: str, row: int) -> list[str]:
    """The two lines drawn between crossing rows `row` and `row + 1`."""
    lines = text.splitlines()
    i = lines.index(_grid_line(text, row))
    return lines[i + 1: i + 3]


def _position():
    """A hand-made 4-player position with one of everything the grid shows."""
    def fn(d):
        own(d, 2, "V(1,1)")                                 # narrow tile of player 2 (R50)
        own(d, 1, "H(1,2)")                                 # wide tile of player 1
        passenger(d, 3, "H(1,2)")                           # R83
        d["players"][0]["tram"] = "H(1,2)"                  # R81
        d["players"][0]["hand"] = hand(1, 1, 0)
        citizens(d, 2, 3, M, W)                             # R37: M bottom, W top
        citizens(d, 4, 0, U)                                # a lone citizen (A2)
        intersection(d, 2, 3, 1)                            # Intersection of player 1 (R57)
        building(d, "B(1,0)", 2, [0, 3])                    # L2 with markers 0 then 3 (R101, R102)
        building(d, "NE(0)", "CORNER", [2])                 # corner of player 2 (R96)
        d["players"][2].update(score=37, vp_by_source={"buildings": 37}, cerda=9)
        mod = d["modernisme"]                               # SC05 on project 3, marker up (R66, R71); if it
        mod["display"] = [face_down(d)[0] if x == "SC05" else x for x in mod["display"]]   # was shown, a face-
        projects(d, 1, [None, None, "SC05"], [0, 0, 1])     # down tile takes its place
        d["players"][3].update(coins=3, cloth=2)
        cobblestones(d, 3, 1, ["r0c0"])                     # a cobblestone on r0c0 (R46): room for 5 tokens
        track(d, U, range(T["track_mark"][U][0] + 1))      # the Upper row reached its first mark:
        scored(d, 0)                                        # section 1 scored (R109)
    return edit(game(4, 1), fn)


def test_grid_shows_streets_citizens_intersections_and_buildings():
    text = render_state(_position())
    # horizontal row 2: wide space H(1,2) with tile of player 1, Passenger of 3 and Tram of 0
    assert "1Wp3T0" in _grid_line(text, 2)
    # vertical V(1,1) lies between crossing rows 1 and 2
    assert "2N" in _lines_between(text, 1)[0]
    # crossing (2,3): W on top of M, Intersection of player 1
    assert "W/M*1" in _grid_line(text, 3)
    assert " U " in _grid_line(text, 0)
    # block B(1,0): Level 2, markers bottom..top 0,3; NE(0) a corner of player 2
    between = _lines_between(text, 0)
    assert "L2" in between[0] and "[03]" in between[1]
    assert "C2" in between[0]
    # printed crossing costs (R38): (0,0) costs 1
    assert "$1" in _grid_line(text, 0)


def test_action_tiles_on_every_street():
    """R11 printed setup (§4.4): vertical 0 = Gain 2 Coins ... diagonal = Move your Tram."""
    text = render_state(game(4, 1))
    assert _grid_line(text, 0).endswith("TAK")              # horizontal 0: Take Modernisme
    assert _grid_line(text, 2).endswith("CER")              # horizontal 2: Cerda +2
    bottom = next(line for line in text.splitlines() if line.strip().startswith("COI"))
    assert bottom.split() == ["COI", "NAR", "PS", "WID", "CLO", "\\TRM"]
    assert "TRM Move Your Tram" in " ".join(text.split())


def test_shared_boards():
    s = _position()
    text = render_state(s)
    words = " ".join(text.split())
    assert "section 1 (scored):" in text and "(still to score):" in text
    assert "Cerdà track" in text and "who" in text
    who = next(line for line in text.splitlines() if line.strip().startswith("who"))
    assert who.split()[1 + 9] == "2"                        # player 2 on Cerda space 9
    assert "Modernisme tiles on display" in text and "face down" in text
    assert "Public Services:" in text
    assert "Sagrada Família tiles, level 1: 3 resources; 2 resources + 2 VP" in words
    side = next(line for line in text.splitlines() if line.startswith("r0  ") and "##" in line)
    assert side.split()[0] == "r0" and side.split()[1] == "##"    # r0c0 now holds a cobblestone
    assert "Citizen tracks" in text and text.count("\nW |") == 1


def test_citizen_track_rows_show_fills_and_marks():
    """2 players (R12): prefilled spaces show as filled; marks (R106) carry a star."""
    text = render_state(new_game(players=2, seed=3))
    w_row = next(line for line in text.splitlines() if line.startswith("W |"))
    assert w_row.split()[2:5] == ["#", "#", "2"]                # prefill_2p 0 and 1
    first_mark = T["track_mark"][W][0]
    assert f"*{T['track_vp'][W][first_mark]}" in w_row     # the empty first mark, with its VP


def test_player_blocks():
    s = _position()
    text = render_state(s)
    assert " score 37 VP" in render_player(s, 2)
    assert " score 37 VP" in text
    assert "3: Intersections by 3 Buildings (marker up)" in " ".join(render_player(s, 1).split())
    assert "coins 3, cloth 2" in render_player(s, 3)
    assert "hand: W M" in render_player(s, 0)
    assert "tram H(1,2)" in render_player(s, 0)
    assert render_player(s, 0).splitlines()[0].startswith("-- Player 0 (to move")
    for p in range(4):
        assert render_player(s, p) in text


def test_render_player_rejects_bad_seats():
    s = game(2, 1)
    for bad in (2, -1, "0"):
        with pytest.raises(PlayerCountError):
            render_player(s, bad)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_whole_game_renders_for_every_player_count(players):
    """Every state of a random game renders, within ~70 columns, without colour codes; the status line
    names the decision; the end shows the final scores (R124)."""
    s = new_game(players=players, seed=players)
    rng = random.Random(players)
    kinds = set()
    step = 0
    while True:
        if step % 7 == 0 or s.is_terminal() or s.is_chance_node():
            text = render_state(s)
            assert "\x1b" not in text
            assert max(len(line) for line in text.splitlines()) <= 70
            assert f"-- Player {players - 1}" in text and f"-- Player {players}" not in text
            last = text.splitlines()[-2:]
            if s.is_terminal():
                assert last[-1].startswith("Game over.")
                for p, score in enumerate(s.scores()):
                    assert f"P{p} {score}" in last[-1]
                ret = s.returns()
                assert f"Winner: player {ret.index(max(ret))}" in last[-1]      # R126-R127 via returns()
                kinds.add("over")
                break
            if s.is_chance_node():
                assert last[-1].startswith("Chance:")
                kinds.add("chance")
            else:
                assert last[0].startswith(f"Player {s.current_player()} to move:")
                kinds.add("decision")
        s.apply(rng.choice(s.legal_actions()))
        step += 1
    assert kinds == {"over", "chance", "decision"}


def test_status_line_says_what_the_player_does():
    s = game(4, 1)
    last = render_state(s).splitlines()[-2:]
    assert last[0].startswith("Player 0 to move: place 2 citizens on an empty crossing (turn step 1)")          # R37
    assert last[1].strip() == f"({len(s.legal_actions())} possible moves)"
    s.apply(place_id(2, 3, s.legal_actions()[0] % 3))
    assert "Player 0 to move: take the actions of crossing (2,3), or end actions" in render_state(s)


def test_str_is_the_rendering():
    s = game(3, 2)
    assert str(s) == render_state(s) == s.render()


FRAME_WORDS = {
    C["FR_GRANT"]: "you may",                    # A18
    C["FR_NARROW2"]: "second Narrow",            # A14
    C["FR_PASSENGER"]: "place a Passenger on",   # R83
    C["FR_SAGRADA"]: "Sagrada Família track",    # R118
    C["FR_SAG_TILE"]: "Sagrada Família tile for slot",   # R119
    C["FR_RES"]: "resources between Coins and Cloths",
    C["FR_INT_PICK"]: "pick Intersection benefits",   # R62, A23
}


def test_status_line_for_every_frame_and_overflow():
    """The last lines say who decides inside nested pieces of a turn, including off-turn decisions (A23)
    and Warehouse overflow (A39)."""
    seen = set()
    for players in (2, 3, 4):
        for seed in range(6):
            s = new_game(players=players, seed=seed)
            rng = random.Random(seed)
            while not s.is_terminal():
                v = s.view()
                if s.current_player() >= 0:
                    status = "\n".join(render_state(s).splitlines()[-2:])
                    assert status.startswith(f"Player {s.current_player()} to move:")
                    if v.discard_player is not None:
                        assert "Warehouse overflow" in status
                        seen.add("discard")
                    elif v.frames:
                        kind = v.top_frame.kind
                        assert FRAME_WORDS[kind] in status
                        seen.add(kind)
                s.apply(rng.choice(s.legal_actions()))
    assert seen == set(FRAME_WORDS) | {"discard"}
