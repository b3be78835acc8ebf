"""Shared pieces of the fuzz tests (tests/test_fuzz_*.py): the example budget, the tally that reports how many
inputs were tried / refused / accepted, and a seeded mutator of JSON documents.

Budget: each fuzz test runs a fixed number of seeded examples in CI (a few hundred; the three files together
take well under a minute on 2 cores). Set BARCELONA_FUZZ_EXAMPLES=N for N examples per test (a larger local
run), and BARCELONA_FUZZ_SEED=K to draw another sequence. Counts are printed (pytest -s shows them) and, when
BARCELONA_FUZZ_REPORT=FILE is set, appended to FILE as one JSON object per test.
"""
from __future__ import annotations

import copy
import json
import os
import random
from collections import Counter
from typing import Any


def budget(ci_default: int) -> int:
    return int(os.environ.get("BARCELONA_FUZZ_EXAMPLES", ci_default))


def base_seed(name: str) -> int:
    """The seed of a fuzz test: fixed (derived from its name) unless BARCELONA_FUZZ_SEED is set."""
    extra = int(os.environ.get("BARCELONA_FUZZ_SEED", 0))
    return sum(ord(c) * 31 ** i for i, c in enumerate(name)) % 1_000_003 + extra * 1_000_003


class Tally:
    """tried = refused + accepted; `why` counts the refusals by the start of their message."""

    def __init__(self, name: str):
        self.name = name
        self.tried = self.refused = self.accepted = 0
        self.why: Counter = Counter()

    def refuse(self, message: str) -> None:
        self.tried += 1
        self.refused += 1
        self.why[message.split(":")[0][:40]] += 1

    def accept(self) -> None:
        self.tried += 1
        self.accepted += 1

    def report(self) -> dict:
        doc = {"test": self.name, "tried": self.tried, "refused": self.refused, "accepted": self.accepted,
               "examples": budget(0) or None}
        print(f"\nfuzz {self.name}: tried {self.tried}, refused {self.refused}, accepted {self.accepted}")
        path = os.environ.get("BARCELONA_FUZZ_REPORT")
        if path:
            with open(path, "a", encoding="utf-8") as f:
                f.write(json.dumps(doc) + "\n")
        return doc


# ---------------------------------------------------------------------------------------------------------------
# a seeded mutator of JSON documents

NUMBERS = [0, 1, -1, 2, 3, 4, 5, 7, 9, 10, 15, 16, 17, 24, 30, 31, 32, 33, 63, 64, 99, 100, 127, 128, 255, 256,
           32767, 32768, 65535, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 63 - 1, 2 ** 63, 2 ** 64, -2 ** 63, -2 ** 64,
           10 ** 30, -10 ** 30, 0.5, -0.0, 1e308, -1e308, 1.0, True, False]
STRINGS = ["", " ", "-", "x", "PRE", "chance", "default", "0", "null", "\u00e9", "\U0001f600", "a\u0000b",
           "\ud800", "../etc/passwd", "x" * 300, "9" * 50, "W/M", "place (0,0) W/M", "draw (hidden)",
           "COIN1+CLOTH1+VP1+CERDA1", "ACT_BUILD_WIDE", "MARKER0", "SAGRADA99", "RES9", "VP999", "COIN-1",
           "CERDA-99", "ACT_FOO"]


def junk(rng: random.Random, doc: Any = None) -> Any:
    """A value of any JSON type (numbers at the edges of C integer types, odd strings, containers)."""
    r = rng.random()
    if r < 0.4:
        return rng.choice(NUMBERS)
    if r < 0.7:
        return rng.choice(STRINGS)
    if r < 0.8:
        return None
    if r < 0.9:
        return rng.choice([[], {}, [0], {"x": 1}, [None], [[]], {"": None}])
    return deep(rng.randint(10, 120))


def deep(depth: int) -> Any:
    x: Any = 0
    for _ in range(depth):
        x = [x]
    return x


def paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a node of doc (containers and leaves), the root excluded."""
    out = []
    stack = [(doc, prefix)]
    while stack:
        x, p = stack.pop()
        if isinstance(x, dict):
            for k, v in x.items():
                out.append(p + (k,))
                stack.append((v, p + (k,)))
        elif isinstance(x, list):
            for i, v in enumerate(x):
                out.append(p + (i,))
                stack.append((v, p + (i,)))
    return out


def get(doc: Any, path: tuple) -> Any:
    for k in path:
        doc = doc[k]
    return doc


def _parent(doc: Any, path: tuple) -> tuple[Any, Any]:
    return get(doc, path[:-1]), path[-1]


def mutate_at(doc: Any, path: tuple, rng: random.Random, strings: list[str]) -> str:
    """One mutation of the node at `path` (doc is changed in place); returns what was done."""
    parent, key = _parent(doc, path)
    node = parent[key]
    r = rng.random()
    if isinstance(node, bool) or isinstance(node, (int, float)):
        if r < 0.6:
            choices = [node + 1, node - 1, node * 2, -node, node * 10 + 1, rng.randint(0, 10), rng.randint(0, 10)] \
                if not isinstance(node, bool) else [1, 0]
            parent[key] = rng.choice(choices + [rng.choice(NUMBERS)])
            return f"number {path}"
    if isinstance(node, str) and r < 0.5:
        parent[key] = rng.choice(strings + STRINGS) if rng.random() < 0.8 else node + rng.choice(["x", "1", "+VP1"])
        return f"string {path}"
    if isinstance(node, list) and node and r < 0.6:
        q = rng.random()
        if q < 0.3:                                  # extend beyond any array size
            k = rng.choice([1, 1, 2, 5, 20, 40, 300])
            node.extend(copy.deepcopy(rng.choice(node)) for _ in range(k))
            return f"extend {path} by {k}"
        if q < 0.5:
            del node[rng.randrange(len(node)):]
            return f"truncate {path}"
        if q < 0.7:
            i, j = rng.randrange(len(node)), rng.randrange(len(node))
            node[i], node[j] = node[j], node[i]
            return f"swap {path}"
        if q < 0.85:
            i = rng.randrange(len(node))
            node.insert(i, copy.deepcopy(node[i]))
            return f"duplicate {path}[{i}]"
        del node[rng.randrange(len(node))]
        return f"drop from {path}"
    if isinstance(node, dict) and node and r < 0.6:
        q = rng.random()
        if q < 0.35:                                 # more entries than the engine holds
            k = rng.choice([1, 3, 14, 40])
            src = rng.choice(list(node))
            for i in range(k):
                node[f"{src}_{i}x"] = copy.deepcopy(node[src])
            return f"add {k} keys to {path}"
        if q < 0.7:
            del node[rng.choice(list(node))]
            return f"drop key from {path}"
        node[rng.choice(STRINGS[:12])] = junk(rng)
        return f"new key in {path}"
    q = rng.random()
    if q < 0.15 and isinstance(parent, dict):
        del parent[key]
        return f"delete {path}"
    parent[key] = junk(rng)
    return f"junk at {path}"


def strings_of(doc: Any) -> list[str]:
    out = set()
    stack = [doc]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.add(x)
        elif isinstance(x, dict):
            out.update(k for k in x)
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return sorted(out)


def mutate(doc: Any, rng: random.Random, n: int | None = None, pick=None, strings: list[str] | None = None) \
        -> tuple[Any, list[str]]:
    """A mutated deep copy of doc: n (1..3) mutations at paths chosen by pick(paths, rng) (default: uniform)."""
    doc = copy.deepcopy(doc)
    strings = strings if strings is not None else strings_of(doc)
    done = []
    for _ in range(n or rng.choice([1, 1, 1, 2, 3])):
        ps = paths(doc)
        if not ps:
            break
        path = pick(ps, rng) if pick else rng.choice(ps)
        done.append(mutate_at(doc, path, rng, strings))
    return doc, done
