"""State.view(): the typed read-only view of a state (barcelona_ai/rules/view.py, built in core.pyx).

The view must say exactly what the C state says (checked here against raw(), field by field, on many states of
2-4 player games, mid-turn, chance and terminal states included), hide the other hands when built for a viewpoint
(A6) and be immutable. What it costs beside raw() is measured in bench/test_bench_view.py."""
import random

import pytest

from barcelona_ai import CONSTANTS as C
from barcelona_ai import PlayerCountError, State, new_game
from barcelona_ai.rules.view import FRAME_KIND_NAMES, PHASE_NAMES, STREET_DIRECTIONS, FrameView, PlayerView, StateView


def _ids(mask: int, width: int) -> tuple:
    return tuple(i for i in range(width) if (mask >> i) & 1)


def _opt(x: int):
    return None if x < 0 else x


def _expected_player(pl: dict, seat: int, hidden: bool) -> PlayerView:
    marked = pl["hand"][1] < 0 or pl["hand"][2] < 0             # a state built from an observation
    return PlayerView(
        seat=seat, score=pl["score"], vp_sources=tuple(pl["vp_src"]), coins=pl["coins"], cloth=pl["cloth"],
        cobblestones=pl["cobbles"], intersections=pl["inters"], narrow_laid=pl["narrow"], wide_laid=pl["wide"],
        passengers=pl["passengers"], tram=_opt(pl["tram"]), markers_placed=pl["markers"], cerda=pl["cerda"],
        sagrada=pl["sagrada"], modernisme=tuple(_opt(x) for x in pl["mod_tile"]),
        modernisme_up=tuple(bool(x) for x in pl["mod_up"]), sagrada_tiles=tuple(_opt(x) for x in pl["sag_tile"]),
        public_services=_ids(pl["ps_built"], 16), hand=None if hidden or marked else tuple(pl["hand"]),
        hand_size=max(pl["hand"][0], 0) if marked else sum(pl["hand"]), turns=pl["turns"])


def expected_view(state: State, viewpoint=None) -> StateView:
    """The view, written out independently from raw() (the dict of StateC fields)."""
    r = state.raw()
    n = r["num_players"]
    bag, pool = tuple(r["bag"]), None
    if viewpoint is not None:
        pool = tuple(r["bag"][k] + sum(r["pl"][p]["hand"][k] for p in range(n) if p != viewpoint)
                     for k in range(3))
        bag = None
    return StateView(
        viewpoint=viewpoint, num_players=n, turn_player=r["cur"], current_player=state.current_player(),
        phase=r["phase"], phase_name=PHASE_NAMES[r["phase"]], action_tiles=tuple(r["street_action"]),
        crossings=tuple(tuple(x for x in (lo, hi) if x >= 0) for lo, hi in zip(r["cross_lo"], r["cross_hi"])),
        intersections=tuple(_opt(x) for x in r["cross_int"]), streets=tuple(_opt(x) for x in r["street_owner"]),
        passengers=tuple(_opt(x) for x in r["passenger"]), building_levels=tuple(r["bld_level"]),
        building_markers=tuple(tuple(r["bld_mark"][bs * 3: bs * 3 + r["bld_n"][bs]]) for bs in range(20)),
        building_tiles_left=tuple(r["bld_stack"]), bonus_rows_taken=_ids(r["bonus_rows"], 16),
        tracks=tuple(_ids(m, 32) for m in r["track"]), tracks_off_board=tuple(r["track_off"]),
        cerda_tiles=tuple(r["cerda_tile"]), cerda_scored=tuple(bool((r["scored"] >> i) & 1) for i in range(3)),
        cerda_scorings_done=r["scorings"], modernisme_stack=_ids(r["mod_stack"], 32),
        modernisme_display=_ids(r["mod_display"], 32), modernisme_discard=_ids(r["mod_discard"], 32),
        public_services_left=tuple(_opt(x) for x in r["ps_left"]), sagrada_offer=_ids(r["sag_offer"], 32),
        sidewalk=_ids(r["sidewalk"], 32), bag=bag, unseen_pool=pool,
        players=tuple(_expected_player(r["pl"][p], p, viewpoint is not None and p != viewpoint) for p in range(n)),
        place_crossing=_opt(r["place_crossing"]), streets_used=_ids(r["streets_used"], 16),
        frames=tuple(FrameView(kind=f["kind"], kind_name=FRAME_KIND_NAMES[f["kind"]], player=f["player"], a=f["a"],
                               b=f["b"], source=f["src"], effect_list=f["lst"]) for f in r["frames"][:r["nframes"]]),
        discard_player=_opt(r["discard_player"]), reveal_pending=r["reveal_pending"],
        refresh_pending=r["refresh_pending"], draws_left=r["draws_left"], activity=bool(r["activity"]),
        end_triggered=bool(r["end_triggered"]))


