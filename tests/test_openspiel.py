"""The OpenSpiel adapter (barcelona_ai/adapters/openspiel_game.py, extra [openspiel]): OpenSpiel's own checks, its
Python ISMCTS bot, and information states that show nothing hidden. Skipped when open_spiel is not installed."""
import contextlib
import io
import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
import barcelona_ai.adapters.openspiel_game  # noqa: E402,F401  (registers python_barcelona)
from open_spiel.python.observation import make_observation  # noqa: E402
from helpers import readme_adapter_example  # noqa: E402


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


def _twins(game, viewer, steps, seed):
    """Two games played alike while `viewer` can tell no difference: the same actions and public chance
    outcomes, but every citizen dealt to or drawn by another seat drawn apart. Both states are yielded after each
    step; it stops where another seat places citizens that differ in the twins."""
    a, b = game.new_initial_state(), game.new_initial_state()
    rng = random.Random(seed)
    for _ in range(steps):
        if a.is_terminal():
            return
        if a.is_chance_node() and a.is_hidden_chance(viewer):
            a.apply_action(rng.choice(a.legal_actions()))
            b.apply_action(rng.choice(b.legal_actions()))
        else:
            common = sorted(set(a.legal_actions()) & set(b.legal_actions()))
            act = rng.choice(common) if common else None
            if act is None or a.action_to_string(act) != b.action_to_string(act):
                return                              # another seat places citizens the twins do not share
            a.apply_action(act)
            b.apply_action(act)
        yield a, b


def _same_view(a, b, viewer):
    assert a.information_state_string(viewer) == b.information_state_string(viewer)
    assert a.observation_string(viewer) == b.observation_string(viewer)
    assert a.observation_tensor(viewer) == b.observation_tensor(viewer)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_twin_games_give_the_viewer_identical_strings_and_tensors(players):
    """Other seats are dealt and draw other citizens from the start: the viewer's information state, observation
    string and observation tensor are the same while it cannot tell (A6)."""
    game = pyspiel.load_game("python_barcelona", {"players": players, "seed": 8})
    n = differ = 0
    for viewer in range(players):
        for a, b in _twins(game, viewer, 400, seed=players + 10 * viewer):
            _same_view(a, b, viewer)
            n += 1
            differ += not a.dealing() and any(a.own_hand(q) != b.own_hand(q) for q in range(players) if q != viewer)
        assert "chance: deal (hidden)" in a.information_state_string(viewer)
    assert n >= 6 * players and differ > 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_resampled_twins_along_a_whole_game_give_identical_views(players):
    """Twins all along a random game: every tenth action, for every seat, a world resampled from its information
    state (other deals, draws and hands) gives that seat the same strings and tensor (A6)."""
    game = pyspiel.load_game("python_barcelona", {"players": players, "seed": 9})
    s = game.new_initial_state()
    rng = random.Random(players)
    differ = 0
    while not s.is_terminal():
        if len(s.history()) % 10 == 0:
            for viewer in range(players):
                w = s.resample_from_infostate(viewer, _Fixed([rng.random()]))
                _same_view(s, w, viewer)
                differ += w.history() != s.history()
        s.apply_action(rng.choice(s.legal_actions()))
    assert differ > 10 and "chance: draw (hidden)" in s.information_state_string(0)


def test_the_observation_tensor_is_the_shared_encoding():
    """The tensor is barcelona_ai/adapters/observation.py's vector (the PettingZoo environment's observation) for the
    core state and the seat's hand; during the opening deal, the citizens dealt so far and no turn."""
    from barcelona_ai.adapters.observation import BLOCKS, OBS_SIZE, observation_vector
    game = pyspiel.load_game("python_barcelona", {"players": 3, "seed": 1})
    assert game.observation_tensor_shape() == [OBS_SIZE] and game.observation_tensor_size() == OBS_SIZE
    s = game.new_initial_state()
    s.apply_action(s.legal_actions()[2])
    tensor = np.array(s.observation_tensor(0), np.float32)
    assert list(tensor[-4:]) == [0.0, 0.0, 1.0, 0.0]         # one U dealt to seat 0, nobody decides yet
    rng = random.Random(5)
    while len(s.history()) < 70 or s.is_chance_node():
        s.apply_action(rng.choice(s.legal_actions()))
    for p in range(3):
        assert np.array_equal(np.array(s.observation_tensor(p), np.float32), observation_vector(s.core, p))
    assert s.observation_tensor(s.current_player())[-1] == 1.0
    obs = make_observation(game)
    obs.set_from(s, 1)
    assert [k for k, _ in BLOCKS] == list(obs.dict) and list(obs.dict["hand"]) == list(s.core.hand(1))
    assert obs.string_from(s, 1) == s.observation_string(1)


def test_information_state_tensors_are_not_provided():
    game = pyspiel.load_game("python_barcelona", {"players": 2})
    assert not game.get_type().provides_information_state_tensor
    info = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    s = game.new_initial_state()
    assert info.tensor.size == 0 and info.string_from(s, 1) == s.information_state_string(1)
    with pytest.raises(ValueError, match="observation type"):
        make_observation(game, pyspiel.IIGObservationType(perfect_recall=False,
                                                          private_info=pyspiel.PrivateInfoType.NONE))
    with pytest.raises(ValueError, match="observation parameters"):
        make_observation(game, None, {"x": 1})


