"""Barcelona as an OpenSpiel game (optional extra ``[openspiel]``): importing this module registers
``python_barcelona``, so that ``pyspiel.load_game("python_barcelona", {"players": 3})`` works.

The game is sequential with explicit stochastic chance and imperfect information: each seat sees its own hand,
not the others' (A6). Game parameters: ``players`` (2..4, default 4), ``seed`` (the seed of ``new_game``'s board
setup, which is public; default 0) and ``edition`` ("default"). Action ids are the core's (0..NUM_ACTIONS-1);
returns are the core's win shares (constant sum 1).

Chance nodes, all explicit (``chance_outcomes`` with their probabilities):

- the opening deal (R32): the game starts with every seat drawing its opening citizens from the bag, seat 0
  first, one chance node per citizen (outcome ``A_DRAW + class``, probability from the citizens not yet dealt).
  The core's ``new_game`` deals the hands from the seed; the adapter replaces them by the dealt ones once the
  deal is over (``State._hold``), so the initial state is the same for every seat and the hands are chance;
- the citizen draws and the Modernisme reveals of the core (State.chance_outcomes).

Strings:

- ``information_state_string(p)`` is p's observation history, so it has perfect recall and shows nothing p
  cannot see: ``P<p>``, then every action in notation with who took it, where a citizen dealt to or drawn by
  another seat appears only as ``deal (hidden)`` / ``draw (hidden)`` (as in a player's game record, record.py).
- ``observation_string(p)`` is p's observation of the current position only: State.observation(p) as JSON, or,
  during the opening deal, the citizens dealt to p so far.

Tensors:

- ``observation_tensor(p)`` is ``observation.write_observation`` (barcelona_ai/adapters/observation.py documents the
  blocks; the PettingZoo environment uses the same encoding): the learned evaluation's public features seen from
  p (NF numbers), p's hand by class (3; during the deal, the citizens dealt to p so far), and 1.0 when p is to
  decide (1): OBS_SIZE float32 numbers. ``make_py_observer`` gives it with a named view per block
  (``observer.dict["features"]``, ``["hand"]``, ``["to_move"]``).
- No information-state tensor (``provides_information_state_tensor=False``): a fixed-size perfect-recall
  encoding would be the whole action history, up to MAX_GAME_LENGTH actions of NUM_ACTIONS ids each (hundreds of
  thousands of numbers) for what the information-state string already gives exactly.

``resample_from_infostate(p, sampler)`` returns a state of this game reached by a history that p cannot tell from
the real one: the other hands are resampled from the unseen citizens (State.determinize, its seed drawn from
``sampler``), and every citizen dealt to or drawn by another seat is rewritten to be consistent with them (the
citizens a seat placed come from its earliest deals and draws before the placement; the hand it now holds from
the rest), then the game is replayed. So every seat's information state in the resampled world belongs to that
world, and OpenSpiel's ISMCTS bot runs with consistent action sets (no ``allow_inconsistent_action_sets``).
"""
from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel

from ..core import CONSTANTS, State, action_id, new_game
from ..errors import BarcelonaError
from ..rules.notation import CLASS_LETTERS
from .observation import BLOCKS, HAND_CLASSES, OBS_SIZE, write_observation

GAME_NAME = "python_barcelona"
NUM_ACTIONS = CONSTANTS["NUM_ACTIONS"]
CHANCE = CONSTANTS["CHANCE"]
A_DRAW = CONSTANTS["A_DRAW"]
MAX_GAME_LENGTH = 1000                     # random games end within 300 actions (4 players)
_DEFAULTS = {"players": 4, "seed": 0, "edition": "default"}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Barcelona (barcelona_ai)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(_DEFAULTS))


