"""A typed, read-only view of a game state for Python code: ``State.view()`` and its parts.

The core (core.pyx) builds these objects directly from its C struct; nothing here knows the struct's layout, and
no field is a raw C value: "none" (-1 in C) is ``None``, a bit mask is a tuple of the ids whose bit is set
(ascending), a flag is a ``bool``. Every view is a ``NamedTuple`` of ints, bools, ``None`` and tuples, so it is
immutable, hashable and compares by value. Ids are those of the rest of the package: citizen classes 0..2 (W, M,
U, ``tables.CLASSES``), crossings ``r*5+c``, street spaces and Sidewalk spaces as in ``tables``, action-tile and
grant kinds ``tables.GRANT_KINDS``, scoring conditions, Modernisme and Sagrada tiles and Public Service types as
indices into the edition's tables, building spaces ``tables.BUILDING_SPACES`` order, VP sources ``core.SOURCES``.

Hidden information (A6): ``State.view(viewpoint=p)`` holds only what seat p may know. The other players' hands are
``None`` (their sizes stay, ``hand_size``), the bag is ``None`` and ``unseen_pool`` holds what p has not seen (the
bag plus those hands). Two states that differ only in what p cannot see give equal views for p. ``State.view()``
(no viewpoint) is the whole state: every hand, the bag, and ``unseen_pool`` None.

This module is below the core (tests/test_layers.py): it imports nothing of the package.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

__all__ = ["PHASE_NAMES", "FRAME_KIND_NAMES", "STREET_DIRECTIONS", "FrameView", "PlayerView", "StateView"]

# The phase of a turn, by core.pxd PH_* value (PH_PLACE = 0 ... PH_OVER = 6).
PHASE_NAMES = ("place", "actions", "build", "end", "refresh", "draw", "over")
# The kind of a frame, by core.pxd FR_* value (FR_EFFECTS = 1 ... FR_INT_PICK = 8).
FRAME_KIND_NAMES = {1: "effects", 2: "grant", 3: "narrow2", 4: "passenger", 5: "sagrada", 6: "sag_tile", 7: "res",
                    8: "int_pick"}
# The three street actions a turn may take (StateView.streets_used), by id.
STREET_DIRECTIONS = ("vertical", "horizontal", "diagonal")


class FrameView(NamedTuple):
    """One frame of the turn's stack: a piece of a turn that waits for a decision or resumes by itself
    (core.pxd FR_*). ``a`` and ``b`` mean, by kind: effects - ``a`` the next effect of list ``effect_list`` (``b``
    the building space of a marker effect); grant - ``a`` the grant kind; passenger - ``a`` the street space of the
    Tram, ``b`` 1 when the coin is waived; sagrada - ``a`` optional steps left; sag_tile - ``a`` the level, ``b``
    the slot; res - ``a`` resources to split; int_pick - ``a`` picks left, ``b`` the mask of slots taken. The
    fields a kind does not use are 0."""
    kind: int                   # FR_* value
    kind_name: str              # FRAME_KIND_NAMES[kind]
    player: int                 # the seat that decides or receives
    a: int
    b: int
    source: int                 # VP source (core.SOURCES index) of VP an effect list gives
    effect_list: int            # effect list id (effects frames; 0 otherwise)


class PlayerView(NamedTuple):
    """One player's board and pieces."""
    seat: int
    score: int                              # VP so far
    vp_sources: tuple[int, ...]             # the same VP split by source, core.SOURCES order
    coins: int                              # Coins in the Warehouse
    cloth: int                              # Cloth in the Warehouse
    cobblestones: int                       # Cobblestones taken out of the Warehouse, 0..6
    intersections: int                      # Intersections built, 0..5
    narrow_laid: int                        # Narrow street tiles laid
    wide_laid: int                          # Wide street tiles laid
    passengers: int                         # Passengers placed, 0..5
    tram: Optional[int]                     # street space of the Tram; None while on the player board
    markers_placed: int                     # Building markers placed, 0..8
    cerda: int                              # Cerda track index
    sagrada: int                            # Sagrada track index
    modernisme: tuple[Optional[int], ...]   # the Modernisme tile on each of the 5 project spaces, None empty
    modernisme_up: tuple[bool, ...]         # whether each project space's marker is at the top
    sagrada_tiles: tuple[Optional[int], ...]  # the Sagrada tile in each of the 3 slots, None empty
    public_services: tuple[int, ...]        # Public Service types built
    hand: Optional[tuple[int, int, int]]    # citizens held by class (W, M, U); None when hidden from the viewer
    hand_size: int                          # citizens held (always known)
    turns: int                              # turns completed


