"""The forecast calibration: the last step between the search's forecasts and the numbers a person reads (issue #10).

The value network is calibrated on the rows it was trained on (its `win_power`), but what `analyse` and `hints`
show is the search's average of the network's forecasts under the engine's best move, at a budget, in the games
of the engine that plays now. Those numbers drift when the engine changes: on 100 games of the 4-player default
since 2026-11-27 they were overconfident early (Brier skill below the 1/n forecast's in the first third) and the
expected final scores 14 VP low (README, Forecasts). A calibration is fitted on games of the engine itself, none
of which are test games, by round of the game (`State.round_number`, which every player sees):

- win probabilities: every seat's forecast to the power `win_power[round]`, normalised over the seats (below 1
  spreads them towards 1/n, above 1 sharpens them; the power with the lowest Brier score on the round's rows);
- expected final scores: the forecast plus `score_shift[round]` (the median of what happened minus what was
  forecast on the round's rows), never below the seat's current score.

A table holds for the search settings it was fitted with (`engine`, SearchSettings as the player count resolves
them, budget aside; the model and turn policy files by their contents): any other setting (another leaf, another
model file, v0) shows its own forecasts. The shipped file is data/forecast-calibration.json, written by
`barcelona-ai calibrate` (train.calibrate; docs/learned-evaluation.md); it holds no table since the sixteenth
session (every default shows its search's own numbers: README, Forecasts), and calibration=FILE reads one's own.
Nothing read is hidden: the round and the forecasts are public to every seat.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .errors import BarcelonaError
from .jsonio import load_json_file

FORMAT = "barcelona-forecast-calibration"
VERSION = 1
SHIPPED = Path(__file__).with_name("data") / "forecast-calibration.json"
MAX_ROUNDS = 40
PLAYER_KEYS = ("2", "3", "4")              # the file's player counts


@dataclass(frozen=True)
class CalibrationTable:
    """One player count's calibration: per round (index round_number - 1; later rounds use the last entry)."""
    engine: dict                    # the search settings it was fitted for
    win_power: tuple[float, ...]
    score_shift: tuple[float, ...]

    def stage(self, round_number: int) -> int:
        return min(max(round_number - 1, 0), len(self.win_power) - 1)

    def apply(self, round_number: int, current: list[int], win: list[float], expected: list[float]
              ) -> tuple[list[float], list[float]]:
        """The calibrated (win probabilities, expected final scores) of one position's forecasts."""
        k = self.stage(round_number)
        raised = [max(w, 1e-3) ** self.win_power[k] for w in win]     # as train.normalised_win
        total = sum(raised)
        return ([r / total for r in raised],
                [max(float(c), e + self.score_shift[k]) for c, e in zip(current, expected)])

    def to_dict(self) -> dict:
        return {"engine": self.engine, "win_power": list(self.win_power), "score_shift": list(self.score_shift)}


class ForecastCalibration:
    """The calibration tables of a file, by player count. ForecastCalibration.load(path) or .default() (the
    shipped one); table(players, engine) is the table for those search settings, or None."""

    def __init__(self, doc: dict, source: str = "forecast calibration"):
        if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != VERSION:
            raise BarcelonaError(f"{source}: format and version must be {FORMAT!r} and {VERSION}")
        tables = doc.get("players")
        if not isinstance(tables, dict) or not set(tables) <= set(PLAYER_KEYS):
            raise BarcelonaError(f'{source}: players must map "2", "3", "4" to calibration tables')
        self.tables = {int(n): _table(t, f"{source}: players.{n}") for n, t in tables.items()}
        fitted = doc.get("fitted", {})
        self.fitted = dict(fitted) if isinstance(fitted, dict) else {}

    @classmethod
    def load(cls, path) -> "ForecastCalibration":
        """A calibration file (JSON, as `barcelona-ai calibrate` writes it); errors name the file."""
        try:
            doc = load_json_file(path, "forecast calibration")
        except BarcelonaError as exc:
            raise BarcelonaError(f"{path}: {exc}") from None
        return cls(doc, str(path))

    @classmethod
    def default(cls) -> "ForecastCalibration":
        return cls.load(SHIPPED)

    def table(self, players: int, engine: dict) -> CalibrationTable | None:
        """The table fitted for `players` and exactly these search settings (None: the numbers stay the
        search's own)."""
        t = self.tables.get(players)
        return t if t is not None and t.engine == engine else None

    def to_dict(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "fitted": self.fitted,
                "players": {str(n): t.to_dict() for n, t in sorted(self.tables.items())}}

    def to_json(self) -> str:
        """The file's text (what `barcelona-ai calibrate` writes)."""
        return json.dumps(self.to_dict(), indent=1) + "\n"


def _table(doc, where: str) -> CalibrationTable:
    if not isinstance(doc, dict):
        raise BarcelonaError(f"{where} must be an object")
    if not isinstance(doc.get("engine"), dict):
        raise BarcelonaError(f"{where}.engine must be an object (the search settings it was fitted for)")
    rows = []
    for key, lo, hi in (("win_power", 0.05, 20.0), ("score_shift", -200.0, 200.0)):
        v = doc.get(key)
        if not isinstance(v, list) or not 1 <= len(v) <= MAX_ROUNDS or not all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and lo <= x <= hi for x in v):
            raise BarcelonaError(f"{where}.{key} must be a list of 1..{MAX_ROUNDS} numbers in [{lo}, {hi}]")
        rows.append(tuple(float(x) for x in v))
    if len(rows[0]) != len(rows[1]):
        raise BarcelonaError(f"{where}: win_power and score_shift must have one entry per round")
    return CalibrationTable(engine=doc["engine"], win_power=rows[0], score_shift=rows[1])