class BarcelonaGame(pyspiel.Game):
    """The OpenSpiel game: `params` as in the module docstring."""

    def __init__(self, params: dict | None = None):
        p = {**_DEFAULTS, **(params or {})}
        self.players, self.seed, self.edition = int(p["players"]), int(p["seed"]), str(p["edition"])
        new_game(players=self.players, seed=self.seed, edition=self.edition)   # checks the parameters
        info = pyspiel.GameInfo(num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=NUM_ACTIONS,
                                num_players=self.players, min_utility=0.0, max_utility=1.0, utility_sum=1.0,
                                max_game_length=MAX_GAME_LENGTH)
        super().__init__(_GAME_TYPE, info, p)

    def new_initial_state(self) -> "BarcelonaState":
        return BarcelonaState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "BarcelonaObserver":
        if params:
            raise BarcelonaError(f"observation parameters: none are supported, not {params!r}")
        if iig_obs_type is not None and (not iig_obs_type.public_info or iig_obs_type.private_info
                                         != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise BarcelonaError("observation type: only a seat's own view (public and its private information) "
                                 f"is provided, not {iig_obs_type!r}")
        return BarcelonaObserver(iig_obs_type is not None and iig_obs_type.perfect_recall)


def _removed(change: tuple[int, ...]) -> list[int]:
    """The citizen classes a hand change took out (a placement), one entry per citizen."""
    return [k for k in range(HAND_CLASSES) for _ in range(max(0, -change[k]))]


class BarcelonaState(pyspiel.State):
    """An OpenSpiel state around a core State (`core`). `log` holds (text, mover, drawer, change) per action
    taken: drawer is the seat a dealt or drawn citizen goes to (else None), change the hand change (by class) of
    the drawer or the mover. During the opening deal, `to_deal` lists the seats still to receive a citizen."""

    def __init__(self, game: BarcelonaGame):
        super().__init__(game)
        self.core = new_game(game.players, seed=game.seed, edition=game.edition)
        n = self.core.num_players
        self.dealt: list[list[int]] = [[] for _ in range(n)]
        self.to_deal = [q for q in range(n) for _ in range(self.core.hand_size(q))]
        pool = self.core.unseen_pool(0)
        self.undealt = [pool[k] + self.core.hand(0)[k] for k in range(HAND_CLASSES)]
        self.log: list[tuple[str, int, int | None, tuple[int, ...]]] = []

    def dealing(self) -> bool:
        """Whether the opening deal is still going on."""
        return bool(self.to_deal)

    def is_hidden_chance(self, viewer: int) -> bool:
        """Whether the chance node at hand deals or draws a citizen for a seat other than `viewer` (A6)."""
        if self.dealing():
            return self.to_deal[0] != viewer
        return self.core.is_hidden_draw(viewer)

    def current_player(self) -> int:
        if self.dealing():
            return pyspiel.PlayerId.CHANCE
        if self.core.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        p = self.core.current_player()
        return pyspiel.PlayerId.CHANCE if p == CHANCE else p

    def _legal_actions(self, player: int) -> list[int]:
        if self.dealing():
            return [a for a, _ in self.chance_outcomes()]
        return self.core.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.dealing():
            total = sum(self.undealt)
            return [(A_DRAW + k, c / total) for k, c in enumerate(self.undealt) if c > 0]
        return self.core.chance_outcomes()

    def _apply_action(self, action: Any) -> None:
        a = action_id(action)
        if self.dealing():
            self._deal(a)
            return
        mover = self.core.current_player()
        drawer = self.core.draws_for()
        seat = mover if drawer is None else drawer
        before = self.core.hand(seat) if seat != CHANCE else None
        text = self.core.action_to_string(a)
        self.core.apply(a)
        change = tuple(x - y for x, y in zip(self.core.hand(seat), before)) if before else (0,) * HAND_CLASSES
        self.log.append((text, mover, drawer, change))

    def _deal(self, a: int) -> None:
        """One citizen of the opening deal (R32) to the next seat; the hands are set once all are dealt."""
        k = a - A_DRAW
        if not (0 <= k < HAND_CLASSES and self.undealt[k] > 0):
            raise BarcelonaError(f"action: {a} is not a citizen the opening deal can give")
        q = self.to_deal.pop(0)
        self.undealt[k] -= 1
        self.dealt[q].append(k)
        self.log.append((f"deal {CLASS_LETTERS[k]}", CHANCE, q, tuple(int(j == k) for j in range(HAND_CLASSES))))
        if not self.to_deal:
            _give_opening_hands(self.core, self.dealt)

    def _action_to_string(self, player: int, action: Any) -> str:
        if self.dealing():
            return f"deal {CLASS_LETTERS[action_id(action) - A_DRAW]}"
        return self.core.action_to_string(action)

    def is_terminal(self) -> bool:
        return not self.dealing() and self.core.is_terminal()

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.core.num_players
        return list(self.core.returns())

    def own_hand(self, player: int) -> tuple[int, ...]:
        """`player`'s citizens by class: the dealt ones during the opening deal, else the core's hand."""
        if self.dealing():
            return tuple(self.dealt[player].count(k) for k in range(HAND_CLASSES))
        return self.core.hand(player)

    def resample_from_infostate(self, player_id: int, probability_sampler) -> "BarcelonaState":
        seed = int(probability_sampler() * 2**63) if callable(probability_sampler) else 0
        rng = random.Random(seed)
        hands = self._resampled_hands(player_id, seed, rng)
        out = BarcelonaState(self.get_game())
        for a in _consistent_history(self.history(), self.log, player_id, hands, rng):
            out.apply_action(a)
        return out

    def _resampled_hands(self, viewer: int, seed: int, rng: random.Random) -> dict[int, list[int]]:
        """Every other seat's hand (class counts) drawn from what `viewer` has not seen."""
        if not self.dealing():
            world = self.core.determinize(viewer, seed)
            return {q: list(world.hand(q)) for q in range(self.core.num_players) if q != viewer}
        unseen = [c for k in range(HAND_CLASSES)
                  for c in [k] * (self.undealt[k] + sum(d.count(k) for q, d in enumerate(self.dealt) if q != viewer))]
        rng.shuffle(unseen)
        out = {}
        for q, got in enumerate(self.dealt):
            if q != viewer:
                taken, unseen = unseen[:len(got)], unseen[len(got):]
                out[q] = [taken.count(k) for k in range(HAND_CLASSES)]
        return out

    def information_string(self, player: int) -> str:
        """`player`'s observation history (see the module docstring)."""
        lines = [f"P{player}"]
        for text, mover, drawer, _ in self.log:
            if drawer is not None and drawer != player:
                lines.append(f"chance: {text.split()[0]} (hidden)")
            else:
                lines.append(f"{'chance' if mover == CHANCE else 'P%d' % mover}: {text}")
        return "\n".join(lines)

    def observation_text(self, player: int) -> str:
        """`player`'s observation of the current position (see the module docstring)."""
        if self.dealing():
            return f"P{player} opening deal, dealt to you: " + " ".join(CLASS_LETTERS[k] for k in self.dealt[player])
        return json.dumps(self.core.observation(player), sort_keys=True, separators=(",", ":"))

    def __str__(self) -> str:
        if self.dealing():
            return "opening deal: " + "; ".join(f"P{q} " + " ".join(CLASS_LETTERS[k] for k in d)
                                                for q, d in enumerate(self.dealt))
        return str(self.core)


def _give_opening_hands(core: State, dealt: list[list[int]]) -> None:
    """Make the core's hands (dealt by new_game's seed) the dealt ones: citizens are swapped with the bag
    (State._hold), first moved out of the hands still to be set when the bag lacks them (State._pull_into_bag)."""
    n = core.num_players
    for q in range(n):
        want = [dealt[q].count(k) for k in range(HAND_CLASSES)]
        for k in range(HAND_CLASSES):
            while _bag(core)[k] + core.hand(q)[k] < want[k]:
                if not core._pull_into_bag(k, set(range(q + 1))):
                    raise BarcelonaError(f"opening deal: no {CLASS_LETTERS[k]} citizen is left for player {q}")
        core._hold(q, dealt[q])


def _bag(core: State) -> list[int]:
    """The bag by class (the unseen pool of seat 0 less the other hands)."""
    pool = core.unseen_pool(0)
    return [pool[k] - sum(core.hand(q)[k] for q in range(1, core.num_players)) for k in range(HAND_CLASSES)]


def _consistent_history(history: list[int], log: list, viewer: int, hands: dict[int, list[int]],
                        rng: random.Random) -> list[int]:
    """`history` with every citizen dealt to or drawn by a seat in `hands` rewritten: the citizens the seat
    placed come from its earliest deals and draws before each placement (in a random order), the rest are the
    seat's new hand (shuffled). The viewer's own citizens and everything public stay."""
    out = list(history)
    for q, hand in hands.items():
        slots = [i for i, entry in enumerate(log) if entry[2] == q]
        free = iter(slots)
        for i, (_, mover, drawer, change) in enumerate(log):
            if mover == q and drawer is None:
                placed = _removed(change)
                rng.shuffle(placed)
                for k in placed:
                    slot = next(free)
                    if slot > i:
                        raise BarcelonaError(f"resample: player {q} placed citizens it was never dealt")
                    out[slot] = A_DRAW + k
        rest = [k for k in range(HAND_CLASSES) for _ in range(hand[k])]
        rng.shuffle(rest)
        left = list(free)
        if len(left) != len(rest):
            raise BarcelonaError(f"resample: player {q} holds {len(rest)} citizens, not {len(left)}")
        for slot, k in zip(left, rest):
            out[slot] = A_DRAW + k
    return out


class BarcelonaObserver:
    """The PyObserver: the information state (perfect recall: the string only, `tensor` empty) or the
    observation (the string, and the tensor of barcelona_ai/adapters/observation.py with a view per block in `dict`)."""

    def __init__(self, perfect_recall: bool):
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(0 if perfect_recall else OBS_SIZE, np.float32)
        self.dict: dict = {}
        if not perfect_recall:
            start = 0
            for name, size in BLOCKS:
                self.dict[name] = self.tensor[start:start + size]
                start += size

    def set_from(self, state: BarcelonaState, player: int) -> None:
        if not self.perfect_recall:
            write_observation(self.tensor, state.core, player, state.own_hand(player))
            if state.dealing():
                self.dict["to_move"][:] = 0.0

    def string_from(self, state: BarcelonaState, player: int) -> str:
        if self.perfect_recall:
            return state.information_string(player)
        return state.observation_text(player)


pyspiel.register_game(_GAME_TYPE, BarcelonaGame)