class StateView(NamedTuple):
    """The whole table at one moment, as seen by ``viewpoint`` (None: everything)."""
    viewpoint: Optional[int]                # the seat this view is for; None for the full state
    num_players: int                        # 2..4; seat 0 is the first player
    turn_player: int                        # the seat whose turn it is (not always who decides: see current_player)
    current_player: int                     # who decides now: a seat, core CHANCE (-1) or TERMINAL (-4)
    phase: int                              # core.pxd PH_* value
    phase_name: str                         # PHASE_NAMES[phase]
    # -- the city
    action_tiles: tuple[int, ...]           # the action tile (grant kind 0..10) at the end of each of the 11 streets
    crossings: tuple[tuple[int, ...], ...]  # per crossing, the citizen classes on it, bottom first (() empty)
    intersections: tuple[Optional[int], ...]  # per crossing, the owner of its Intersection, None none
    streets: tuple[Optional[int], ...]      # per street space, the owner of its Street tile, None none
    passengers: tuple[Optional[int], ...]   # per street space, the owner of the Passenger on it, None none
    building_levels: tuple[int, ...]        # per building space: 0 empty, 1..3 Level, 4 Corner
    building_markers: tuple[tuple[int, ...], ...]  # per building space, the owners of its markers, bottom first
    building_tiles_left: tuple[int, ...]    # Building tiles left: corner, L1, L2, L3
    bonus_rows_taken: tuple[int, ...]       # block rows whose Building Bonus was taken
    # -- citizen tracks, Cerda, Modernisme, Public Services, Sagrada, Sidewalk, bag
    tracks: tuple[tuple[int, ...], ...]     # per class, the occupied spaces of its citizen track
    tracks_off_board: tuple[int, ...]       # per class, citizens placed beside a full track
    cerda_tiles: tuple[int, ...]            # the scoring condition of each section's Cerda Scoring tile
    cerda_scored: tuple[bool, ...]          # whether each section was scored
    cerda_scorings_done: int                # Cerda Scorings done
    modernisme_stack: tuple[int, ...]       # Modernisme tiles face down
    modernisme_display: tuple[int, ...]     # the face-up offer
    modernisme_discard: tuple[int, ...]     # discarded face up
    public_services_left: tuple[Optional[int], ...]  # tiles left per Public Service type, None not in play
    sagrada_offer: tuple[int, ...]          # Sagrada tiles still in the offer
    sidewalk: tuple[int, ...]               # occupied Sidewalk spaces (printed ones included)
    bag: Optional[tuple[int, int, int]]     # citizens in the bag by class; None in a view for a viewpoint
    unseen_pool: Optional[tuple[int, int, int]]  # for a viewpoint: the bag plus the other hands; None otherwise
    players: tuple[PlayerView, ...]         # one per seat
    # -- the turn in progress
    place_crossing: Optional[int]           # the crossing used this turn, None before the placement
    streets_used: tuple[int, ...]           # street actions taken this turn (STREET_DIRECTIONS ids)
    frames: tuple[FrameView, ...]           # the frame stack, bottom first (the last one acts next)
    discard_player: Optional[int]           # the seat whose Warehouse overflowed, None none
    reveal_pending: int                     # Modernisme reveals owed to the display (chance)
    refresh_pending: int                    # display refreshes owed after scorings
    draws_left: int                         # citizens still to draw this turn (chance)
    activity: bool                          # something was placed, built or drawn this round
    end_triggered: bool                     # the last section was scored: the game ends after this round

    @property
    def top_frame(self) -> Optional[FrameView]:
        """The frame that acts next, None when the stack is empty."""
        return self.frames[-1] if self.frames else None

    @property
    def round_number(self) -> int:
        """The round being played, from 1: one more than the fewest turns any player has completed."""
        return min(pl.turns for pl in self.players) + 1