def test_the_opening_deal_is_explicit_chance():
    """The hands are dealt by chance nodes (R32), with the bag's odds, and end up in the core's hands."""
    game = pyspiel.load_game("python_barcelona", {"players": 2, "seed": 4})
    s = game.new_initial_state()
    outcomes = s.chance_outcomes()
    assert s.is_chance_node() and [a for a, _ in outcomes] == s.legal_actions()
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    picks = [s.legal_actions()[k] for k in (2, 2, 0, 1)]     # U U to seat 0, then W M to seat 1
    for a in picks:
        s.apply_action(a)
    assert not s.is_chance_node() and s.current_player() == 0
    assert s.core.hand(0) == (0, 0, 2) and s.core.hand(1) == (1, 1, 0)
    assert s.core.unseen_pool(0) == [x + y for x, y in zip(game.new_initial_state().undealt, (0, 0, -2))]
    with pytest.raises(ValueError, match="opening deal"):
        g = game.new_initial_state()
        g.apply_action(0)                                    # not a citizen class


def test_information_state_is_perfect_recall_and_hides_other_citizens():
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
        for kind in ("deal", "draw"):
            got = [t for t in lines if t.startswith(f"chance: {kind}")]
            shown = [t for t in got if t != f"chance: {kind} (hidden)"]
            assert got and shown and len(shown) < len(got)            # p's own are shown, the others' hidden


class _Fixed:
    """A probability sampler giving fixed values in turn (pyspiel's samplers are uniform draws)."""

    def __init__(self, values):
        self.values = iter(values)

    def __call__(self):
        return next(self.values)


def _position(players, seed, length):
    game = pyspiel.load_game("python_barcelona", {"players": players, "seed": seed})
    s = game.new_initial_state()
    rng = random.Random(seed)
    while len(s.history()) < length or s.is_chance_node():
        s.apply_action(rng.choice(s.legal_actions()))
    return game, s


def test_resample_from_infostate_is_a_game_state_the_player_cannot_tell_apart():
    """A resampled world is the game replayed with other citizens for the other seats: the player's
    information state and legal actions stay, the core state is State.determinize's, its history replays it."""
    game, s = _position(4, 4, 120)
    p = s.current_player()
    values = [0.1 * i for i in range(1, 7)]
    worlds = [s.resample_from_infostate(p, _Fixed([v])) for v in values]
    for v, w in zip(values, worlds):
        assert w.information_state_string(p) == s.information_state_string(p)
        assert w.observation_tensor(p) == s.observation_tensor(p) and w.legal_actions() == s.legal_actions()
        assert w.core.hash() == s.core.determinize(p, int(v * 2**63)).hash()
        replay = game.new_initial_state()
        for a in w.history():
            replay.apply_action(a)
        assert replay.core.hash() == w.core.hash()
    assert len({tuple(w.core.hand(q) for q in range(4)) for w in worlds}) > 1


@pytest.mark.parametrize("length", [3, 40])
def test_resampled_information_states_determine_the_hands(length):
    """What ISMCTS needs (so it runs without allow_inconsistent_action_sets): in the resampled worlds, another
    seat's information state fixes its hand, and so its legal actions. Also during the opening deal (3)."""
    game, s = _position(2, 6, length)
    if length == 3:
        s = game.new_initial_state()
        for _ in range(length):
            s.apply_action(s.legal_actions()[1])
    p = s.current_player() if s.current_player() >= 0 else 0
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    seen: dict[str, set] = {}
    for _ in range(60):
        w = s.resample_from_infostate(p, sampler)
        assert w.information_state_string(p) == s.information_state_string(p)
        seen.setdefault(w.information_state_string(1 - p), set()).add(w.own_hand(1 - p))
    assert all(len(hands) == 1 for hands in seen.values())
    assert 1 < len(seen) < 60                                  # worlds differ, and some share a key


def test_openspiel_ismcts_bot_plays_with_consistent_action_sets():
    from open_spiel.python.algorithms import ismcts, mcts
    game = pyspiel.load_game("python_barcelona", {"players": 3})
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), uct_c=2.0, max_simulations=20,
                           random_state=rs, allow_inconsistent_action_sets=False)
    s = game.new_initial_state()
    moves = 0
    while moves < 6:
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
    while s.is_chance_node():                                   # the opening deal
        s.apply_action(s.legal_actions()[0])
    a = bot.step(s)
    assert a in s.legal_actions()
    s.apply_action(a)


def test_readme_openspiel_example_runs():
    out = io.StringIO()
    env: dict = {}
    with contextlib.redirect_stdout(out):
        exec(compile(readme_adapter_example("barcelona_ai.adapters.openspiel_game"), "README.md", "exec"), env)
    state = env["state"]
    assert state.get_game().get_type().short_name == "python_barcelona"
    assert state.information_state_string(0) in out.getvalue()