def walk(players: int, seed: int, every: int = 1):
    """The states of one seeded random game (every `every`-th, the terminal one included)."""
    s = new_game(players, seed=seed, setup="printed" if seed % 2 == 0 else "random")
    rng = random.Random(seed)
    k = 0
    while True:
        if k % every == 0 or s.is_terminal():
            yield s
        if s.is_terminal():
            return
        s.apply(rng.choice(s.legal_actions()))
        k += 1


def assert_same(view: StateView, want: StateView) -> None:
    assert len(view) == len(StateView._fields)          # the core builds the tuple itself: every field, in order
    for pv in view.players:
        assert type(pv) is PlayerView and len(pv) == len(PlayerView._fields)
    for f in view.frames:
        assert type(f) is FrameView and len(f) == len(FrameView._fields)
    for name in StateView._fields:
        if name == "players":
            for got, exp in zip(view.players, want.players, strict=True):
                for field in PlayerView._fields:
                    assert getattr(got, field) == getattr(exp, field), f"players[{exp.seat}].{field}"
        else:
            assert getattr(view, name) == getattr(want, name), name
    assert view == want


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (4, 3), (4, 4), (2, 6), (3, 9)])
def test_the_view_agrees_with_raw_field_by_field(players, seed):
    kinds, phases = set(), set()
    for s in walk(players, seed):
        v = s.view()
        assert_same(v, expected_view(s))
        kinds |= {f.kind_name for f in v.frames}
        phases.add(v.phase_name)
        assert v.turn_player == s.turn_player and v.phase == s.phase and v.phase_name == s.phase_name
        assert v.round_number == s.round_number
        assert v.top_frame == (v.frames[-1] if v.frames else None)
        for p in range(players):
            assert s.hand(p) == v.players[p].hand and s.hand_size(p) == v.players[p].hand_size
    assert "over" in phases and {"place", "actions", "build"} <= phases
    assert kinds, "some states must be mid-turn, with frames on the stack"


@pytest.mark.parametrize("players,seed", [(2, 11), (3, 12), (4, 13)])
def test_a_view_for_a_viewpoint_holds_only_what_that_seat_may_know(players, seed):
    for s in walk(players, seed, every=5):
        for p in range(players):
            v = s.view(viewpoint=p)
            assert_same(v, expected_view(s, p))
            assert v.bag is None and v.unseen_pool == tuple(s.unseen_pool(p))
            assert v.players[p].hand == s.hand(p)
            assert all(pl.hand is None for pl in v.players if pl.seat != p)
            assert [pl.hand_size for pl in v.players] == [s.hand_size(q) for q in range(players)]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_twin_states_give_equal_views_for_the_seat_that_cannot_tell_them_apart(players):
    differ = 0
    for s in walk(players, 20 + players, every=9):
        if s.is_terminal():
            continue
        for p in range(players):
            twins = [s.determinize(p, 500 + i) for i in range(3)]
            for t in twins:
                assert t.view(viewpoint=p) == s.view(viewpoint=p)
                assert hash(t.view(viewpoint=p)) == hash(s.view(viewpoint=p))
                differ += t.view() != s.view()
    assert differ, "the twins must really differ in hidden hands"


def test_a_state_built_from_an_observation_shows_hidden_hands_as_none():
    s = next(st for st in walk(3, 5) if sum(st.hand_size(p) for p in range(3)) >= 4)
    obs = State._from_raw(s.observation(0))
    v = obs.view()
    assert v.players[0].hand == s.hand(0)
    for q in (1, 2):
        assert v.players[q].hand is None and obs.hand(q) is None
        assert v.players[q].hand_size == obs.hand_size(q) == s.hand_size(q)
    assert_same(v, expected_view(obs))


def test_the_view_is_immutable():
    s = next(st for st in walk(4, 7) if st.view().frames)
    v = s.view()
    with pytest.raises(AttributeError):
        v.phase = 3
    with pytest.raises(AttributeError):
        v.players[0].coins = 99
    with pytest.raises(TypeError):
        v.players[0] = v.players[1]
    with pytest.raises(TypeError):
        v.crossings[0] = (1,)
    with pytest.raises(AttributeError):
        v.frames[-1].a = 1
    hash(v)                                          # only tuples, ints, bools, str and None all the way down
    before = s.view()
    s.apply(s.legal_actions()[0])
    assert v == before and s.view() != before        # a snapshot: the state moves on, the view does not


def test_names_and_seats():
    assert PHASE_NAMES == tuple(n for _, n in sorted((C["PH_" + n.upper()], n) for n in PHASE_NAMES))
    assert {C["FR_" + n.upper()]: n for n in FRAME_KIND_NAMES.values()} == FRAME_KIND_NAMES
    assert STREET_DIRECTIONS == ("vertical", "horizontal", "diagonal")
    s = new_game(3, seed=1)
    for bad in (3, -1, True, "0", None):
        with pytest.raises(PlayerCountError):
            s.hand(bad)
        with pytest.raises(PlayerCountError):
            s.hand_size(bad)
        if bad is not None:
            with pytest.raises(PlayerCountError):
                s.view(viewpoint=bad)
    assert s.view() == s.view(None) and s.view().viewpoint is None and s.view(2).viewpoint == 2
