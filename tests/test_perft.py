"""perft golden numbers (tests/data/perft.txt) and hand-derived counts at the start of a game."""
from pathlib import Path

import pytest

from barcelona_ai import CONSTANTS as C
from barcelona_ai.rules.perft import divide, perft_position

DATA = Path(__file__).parent / "data" / "perft.txt"


def cases():
    out, cur = [], None
    for line in DATA.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        key, *rest = line.split()
        if key == "id":
            cur = {"id": rest[0], "perft": []}
            out.append(cur)
        elif key == "pos":
            cur["pos"] = (int(rest[0]), int(rest[1]), int(rest[2]), rest[3], rest[4])
        elif key == "perft":
            cur["perft"].append((int(rest[0]), int(rest[1])))
    return out


@pytest.mark.parametrize("case", cases(), ids=lambda c: c["id"])
def test_perft_golden(case):
    s = perft_position(*case["pos"])
    for depth, expected in case["perft"]:
        got = s.perft(depth)
        if got != expected:
            detail = {s.action_to_string(a): n for a, n in divide(s, depth).items()}
            pytest.fail(f"{case['id']} perft {depth}: {got} != {expected}; divide: {detail}")


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (4, 7), (4, 8)])
def test_first_decision_by_hand(players, seed):
    """R37/R38: the first player places 2 citizens on any of the 25 empty crossings; with 1 coin every printed
    cost (1 coin on the diagonal, §4.2) is affordable; two different classes give 2 orders, a pair gives 1."""
    s = perft_position(players, seed, 0, "random")
    hand = s.hand(0)
    orders = sum(1 for k in range(3) if hand[k] > 0)
    assert s.perft(1) == 25 * orders
    assert all(C["A_PLACE"] <= a < C["A_INT_PICK"] for a in s.legal_actions())
