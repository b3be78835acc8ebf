"""The game log a person can follow: one line a move, and one line for each thing that happens by itself between
moves, read from the public part of two states (before and after an entry), so that a seat's log shows nothing
that seat cannot see (A6).

* A move is written with the VP it gave its player, not counting what a scoring gave everyone at the same moment
  (the Cerdà Scoring at the end of a turn, R107-R109; the final scoring, R124).
* A Cerdà Scoring is its own line: ``Cerdà Scoring of section 2 (Cobblestones placed): P0 +30, P1 +12``; the disks
  going back to the start after the 1st and 2nd (R110) and the Modernisme display discarded and refilled
  (R111; the discards shuffled into a new stack when it runs out, R73) are explained on the lines after it.
* The end of the game writes the final scoring by source (R124).
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass

from ..core import CONSTANTS as C
from ..core import SOURCES, State
from .tables import CONDITIONS
from .words import condition_name, tile_names

SCORING_SOURCES = ("cerda_scoring",)
FINAL_SOURCES = ("final_cobblestones", "final_passengers", "final_modernisme")
FINAL_WORDS = {"final_cobblestones": "cobblestones", "final_passengers": "passengers",
               "final_modernisme": "Modernisme tiles"}
CLASS_LETTERS = ("W", "M", "U")


@dataclass(frozen=True)
class LogLine:
    """One line of the log: after record entry `index`; `player` whose move or draw it is (None for what
    happens by itself); `event` for a scoring or a refresh."""
    index: int
    player: int | None
    text: str
    event: bool = False
    round: int | None = None            # the round the entry was played in


def _default_name(p: int) -> str:
    return f"P{p}"


def _source_gain(before, after, p: int, names: tuple[str, ...]) -> int:
    idx = [SOURCES.index(n) for n in names]
    return sum(after.players[p].vp_sources[i] - before.players[p].vp_sources[i] for i in idx)


def move_gain(before: State, after: State, p: int) -> int:
    """VP player p gained from one entry, less what a Cerdà Scoring or the final scoring gave."""
    b, a = before.view(), after.view()
    return a.players[p].score - b.players[p].score - _source_gain(b, a, p, SCORING_SOURCES + FINAL_SOURCES)


def _tile_names(state: State) -> tuple[list[str], list[str]]:
    """(tile names 'Cobblestones placed' by condition id, Modernisme tile names by tile index; words.py)."""
    t = state.game_data.edition.t
    return [condition_name(CONDITIONS[k]) for k in t["cond_kind"]], tile_names(t)


def _scoring_lines(b, a, state: State, name) -> list[str]:
    conds, _ = _tile_names(state)
    out = []
    for k in range(len(a.cerda_scored)):
        if a.cerda_scored[k] and not b.cerda_scored[k]:
            gains = ", ".join(f"{name(p)} {_source_gain(b, a, p, SCORING_SOURCES):+d}"
                              for p in range(a.num_players))
            out.append(f"Cerdà Scoring of section {k + 1} ({conds[a.cerda_tiles[k]]}): {gains}")
            if a.cerda_scorings_done <= 2 and not a.end_triggered:
                out.append("Cerdà track disks beyond the starting position go back to it")
            if k == len(a.cerda_scored) - 1 or a.end_triggered and not b.end_triggered:
                out.append("That was the last section: play continues until all players have played the same "
                           "number of turns, then the game ends")
    return out


def _display_lines(b, a, state: State) -> list[str]:
    _, mod = _tile_names(state)
    out = []
    gone = [i for i in b.modernisme_display if i not in a.modernisme_display and i in a.modernisme_discard]
    if len(gone) > 1 or (gone and a.reveal_pending > 1):
        out.append(f"The Modernisme tiles on display are discarded ({', '.join(mod[i] for i in gone)}) and "
                   f"{a.reveal_pending} new tiles revealed after the scoring")
    if len(a.modernisme_discard) < len(b.modernisme_discard) and not gone:
        out.append("The Modernisme stack ran out: the discarded tiles are shuffled into a new stack")
    return out


def _final_lines(b, a, name) -> list[str]:
    out = []
    for p in range(a.num_players):
        parts = [(FINAL_WORDS[s], _source_gain(b, a, p, (s,))) for s in FINAL_SOURCES]
        total = sum(v for _, v in parts)
        detail = ", ".join(f"{w} {v}" for w, v in parts if v)
        out.append(f"{name(p)} {total:+d}" + (f" ({detail})" if detail else ""))
    return ["Final scoring: " + "; ".join(out)]


def events(before: State, after: State, name=_default_name) -> list[str]:
    """What happened by itself between `before` and `after` (one entry apart): Cerdà Scorings, the display
    refresh, the end of the game. Public information only."""
    b, a = before.view(), after.view()
    out = _scoring_lines(b, a, after, name) + _display_lines(b, a, after)
    if after.is_terminal() and not before.is_terminal():
        out += _final_lines(b, a, name)
    return out


def entry_lines(before: State, entry: dict, after: State, index: int, seat: int | None,
                name=_default_name) -> list[LogLine]:
    """The log lines of record entry `index` (played from `before` to `after`) as `seat` sees it: the move or
    the chance outcome, then the events. Another player's draw is written without its citizen (A6)."""
    a_id = entry.get("id")
    if before.is_chance_node():
        if a_id is None or C["A_DRAW"] <= a_id < C["A_REVEAL"]:
            p = before.turn_player
            seen = a_id is not None and seat in (None, p)
            text = f"draws {CLASS_LETTERS[a_id - C['A_DRAW']]}" if seen else "draws a citizen"
            lines = [LogLine(index, p, text)]
        else:
            lines = [LogLine(index, None, entry.get("move", ""))]
    else:
        p = before.current_player()
        gain = move_gain(before, after, p)
        lines = [LogLine(index, p, entry.get("move", "") + (f" ({gain:+d} VP)" if gain else ""))]
    rnd = before.view().round_number
    lines = [LogLine(ln.index, ln.player, ln.text, ln.event, rnd) for ln in lines]
    return lines + [LogLine(index, None, text, True, rnd) for text in events(before, after, name)]


