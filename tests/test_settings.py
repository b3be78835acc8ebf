"""The search's settings: presets written out in full, overrides that change exactly what they name, rules between
fields checked when settings are made, and parameters that reach the compiled search by their names."""
from dataclasses import asdict, fields

import pytest

from barcelona_ai import BarcelonaError, Engine, Limit, SearchSettings, new_game
from barcelona_ai.search.bots import make_bot
from barcelona_ai.search.tree import PARAM_FIELDS, Tree
from barcelona_ai.search.settings import FIELD_NAMES, PLAYER_COUNTS, PRESETS, preset_settings

from test_twin_states import decision_positions

# The fields the Python side reads (the compiled search reads the others, PARAM_FIELDS).
ENGINE_FIELDS = {"root_halving", "playouts", "playout_weight", "model", "forecast_model", "policy", "threads",
                 "reuse_tree"}


def test_every_preset_is_written_out_for_every_player_count():
    assert set(PRESETS) == {"default", "v0"}
    for preset in PRESETS.values():
        assert set(preset) == set(PLAYER_COUNTS)
        assert all(isinstance(s, SearchSettings) for s in preset.values())
    for n in PLAYER_COUNTS:                  # only the file fields may be empty, and only where nothing reads them
        for s in (PRESETS["default"][n], PRESETS["v0"][n]):
            empty = {f.name for f in fields(s) if getattr(s, f.name) is None}
            assert empty <= ({"model", "forecast_model", "policy"} if s.leaf == "rollout" else set())


def test_every_field_is_read_by_the_search_or_the_engine():
    assert PARAM_FIELDS <= set(FIELD_NAMES)
    assert set(FIELD_NAMES) - PARAM_FIELDS == ENGINE_FIELDS


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_the_engine_made_of_a_preset_plays_as_the_default_engine(players):
    """Engine(**preset) plays exactly as Engine(): the same moves and the same numbers at the same seed and
    budget."""
    s = decision_positions(players, seed=21, count=3)[2]
    limit = Limit(iterations=800)
    default = Engine(seed=3)
    named = Engine(seed=3, **asdict(PRESETS["default"][players]))
    assert named.settings[players] == default.settings[players]
    assert named.analyse(s, limit, top=3).to_dict() == default.analyse(s, limit, top=3).to_dict()
    assert named.best_move(s, limit) == default.best_move(s, limit)


def test_naming_a_presets_own_value_changes_nothing():
    for preset, by_players in PRESETS.items():
        for name in FIELD_NAMES:
            for own in by_players.values():
                assert own.replace(**{name: getattr(own, name)}) == own
            values = {getattr(s, name) for s in by_players.values()}
            if len(values) == 1:                  # the same in every player count: the engine's override too
                assert preset_settings(preset, **{name: values.pop()}) == by_players


def test_an_override_changes_exactly_the_field_it_names():
    changed = preset_settings("default", rollout_depth=38)
    for n in PLAYER_COUNTS:
        assert changed[n] == PRESETS["default"][n].replace(rollout_depth=38)
        assert changed[n].rollout_depth == 38
        assert {k for k, v in asdict(changed[n]).items() if v != getattr(PRESETS["default"][n], k)} == \
            ({"rollout_depth"} if PRESETS["default"][n].rollout_depth != 38 else set())


@pytest.mark.parametrize("overrides, message", [
    ({"turn_policy": "learned"}, "turn_policy .learned. plays the leaf.s turn .*3 players"),
    ({"leaf": "rollout"}, "leaf 'rollout' reads no model .* 2 players"),
    ({"forecast_at": "leaf_turn_end"}, "needs rollout_depth above 0 .* 3 players"),
    ({"policy": None}, "need a turn policy file .* 2 players"),
    ({"threads": 64, "max_nodes": 4_000_000}, "threads x max_nodes"),
    ({"colour": "red"}, "unknown search setting 'colour'"),
])
def test_an_invalid_combination_is_refused_when_the_engine_is_made(overrides, message):
    with pytest.raises(BarcelonaError, match=message):
        Engine(**overrides)


def test_presets_and_settings_are_checked():
    with pytest.raises(BarcelonaError, match="unknown preset 'fast'"):
        Engine(preset="fast")
    with pytest.raises(BarcelonaError, match="leaf 'rollout' reads no model .*the v0 preset, 2 players"):
        Engine(preset="v0", model=PRESETS["default"][4].model)
    with pytest.raises(BarcelonaError, match="a preset or settings, not both"):
        Engine(settings=PRESETS["v0"][2], preset="v0")
    with pytest.raises(BarcelonaError, match="settings must be"):
        Engine(settings={2: PRESETS["v0"][2]})
    with pytest.raises(BarcelonaError, match="mix_weight"):
        PRESETS["default"][2].replace(mix_weight=-0.5)
    one = Engine(settings=PRESETS["v0"][3], threads=2)
    assert all(s == PRESETS["v0"][3].replace(threads=2) for s in one.settings.values())


def test_parameters_reach_the_search_by_their_names():
    two = PRESETS["default"][2]
    params = two.params()
    assert set(params) == PARAM_FIELDS
    assert params["leaf"] == 1 and params["forecast_at"] == 1 and params["turn_policy"] == 1
    assert params["rollout_depth"] == two.rollout_depth and params["c_uct"] == two.c_uct
    s = new_game(2, seed=1)
    for broken in ({k: v for k, v in params.items() if k != "c_uct"}, {**params, "widen_c": 1.0}, None):
        with pytest.raises(BarcelonaError, match="SearchSettings.params"):
            Tree(s, 0, broken, 1)


def test_bot_specs_name_a_preset_and_fields():
    v0 = make_bot("ismcts:100,preset=v0").engine
    assert v0.settings == {n: PRESETS["v0"][n].replace(reuse_tree=True) for n in PLAYER_COUNTS}
    deeper = make_bot("ismcts:100,rollout_depth=38").engine
    assert all(s.rollout_depth == 38 for s in deeper.settings.values())
    with pytest.raises(BarcelonaError, match="unknown preset 'fast'"):
        make_bot("ismcts:100,preset=fast")
    with pytest.raises(BarcelonaError, match="reads no forecast_model"):
        make_bot("ismcts:100,preset=v0,forecast_model=x.json")
    assert make_bot("ismcts:100,preset=v0,model=none").engine.settings[2].model is None
