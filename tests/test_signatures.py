"""The behaviour signatures that `barcelona-ai bench` prints, pinned.

`Bench:` (barcelona_ai.workflows.bench.signature) counts the actions of 300 seeded random games: it moves only
when the rules' behaviour moves. `Search signature:` (barcelona_ai.workflows.bench.search_signature) counts the
actions applied by a fixed single-thread 20,000-iteration `analyse` from the 2-, 3- and 4-player setups: it moves
when the search, its settings or a shipped model change what the search does. A speed-up must leave both alone.

A change of behaviour that moves either number updates the constant here in the same commit, with the reason in
the commit message (and a new row in the table of docs/measurements/speed.md, "Signatures"); a number that moved
without such a reason is a bug.
"""
from barcelona_ai.workflows import bench

BENCH_SIGNATURE = 457121
SEARCH_SIGNATURE = 4982412           # 2026-11-28 c423ff9: 2 players read the third generation of their model


def test_the_rules_signature():
    assert bench.signature() == BENCH_SIGNATURE


def test_the_search_signature():
    assert bench.search_signature() == SEARCH_SIGNATURE        # about 1.5 s: not a slow test