def changes(before: State, after: State, label: str = "changed since your last turn") -> dict:
    """What changed on the street grid from `before` to `after` (render_state's last-move markers): the
    crossings (citizens, Intersections), street spaces (tiles, Passengers, Trams) and building spaces (level,
    markers). Public information only."""
    b, a = before.view(), after.view()
    trams_b = {pl.tram for pl in b.players}
    trams_a = {pl.tram for pl in a.players}
    crossings = {c for c in range(len(a.crossings))
                 if a.crossings[c] != b.crossings[c] or a.intersections[c] != b.intersections[c]}
    spaces = {sp for sp in range(len(a.streets))
              if a.streets[sp] != b.streets[sp] or a.passengers[sp] != b.passengers[sp]
              or (sp in trams_a) != (sp in trams_b)}
    buildings = {bs for bs in range(len(a.building_levels))
                 if a.building_levels[bs] != b.building_levels[bs]
                 or a.building_markers[bs] != b.building_markers[bs]}
    return {"crossings": crossings, "spaces": spaces, "buildings": buildings, "label": label}


def summary(lines: list[LogLine], name=_default_name, width: int = 100) -> list[str]:
    """Log lines as a short text: a player's consecutive moves and draws on one line, the reveals in a row on
    one line, each event on its own ('* ...')."""
    out: list[str] = []
    who, parts = None, []

    def flush():
        if parts:
            head = f"{name(who)}: " if who is not None else "Modernisme display: "
            out.append(head + ("; " if who is not None else ", ").join(parts))

    for ln in lines:
        if ln.event:
            flush()
            who, parts = None, []
            out.append("* " + ln.text)
            continue
        if ln.player != who:
            flush()
            who, parts = ln.player, []
        parts.append(ln.text)
    flush()
    return [w for x in out for w in textwrap.wrap(x, width, subsequent_indent="    ", break_on_hyphens=False)]


__all__ = ["LogLine", "move_gain", "events", "entry_lines", "summary", "changes", "SCORING_SOURCES",
           "FINAL_SOURCES"]
