"""What a player reads names the game's components in the game's words (rules/words.py): no internal enum name
(``INTERSECTION_ADJ3``, ``cerda_scoring``), no data-file code without its text (``SC05``), no frame or phase
name, no action id and no rule number of the inventory (R12, A6), over seeded games of 2, 3 and 4 players: the
text board, the notation of every legal move, the game log, the web board's picture, and (slow) the output of
``play``, ``table``, ``hint``, ``analyse``, ``review``, ``show`` and ``demo``."""
from __future__ import annotations

import html
import json
import random
import re
import subprocess
import sys

import pytest

from barcelona_ai import new_game
from barcelona_ai.rules.gamelog import entry_lines
from barcelona_ai.rules.notation import legal_strings
from barcelona_ai.rules.render import decision_words, render_state
from barcelona_ai.web.board_svg import board_svg

from helpers import transcribe

INTERNAL = {
    "an enum name": re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b"),
    "a snake_case name": re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b"),
    "a tile code": re.compile(r"\bSC\d\d\b"),
    "a frame or phase": re.compile(r"\b(frame|phase)\b", re.I),
    "an action id": re.compile(r"\b(id|action) \d+\b"),
    "a rule number": re.compile(r"\b[RA]\d{1,3}\b"),
}
ALLOWED = {"barcelona_ai"}           # the package's name, as `--version` and the engine line print it


def internal_words(text: str) -> list[str]:
    """What `text` shows that a player never reads, as 'kind: word'."""
    found = []
    for kind, pattern in INTERNAL.items():
        found += [f"{kind}: {m.group(0)}" for m in pattern.finditer(text) if m.group(0) not in ALLOWED]
    return sorted(set(found))


def test_the_scanner_finds_what_it_looks_for():
    text = "take SC05 -> project 3; INTERSECTION_ADJ3; cerda_scoring 4; phase place; id 331; R127 and A6"
    assert len(internal_words(text)) == 7
    assert internal_words("take Intersections by 3 Buildings -> project 3 (r2c5, B(1,0), L2, barcelona_ai)") == []


def _svg_text(svg: str) -> str:
    """The words an SVG shows: its text and its tooltips, without the markup."""
    return html.unescape(re.sub(r"<[^>]+>", " ", svg))


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (4, 3)])
def test_board_notation_log_and_picture_speak_the_games_words(players, seed):
    s = new_game(players=players, seed=seed)
    rng = random.Random(seed)
    seen: dict[str, str] = {}
    step = 0
    while not s.is_terminal():
        texts = [decision_words(s), *legal_strings(s).values()]
        if step % 7 == 0:                          # the whole board now and then (it is the slow part)
            texts += [render_state(s), _svg_text(board_svg(s, viewpoint=s.current_player() if
                                                           s.current_player() >= 0 else None))]
        before = s.clone()
        a = rng.choice(s.legal_actions())
        entry = {"id": a, "move": s.action_to_string(a), "by": s.current_player()}
        s.apply(a)
        texts += [line.text for line in entry_lines(before, entry, s, step, 0)]
        for text in texts:
            for word in internal_words(text):
                seen.setdefault(word, text[:200])
        step += 1
    texts = [render_state(s), _svg_text(board_svg(s))]
    for text in texts:
        for word in internal_words(text):
            seen.setdefault(word, text[:200])
    assert not seen, seen


def _cli(args, lines=(), cwd=None):
    p = subprocess.run([sys.executable, "-m", "barcelona_ai", *map(str, args)], cwd=cwd,
                       input="".join(f"{line}\n" for line in lines), capture_output=True, text=True, timeout=900)
    return p.stdout + p.stderr


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_commands_speak_the_games_words(players, tmp_path):
    """A whole game of `play` (hints, eval, the board, bad input) and of `table` (every seat's move typed), then
    hint, analyse and show on a position of that game, review and show of a self-play record, and the demo."""
    outputs = {}
    outputs["play"] = _cli(["play", "--players", players, "--seat", 0, "--seed", players, "--iterations", 20],
                           ["?", "eval", "board", "help", "hello", "gain 2 coins"] + ["1"] * 800, cwd=tmp_path)
    lines, _ = transcribe(new_game(players=players, seed=players), 0, random.Random(players + 100))
    outputs["table"] = _cli(["table", "--players", players, "--seed", players, "--iterations", 10],
                            ["?", "eval"] + lines)
    s = new_game(players, seed=players)
    rng = random.Random(players)
    for _ in range(60):
        s.apply(rng.choice(s.legal_actions()))
    while s.is_chance_node():
        s.apply(rng.choice(s.legal_actions()))
    pos = tmp_path / "position.json"
    pos.write_text(json.dumps(s.to_json()))
    for cmd in ("hint", "analyse"):                # files named from their folder: the names are the player's
        outputs[cmd] = _cli([cmd, pos.name, "--iterations", 300], cwd=tmp_path)
    outputs["show"] = _cli(["show", pos.name], cwd=tmp_path)
    _cli(["selfplay", "--games", 1, "--players", players, "--out", "sp", "--bot", "greedy", "--seed", players],
         cwd=tmp_path)
    record = "sp/game-0001.json"
    outputs["review"] = _cli(["review", record, "--iterations", 30], cwd=tmp_path)
    outputs["show record"] = _cli(["show", record, 40], cwd=tmp_path)
    if players == 3:
        outputs["demo"] = _cli(["demo"])
    found = {name: internal_words(text) for name, text in outputs.items()}
    assert not any(found.values()), {k: v for k, v in found.items() if v}
    assert "Game over" in outputs["play"] and "Final scores" in outputs["table"]
