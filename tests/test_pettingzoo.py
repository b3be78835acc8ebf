"""The PettingZoo AEC environment (barcelona_ai/pettingzoo_env.py, extra [pettingzoo]): PettingZoo's own API and
seed tests, a whole game with masked actions, and observations that show nothing hidden. Skipped when
pettingzoo is not installed."""
import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, seed_test  # noqa: E402

from barcelona_ai.pettingzoo_env import NF, NUM_ACTIONS, OBS_SIZE, env  # noqa: E402


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_api_test(players):
    api_test(env(players=players), num_cycles=200)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_seed_test():
    seed_test(lambda: env(players=3), num_cycles=50)


def _play(e, seed):
    """A whole game with random legal actions (numpy ids, as RL code gives them); the rewards seen per agent."""
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    got = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        got[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        assert obs["observation"].shape == (OBS_SIZE,) and obs["action_mask"].shape == (NUM_ACTIONS,)
        e.step(rng.choice(np.flatnonzero(obs["action_mask"])))
    return got


def test_a_whole_game_ends_with_the_returns_as_rewards():
    e = env(players=3)
    got = _play(e, seed=4)
    assert e.state.is_terminal() and not e.agents
    assert [got[a] for a in e.possible_agents] == pytest.approx(e.state.returns())
    assert sum(got.values()) == pytest.approx(1.0)
    assert _play(env(players=3), seed=4) == got                     # the seed replays the game


def test_the_mask_is_the_legal_actions_of_the_agent_to_act_only():
    e = env(players=4)
    e.reset(seed=1)
    me = e.agent_selection
    seat = e.possible_agents.index(me)
    assert set(np.flatnonzero(e.observe(me)["action_mask"])) == set(e.state.legal_actions())
    assert e.observe(me)["observation"][-1] == 1.0
    for other in e.possible_agents:
        if other != me:
            assert not e.observe(other)["action_mask"].any() and e.observe(other)["observation"][-1] == 0.0
    assert list(e.observe(me)["observation"][4 * NF:4 * NF + 3]) == list(e.state.hand(seat))


def test_observations_do_not_depend_on_other_hands():
    e = env(players=3)
    e.reset(seed=2)
    me = e.possible_agents[0]
    before = e.observe(me)["observation"]
    real = e.state
    e.state = real.determinize(0, 77)
    assert any(e.state.hand(q) != real.hand(q) for q in (1, 2))
    assert np.array_equal(e.observe(me)["observation"], before)


def test_render_is_the_text_board():
    e = env(players=2, render_mode="ansi")
    e.reset(seed=0)
    assert e.render() == str(e.state)
    with pytest.raises(ValueError):
        env(players=2, render_mode="rgb_array")
