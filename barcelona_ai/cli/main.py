"""Command line: ``barcelona-ai demo | play | table | serve | hint | analyse | review | selfplay | arena | paired |
perft | bench | generate | train | evaluate``."""
from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

from .._version import __version__
from . import args as A
from ..errors import BarcelonaError


def cmd_demo(args: argparse.Namespace) -> int:
    """A shipped example position (default: the mid-game one): the board, the engine's hints and analysis,
    then the game played out by the engine (the player to move) against greedy bots."""
    from ..search.bots import GreedyBot, ISMCTSBot
    from .analysis import load_state
    from ..search.engine import Engine, Limit
    from ..workflows.playout import play_out
    from ..rules.words import breakdown_words, edition_words
    s, label, _ = load_state(args.position, edition=args.edition)
    me = s.current_player()
    print(f"barcelona-ai {__version__}: {label}, {s.num_players} players, {edition_words(s)}, "
          f"player {me} to move\n")
    print(s.render())
    engine = Engine(seed=args.seed)
    limit = Limit(iterations=args.iterations)
    print(f"\nHints for player {s.current_player()} ({args.iterations} ISMCTS iterations):")
    for i, h in enumerate(engine.hints(s, limit, top=3), 1):
        print(f"  {i}. {' ; '.join(h.moves)}")
        print(f"     visits {h.visits}, win {h.win_prob[me]:.0%}, expected final VP {h.expected_score[me]:.0f}; "
              f"then {' / '.join(h.main_line[:3])}")
    a = engine.analyse(s, limit)
    print("\nAnalysis (win probability, expected final VP +- spread, VP still to come by source):")
    for p in a.players:
        come = breakdown_words(p.to_come)
        print(f"  player {p.player}: {p.win_prob:5.0%}  {p.expected_score:5.1f} +- {p.score_stdev:4.1f}  ({come})")
    print(f"\nPlaying the game out: player {me} is ISMCTS ({args.play_iterations} iterations a decision), "
          "the other players are greedy bots ...")
    bots = [ISMCTSBot(iterations=args.play_iterations, seed=args.seed) if p == me else GreedyBot(args.seed + p)
            for p in range(s.num_players)]
    play_out(s, bots, random.Random(args.seed))
    print()
    print(s.render())
    print(f"\n{len(s.history())} decisions and chance outcomes were played.")
    print("Final scores by source:")
    for p, (score, parts) in enumerate(zip(s.scores(), s.score_breakdown())):
        nonzero = breakdown_words(parts)
        who = "ISMCTS" if p == me else "greedy"
        print(f"  player {p} ({who}): {score:4d} VP  ({nonzero})")
    ret = s.returns()
    winners = [p for p in range(len(ret)) if ret[p] > 0]
    print(f"Winner: {' and '.join(f'player {p}' for p in winners)} (a tie goes to the furthest on the Cerdà track, "
          "then on the Sagrada Família track, then to the most Building markers on the board)")
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    from ..rules.perft import divide, perft, perft_position
    if args.divide and args.depth < 1:
        raise BarcelonaError("perft --divide needs a depth of 1 or more (it counts below each legal action)")
    s = perft_position(args.players, args.seed, args.walk, args.setup, args.edition or "default")
    if args.divide:
        total = 0
        for a, n in divide(s, args.depth).items():
            print(f"{s.action_to_string(a)}: {n}")
            total += n
        print(f"\nNodes searched: {total}")
    else:
        print(f"perft {args.depth}: {perft(s, args.depth)}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from ..workflows.bench import run_bench
    run_bench(args.games, search=not args.no_search)
    return 0


def cmd_arena(args: argparse.Namespace) -> int:
    from ..workflows.arena import match
    from ..search.bots import check_bot_spec
    from .analysis import ray_session, say_run_start
    check_bot_spec(args.candidate, "candidate")     # fail early on a bad bot
    check_bot_spec(args.opponent, "opponent")
    if args.resume and args.save is None:
        raise BarcelonaError("--resume needs --save DIR (the folder of the interrupted match's records)")
    from ..workflows.arena import rotation_note
    note = rotation_note(args.players, args.games)
    if note:
        print(f"warning: {note}", file=sys.stderr)
    with ray_session(args):                         # a bad --ray fails here, before anything is written
        if args.save is not None:
            _make_folder(args.save, "--save")
        try:
            r = match(args.candidate, args.opponent, players=args.players, games=args.games, seed=args.seed,
                      workers=args.workers, progress=not args.quiet, save=args.save, ray=args.ray,
                      resume=args.resume, on_start=lambda paths, resumed, damaged: say_run_start(
                          Path(args.save), paths, sum(p.exists() for p in paths), resumed, args.resume,
                          force=False, file=sys.stderr, damaged=len(damaged)), edition=args.edition or "default")
        except KeyboardInterrupt:
            if args.save is not None:
                print(f"arena: the games saved so far stay in {args.save}; the same command with --resume "
                      "plays the rest", file=sys.stderr)
            raise
    print(r.line())
    rotation = f"warning: {note}" if note else "seats rotate over each seeded setup"
    print(f"{r.seconds:.0f} s; {rotation}; 95% Wilson intervals")
    if args.save is not None:
        print(f"The {args.games} game records are in {args.save} (barcelona-ai review / analyse / show them).")
    return 0


def cmd_paired(args: argparse.Namespace) -> int:
    """Two saved arena runs compared game by game (arena.paired_difference)."""
    from ..workflows.arena import paired_difference
    print(paired_difference(args.first, args.second, args.edition).line())
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """The web board (web.py; the optional extra [web])."""
    try:
        from ..web.server import serve
    except ImportError as exc:
        raise BarcelonaError(f"the web board needs the [web] extra ({exc.name} is not installed): "
                             "pip install 'barcelona_ai[web]'") from None
    serve(host=args.host, port=args.port, edition=args.edition)
    return 0


def _make_folder(path: str, option: str) -> None:
    from ..rules.jsonio import show_path
    try:
        os.makedirs(path, exist_ok=True)
    except (OSError, ValueError) as exc:
        raise BarcelonaError(f"{option} {show_path(path)}: cannot create the folder "
                             f"({getattr(exc, 'strerror', None) or exc})") from None


def build_parser() -> argparse.ArgumentParser:
    ap = A.Parser(prog="barcelona-ai", description="Barcelona rules engine")
    ap.add_argument("--version", action="version", version=f"barcelona_ai {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="the engine on the default position: hints, analysis, a game played out")
    d.add_argument("position", nargs="?", default="midgame-3p",
                   help="a shipped example (midgame-3p, start-2p, start-3p, start-4p) or a position file")
    d.add_argument("--seed", type=A.seed, default=7, help="engine and chance seed")
    d.add_argument("--iterations", type=A.iterations, default=20000,
                   help="ISMCTS iterations for hints and analysis")
    d.add_argument("--play-iterations", type=A.iterations, default=1000,
                   help="ISMCTS iterations a decision in the game")
    A.add_edition_option(d, reads=True)
    d.set_defaults(func=cmd_demo)
    p = sub.add_parser("perft", help="count action sequences from a seeded position")
    p.add_argument("depth", type=A.perft_depth, help=f"0..{A.MAX_PERFT_DEPTH}")
    p.add_argument("--players", type=A.players, default=4, help="2..4")
    p.add_argument("--seed", type=A.seed, default=7, help="setup seed")
    p.add_argument("--walk", type=A.walk, default=0, help="random plies from the setup first")
    p.add_argument("--setup", choices=("random", "printed"), default="random",
                   help="shuffled (R11) or printed action tiles")
    p.add_argument("--divide", action="store_true", help="the count below each legal action")
    A.add_edition_option(p)
    p.set_defaults(func=cmd_perft)
    r = sub.add_parser("arena", help="play two bots against each other with seat rotation")
    r.add_argument("candidate", help="random, greedy, flatmc:N, ismcts:N or ismcts:Ns (e.g. ismcts:10k)")
    r.add_argument("opponent", help="the bot in every other seat")
    r.add_argument("--players", type=A.players, default=2, help="2..4")
    r.add_argument("--games", type=A.games, default=20,
                   help="games; a multiple of --players rotates the candidate through every seat equally")
    r.add_argument("--seed", type=A.seed, default=0, help="first setup seed (the setups are seed, seed+1, ...)")
    r.add_argument("--workers", type=A.workers, default=2, help="parallel processes")
    r.add_argument("--save", metavar="DIR", default=None,
                   help="write each game's record into DIR (game-0001.json ..., never over an existing one; "
                        "default: not saved)")
    r.add_argument("--resume", action="store_true",
                   help="with --save: finish an interrupted match, reading back the games saved in DIR by it")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    from .analysis import add_ray_option
    add_ray_option(r, "the games")
    A.add_edition_option(r)
    r.set_defaults(func=cmd_arena)
    q = sub.add_parser("paired", help="two saved arena runs compared game by game on the same setups",
                       description="The difference of two arena runs saved with --save (the last run in each "
                                   "folder), game by game over the setups both played with the candidate in the same "
                                   "seat, with its 95% interval: the way to tell two candidates apart on the same "
                                   "setups.")
    q.add_argument("first", metavar="DIR", help="the folder of the first run's records")
    q.add_argument("second", metavar="DIR", help="the folder of the second run's records")
    A.add_edition_option(q, reads=True)
    q.set_defaults(func=cmd_paired)
    from . import analysis, edition, learn, play
    analysis.register(sub)              # hint, analyse, review, selfplay
    play.register(sub)                  # play, table
    learn.register(sub)                 # generate, train, evaluate (the learned evaluation)
    edition.register(sub)               # edition new, check, show (your own board)
    w = sub.add_parser("serve", help="the web board: play, hints, table mode and reviews in the browser")
    w.add_argument("--port", type=A.port, default=8000, help="the port to listen on")
    w.add_argument("--host", default="127.0.0.1",
                   help="the address to bind; the default serves this computer only (0.0.0.0: the network)")
    w.add_argument("--edition", type=A.edition, default=None, metavar="NAME|FILE",
                   help="the board of new games: a shipped edition or a board-data file (docs/editions.md); the "
                        "page offers it beside the shipped ones (default: default)")
    w.set_defaults(func=cmd_serve)
    b = sub.add_parser("bench", help="random games and apply+undo per second, and the Bench signature")
    b.add_argument("--games", type=A.games, default=5000, help="random games played")
    b.add_argument("--no-search", action="store_true", help="only the rules core")
    b.set_defaults(func=cmd_bench)
    return ap


def main(argv: list[str] | None = None) -> int:
    """Run one command; the exit code: 0 done, 2 bad input (one line ``error: ...`` on stderr, nothing
    changed), 130 interrupted (Ctrl-C: one line on stderr, no traceback); play and table also use 1."""
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:                   # --help, --version (0) or a bad argument (2, printed)
            return exc.code if isinstance(exc.code, int) else 2
        return args.func(args)
    except BarcelonaError as exc:
        print(A.printable(f"error: {exc}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:              # output piped into `head` and closed: not an error
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0


if __name__ == "__main__":
    sys.exit(main())
