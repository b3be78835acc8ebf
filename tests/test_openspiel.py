"""The OpenSpiel adapter (barcelona_ai/openspiel_game.py, extra [openspiel]): OpenSpiel's own checks, its
Python ISMCTS bot, and information states that show nothing hidden. Skipped when open_spiel is not installed."""
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
import barcelona_ai.openspiel_game as osg  # noqa: E402  (registers python_barcelona)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_sim_test(players):
    game = pyspiel.load_game("python_barcelona", {"players": players})
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_serialization_round_trip():
    game = pyspiel.load_game("python_barcelona", {"players": 3, "seed": 5})
    s = game.new_initial_state()
    rng = random.Random(1)
    for _ in range(40):
        s.apply_action(rng.choice(s.legal_actions()))
    text = pyspiel.serialize_game_and_state(game, s)
    _, back = pyspiel.deserialize_game_and_state(text)
    assert back.history() == s.history() and back.core.hash() == s.core.hash()
    assert back.information_state_string(1) == s.information_state_string(1)


def test_numpy_actions_from_bots_are_accepted():
    game = pyspiel.load_game("python_barcelona", {"players": 2})
    s = game.new_initial_state()
    s.apply_action(np.int64(s.legal_actions()[0]))
    assert len(s.history()) == 1


def _play(viewer_state, twin_core, viewer, steps, seed):
    """The game of `viewer_state` and its twin `twin_core` (another hidden deal) played alike, while the viewer
    can tell no difference: the same actions, except another seat's hidden draws, drawn apart; both states are
    yielded after each step. It stops where another seat places citizens that differ in the twins."""
    game = viewer_state.get_game()
    a, b = viewer_state, osg.BarcelonaState(game, twin_core)
    rng = random.Random(seed)
    for _ in range(steps):
        if a.is_terminal():
            return
        if a.is_chance_node() and a.core.is_hidden_draw(viewer):
            a.apply_action(rng.choice(a.legal_actions()))
            b.apply_action(rng.choice(b.legal_actions()))
        else:
            common = sorted(set(a.legal_actions()) & set(b.legal_actions()))
            act = rng.choice(common) if common else None
            if act is None or a.core.action_to_string(act) != b.core.action_to_string(act):
                return                              # another seat places citizens the twins do not share
            a.apply_action(act)
            b.apply_action(act)
        yield a, b


@pytest.mark.parametrize("players", [2, 4])
def test_twin_openings_give_the_viewer_identical_information_states(players):
    """Another seat's hidden opening hand differs: the viewer's information state is the same until it shows."""
    game = pyspiel.load_game("python_barcelona", {"players": players, "seed": 3})
    s = game.new_initial_state()
    twin = s.core.determinize(0, 99)
    assert any(twin.hand(q) != s.core.hand(q) for q in range(1, players))
    assert s.information_state_string(0) == osg.BarcelonaState(game, twin).information_state_string(0)
    n = 0
    for a, b in _play(s, twin, 0, 150, seed=players):
        assert a.information_state_string(0) == b.information_state_string(0)
        assert a.observation_string(0) == b.observation_string(0)
        n += 1
    assert n >= 5


@pytest.mark.parametrize("players", [2, 3, 4])
def test_twin_hidden_draws_give_the_viewer_identical_information_states(players):
    """Another seat draws other citizens: the viewer's information state is the same while it cannot tell."""
    game = pyspiel.load_game("python_barcelona", {"players": players, "seed": 8})
    s = game.new_initial_state()
    differ = 0
    for a, b in _play(s, game.new_initial_state().core, 0, 400, seed=players):
        assert a.information_state_string(0) == b.information_state_string(0)
        assert a.observation_string(0) == b.observation_string(0)
        differ += a.core.hash() != b.core.hash()
    assert differ > 0 and "chance: draw (hidden)" in a.information_state_string(0)


def test_information_state_is_perfect_recall_and_hides_other_draws():
    game = pyspiel.load_game("python_barcelona", {"players": 3})
    s = game.new_initial_state()
    rng = random.Random(2)
    before = {p: s.information_state_string(p) for p in range(3)}
    while len(s.history()) < 60:
        s.apply_action(rng.choice(s.legal_actions()))
        now = {p: s.information_state_string(p) for p in range(3)}
        assert all(now[p].startswith(before[p]) and now[p] != before[p] for p in range(3))
        before = now
    for p in range(3):
        lines = before[p].splitlines()[1:]
        draws = [t for t in lines if "draw" in t]
        assert draws and all(t == "chance: draw (hidden)" or t.startswith("chance: draw ") for t in draws)
        assert any(t != "chance: draw (hidden)" for t in draws)       # p's own draws are shown


def test_resample_from_infostate_keeps_the_players_information_state():
    game = pyspiel.load_game("python_barcelona", {"players": 4})
    s = game.new_initial_state()
    rng = random.Random(4)
    while len(s.history()) < 50 or s.is_chance_node():
        s.apply_action(rng.choice(s.legal_actions()))
    p = s.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    worlds = [s.resample_from_infostate(p, sampler) for _ in range(4)]
    for w in worlds:
        assert w.information_state_string(p) == s.information_state_string(p)
        assert w.legal_actions() == s.legal_actions()
    assert len({tuple(w.core.hand(q) for q in range(4)) for w in worlds}) > 1


def test_openspiel_ismcts_bot_plays_a_few_moves():
    from open_spiel.python.algorithms import ismcts, mcts
    game = pyspiel.load_game("python_barcelona", {"players": 2})
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), uct_c=2.0, max_simulations=8,
                           random_state=rs, allow_inconsistent_action_sets=True)
    s = game.new_initial_state()
    moves = 0
    while moves < 3:
        if s.is_chance_node():
            acts, probs = zip(*s.chance_outcomes())
            s.apply_action(int(rs.choice(acts, p=probs)))
            continue
        a = bot.step(s)
        assert a in s.legal_actions()
        s.apply_action(a)
        moves += 1


def test_game_and_state_pickle():
    import pickle
    game = pyspiel.load_game("python_barcelona", {"players": 2, "seed": 2})
    s = game.new_initial_state()
    rng = random.Random(3)
    for _ in range(25):
        s.apply_action(rng.choice(s.legal_actions()))
    assert pickle.loads(pickle.dumps(game)).num_players() == 2
    back = pickle.loads(pickle.dumps(s))
    assert back.history() == s.history() and back.core.hash() == s.core.hash()
    assert back.information_state_string(1) == s.information_state_string(1)


def test_openspiel_mcts_bot_plays_a_move():
    from open_spiel.python.algorithms import mcts
    game = pyspiel.load_game("python_barcelona", {"players": 3})
    rs = np.random.RandomState(1)
    bot = mcts.MCTSBot(game, 2.0, 8, mcts.RandomRolloutEvaluator(1, rs), random_state=rs)
    s = game.new_initial_state()
    a = bot.step(s)
    assert a in s.legal_actions()
    s.apply_action(a)
