"""The PettingZoo AEC environment (barcelona_ai/adapters/pettingzoo_env.py, extra [pettingzoo]): PettingZoo's own
API and seed tests, a whole game with masked actions, and observations that show nothing hidden. Skipped when
pettingzoo is not installed."""
import contextlib
import io

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, seed_test  # noqa: E402

from barcelona_ai.adapters.pettingzoo_env import NF, NUM_ACTIONS, OBS_SIZE, env  # noqa: E402
from helpers import readme_adapter_example  # noqa: E402


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
    assert list(e.observe(me)["observation"][NF:NF + 3]) == list(e.state.hand(seat))


def test_observations_do_not_depend_on_other_hands():
    """Twins along a whole game (A6): every agent's observation is the same in a state whose other hands (and
    with them the bag) are resampled, State.determinize; and it is the shared encoding of observation.py."""
    from barcelona_ai.adapters.observation import observation_vector
    e = env(players=3)
    e.reset(seed=2)
    rng = np.random.default_rng(2)
    real, differ, step = e.state, 0, 0
    while not real.is_terminal():
        if step % 7 == 0:
            for seat, agent in enumerate(e.possible_agents):
                before = e.observe(agent)
                assert np.array_equal(before["observation"], observation_vector(real, seat))
                e.state = real.determinize(seat, 77 + step)
                differ += any(e.state.hand(q) != real.hand(q) for q in range(3) if q != seat)
                after = e.observe(agent)
                e.state = real
                assert np.array_equal(after["observation"], before["observation"])
                assert np.array_equal(after["action_mask"], before["action_mask"])
        e.step(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])))
        step += 1
    assert differ > 10


def test_render_is_the_text_board():
    e = env(players=2, render_mode="ansi")
    e.reset(seed=0)
    assert e.render() == str(e.state)
    with pytest.raises(ValueError):
        env(players=2, render_mode="rgb_array")


def test_readme_pettingzoo_example_runs():
    out = io.StringIO()
    env_: dict = {}
    with contextlib.redirect_stdout(out):
        exec(compile(readme_adapter_example("barcelona_ai.adapters.pettingzoo_env"), "README.md", "exec"), env_)
    e = env_["e"]
    assert e.state.is_terminal() and not e.agents
