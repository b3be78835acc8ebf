"""What the web board offers the seat of a real table (``mode: "table"``) beside the legal choices: the picker of
another player's placement (the crossings it may take, how many citizens it places and the classes they may be),
the words of a draw or a reveal to choose from, a refused placement's reason in the rules' words, and the likely
move of another player, proposed for the seat to confirm.

Hidden information (A6): everything here is computed from the seat's view. The classes another player may hold
are those the seat has not seen (State.unseen_pool); the proposal searches determinizations of the seat's
observation (State.determinize, its seeds drawn from that observation) with engines of fixed seeds, so that two
positions the seat cannot tell apart get the same proposal. Which crossings a placement may take does not depend
on the classes placed, only on the board and the player's Coins.
"""
from __future__ import annotations

from ..core import CONSTANTS as C
from ..core import State
from ..errors import InvalidRecordError
from ..rules.explain import preview, why_illegal
from ..rules.notation import CLASS_LETTERS, parse_placement
from ..rules.record import give_hand
from ..rules.tables import CONDITIONS
from ..rules.words import condition_text, tile_names
from ..search.engine import Engine, Limit
from ..search.running import mix_seed
from ..workflows.session import CLASS_NAMES, other_placement

__all__ = ["placement_picker", "placement_orders", "choice_words", "placement_refusal", "proposal",
           "PROPOSAL_SEARCHES", "PROPOSAL_ITERATIONS"]

PROPOSAL_SEARCHES = 4          # independent searches of a proposal, each on its own determinization and seed
PROPOSAL_ITERATIONS = 300      # ISMCTS iterations of each: the four take some 0.05 s of one core
PROPOSAL_SEED = 0x7AB1E        # the seed the determinizations' seeds are drawn from (with the seat's observation)
_SEED_BITS = 2 ** 63 - 1


def _crossing(a: int) -> int:
    return (a - C["A_PLACE"]) // 3


def _crossing_name(c: int) -> str:
    return f"({c % 5},{c // 5})"


def placement_picker(state: State, seat: int) -> dict:
    """Another player's placement as the seat enters it: that player, the citizens it places (its hand's size),
    the crossings it may take, and the citizens the seat has not seen by class (what the placed ones may be)."""
    p = state.current_player()
    pool = state.unseen_pool(seat)
    crossings = sorted({_crossing(a) for a in state.legal_actions() if a < C["A_INT_PICK"]})
    return {"player": p, "citizens": state.hand_size(p), "crossings": crossings,
            "unseen": {CLASS_LETTERS[k]: pool[k] for k in range(3)},
            "classes": [CLASS_LETTERS[k] for k in range(3) if pool[k] > 0]}


def placement_orders(unseen: list[int], citizens: int) -> list[tuple[int, ...]]:
    """The (top, bottom) classes (one class for one citizen) that `citizens` placed citizens may be, of the
    `unseen` citizens by class."""
    if citizens < 2:
        return [(k,) for k in range(3) if unseen[k] > 0]
    return [(t, b) for t in range(3) for b in range(3) if unseen[t] > 0 and unseen[b] > (t == b)]


def choice_words(state: State, a: int, waiting: str) -> dict:
    """The words a picker shows for a choice of the seat's own draw (the class) or of a reveal (the tile's name
    and printed condition); nothing for other choices."""
    if waiting == "draw":
        return {"name": f"{CLASS_NAMES[a - C['A_DRAW']]} citizen"}
    if waiting == "reveal" and a >= C["A_REVEAL"]:
        t = state.game_data.edition.t
        tile = a - C["A_REVEAL"]
        cond = t["mod_cond"][tile]
        return {"name": tile_names(t)[tile], "text": condition_text(CONDITIONS[t["cond_kind"][cond]],
                                                                      t["cond_vp"][cond])}
    return {}


def placement_refusal(state: State, seat: int, entry: dict) -> str | None:
    """Why another player's placement `entry` (Session.other_placement_entry) cannot be entered, in the rules'
    words ("'place (2,2) W/M' cannot be played now: crossing (2,2) costs 1 Coin; P1 has 0"); None if it can."""
    placed = parse_placement(entry["move"])
    if placed is None:
        return None
    s = state.clone()
    classes = [k for k in placed[2:] if k is not None]
    what = f"'{entry['move']}' cannot be played now"
    try:
        give_hand(s, s.current_player(), classes, seat)
    except InvalidRecordError as exc:
        return f"{what}: {exc}"
    if entry["id"] not in s.legal_actions():
        return f"{what}: {why_illegal(s, entry['id'])}"
    return None


def proposal(state: State, seat: int) -> dict | None:
    """The likely move of the player who decides now at a real table, when it is not the seat and the choice is
    forced or clear: {"player", "move", "id", "why"} (and "citizens" for a placement whose classes the seat must
    still enter: its "move" names the crossing only, its "id" is None); None otherwise.

    Forced: a placement with one crossing and one way to be made of the citizens the seat has not seen. Clear:
    PROPOSAL_SEARCHES searches of PROPOSAL_ITERATIONS iterations, each on its own determinization of the seat's
    view and with its own seed, all choose the same move (for a placement, the same crossing)."""
    if state.is_terminal() or state.is_chance_node() or state.current_player() == seat:
        return None
    p = state.current_player()
    placing = other_placement(state, seat)
    picker = placement_picker(state, seat) if placing else None
    orders = placement_orders(state.unseen_pool(seat), picker["citizens"]) if placing else []
    if placing and len(picker["crossings"]) == 1 and len(orders) == 1 and \
            not any(a >= C["A_INT_PICK"] for a in state.legal_actions()):
        return _placement(p, picker["crossings"][0], orders, f"the only placement P{p} can make")
    base = mix_seed(PROPOSAL_SEED, state.observation_hash(seat))
    picks, first = set(), None
    for i in range(PROPOSAL_SEARCHES):
        d = state.determinize(seat, mix_seed(base, i) & _SEED_BITS)
        a = Engine(seed=i, reuse_tree=False).best_move(d, Limit(iterations=PROPOSAL_ITERATIONS), viewpoint=p)
        picks.add(("crossing", _crossing(a)) if placing and a < C["A_INT_PICK"] else ("move", a))
        first = d if first is None else first
        if len(picks) > 1:
            return None
    (kind, value), = picks
    searches = f"in each of {PROPOSAL_SEARCHES} searches ({PROPOSAL_ITERATIONS} iterations each) of what you can see"
    if kind == "crossing":
        return _placement(p, value, orders, f"the engine chooses this crossing for P{p} {searches}")
    if value not in state.legal_actions():
        return None
    return {"player": p, "move": state.action_to_string(value), "id": value,
            "why": f"{preview(first, value)}; the engine chooses it for P{p} {searches}"}


def _placement(p: int, c: int, orders: list[tuple[int, ...]], why: str) -> dict:
    """A placement proposed at crossing c: whole when the placed citizens can be of one order only, else the
    crossing, its citizens for the seat to enter."""
    where = f"place {_crossing_name(c)}"
    if len(orders) == 1:
        move = f"{where} " + "/".join(CLASS_LETTERS[k] for k in orders[0])
        return {"player": p, "move": move, "id": C["A_PLACE"] + c * 3 + orders[0][0], "crossing": c,
                "why": f"{why}; the citizens can only be {move.split()[-1]}"}
    return {"player": p, "move": where, "id": None, "crossing": c, "citizens": len(orders[0]),
            "why": f"{why}; which citizens they placed is yours to enter"}
