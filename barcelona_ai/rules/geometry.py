"""The geometry of the 5x5 street grid, pure math (rules-inventory §0): crossing (c,r) has index r*5+c; street
spaces V(c,r) = c*4+r (0..19), H(c,r) = 20+r*4+c (20..39), D(k) = 40+k; streets vertical c = 0..4, horizontal
r = 5..9, diagonal 10; building spaces by block rows then columns, a diagonal block giving two corner spaces."""
from __future__ import annotations

from typing import Any

GRID = 5                      # crossings per side; the action-id space is built for this grid
NUM_CROSSINGS = GRID * GRID
NUM_SPACES = 44


def crossing_index(c: int, r: int) -> int:
    return r * GRID + c


def space_name(s: int) -> str:
    if s < 20:
        return f"V({s // 4},{s % 4})"
    if s < 40:
        return f"H({(s - 20) % 4},{(s - 20) // 4})"
    return f"D({s - 40})"


SPACE_INDEX = {space_name(s): s for s in range(NUM_SPACES)}


def space_ends(s: int) -> tuple[int, int]:
    """The two crossings a street space joins."""
    if s < 20:
        c, r = s // 4, s % 4
        return crossing_index(c, r), crossing_index(c, r + 1)
    if s < 40:
        c, r = (s - 20) % 4, (s - 20) // 4
        return crossing_index(c, r), crossing_index(c + 1, r)
    k = s - 40
    return crossing_index(k, k), crossing_index(k + 1, k + 1)


def space_street(s: int) -> tuple[int, int]:
    """(street, position along it): vertical c = 0..4, horizontal r = 5..9, diagonal = 10."""
    if s < 20:
        return s // 4, s % 4
    if s < 40:
        return 5 + (s - 20) // 4, (s - 20) % 4
    return 10, s - 40


def building_spaces() -> list[dict[str, Any]]:
    """The 20 building spaces with their crossings, block, block row and kind."""
    out = []
    for j in range(4):
        for i in range(4):
            corners = [crossing_index(i, j), crossing_index(i + 1, j), crossing_index(i, j + 1),
                       crossing_index(i + 1, j + 1)]
            block = j * 4 + i
            if i == j:
                k = i
                out.append({"name": f"NE({k})", "corner": 1, "block": block, "row": j,
                            "crossings": [crossing_index(k, k), crossing_index(k + 1, k),
                                          crossing_index(k + 1, k + 1)]})
                out.append({"name": f"SW({k})", "corner": 1, "block": block, "row": j,
                            "crossings": [crossing_index(k, k), crossing_index(k, k + 1),
                                          crossing_index(k + 1, k + 1)]})
            else:
                out.append({"name": f"B({i},{j})", "corner": 0, "block": block, "row": j,
                            "crossings": corners})
    return out
