#!/usr/bin/env python3
"""rulebook's MCTS against OpenSpiel's MCTS bot, move by move through `rulebook serve`.

    openspiel_mcts.py GAME --games N --playouts P --rulebook PATH [--seed S] [--uct-c C]
                      [--no-solve] [--agent SPEC]
    openspiel_mcts.py GAME --games N --ms T [--fixed] [--settings S] --rulebook PATH ...

With `--ms T` both sides get equal *time* per move instead of equal playouts (the issue's
head-to-head): OpenSpiel's simulations a move are calibrated to T milliseconds on the opening
position on this machine just before the match (the median of 3 searches of 2,000), and
rulebook searches `mcts:Tms` (its settings after it: `--settings m=0.5` gives
`mcts:Tms:m=0.5`). With `--fixed` as well, rulebook's playouts are calibrated the same way (a
`suggest` of 2,000 playouts timed, median of 3) and both sides search a fixed number a move:
a machine shared with other work then slows neither side more than the other.

For each of N games both sides start a new game; rulebook plays seat `k % 2` of game k (the
seats alternate), asking its server `{"cmd":"suggest","playouts":P}` at each of its turns;
OpenSpiel's side is `pyspiel.MCTSBot` with a `RandomRolloutEvaluator` (one random rollout per
leaf), the same P simulations per move, exploration constant C (default 2, on returns in
[-1, 1]) and, unless --no-solve, its MCTS-Solver (proven wins and losses are backed up). Each
move is applied to both engines, mapped as in tests/differential (the mappings are checked
there). `--agent` passes settings to rulebook's search (`serve --agent mcts:2000:c=0.5`; the
default is rulebook's default agent). Prints one line of JSON: rulebook's wins, draws and losses, by seat too, and the 95%
Wilson interval of its score (a win 1, a draw 1/2).
"""

import argparse
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "differential"))

from differential import GAMES, Rulebook  # noqa: E402  (the mappings and the server client)


class SearchingRulebook(Rulebook):
    """`rulebook serve FILE --agent SPEC`: the server client, its `suggest` set up."""

    def __init__(self, binary, rules, agent):
        import subprocess

        self.proc = subprocess.Popen(
            [binary, "serve", rules] + (["--agent", agent] if agent else []),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )


def wilson(successes, n, z=1.959963984540054):
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def calibrate(searches, ms, probes=2000):
    """Simulations each search runs in `ms` milliseconds: the median of 3 timed probes each,
    the searches' probes taken in turn (so that a change of load meets all of them)."""
    rates = [[] for _ in searches]
    for _ in range(3):
        for search, r in zip(searches, rates):
            start = time.perf_counter()
            search(probes)
            r.append(probes / (time.perf_counter() - start))
    return [max(1, int(sorted(r)[1] * ms / 1000)) for r in rates]


def play(game, mapping, rb, bot, index, playouts, rb_seat):
    """Plays game `index`; returns rulebook's result: 1 (win), 0.5 (draw) or 0 (loss)."""
    state = game.new_initial_state()
    rb.send({"cmd": "new", "players": 2, "seed": index})
    while not state.is_terminal():
        by_text = {mapping.to_text(state, a): a for a in state.legal_actions()}
        if state.current_player() == rb_seat:
            ask = {"cmd": "suggest"}
            if playouts:
                ask["playouts"] = playouts
            (reply,) = rb.send(ask)
            text = reply["action"]
            action = by_text[text]
        else:
            action = bot.step(state)
            text = mapping.to_text(state, action)
        state.apply_action(action)
        rb.send({"cmd": "apply", "action": text})
    (status,) = rb.send({"cmd": "status"})
    returns = state.returns()
    winners = status["winners"] or []
    if [p for p, r in enumerate(returns) if r > 0] != winners:
        raise RuntimeError(f"outcomes differ: OpenSpiel {returns}, rulebook {status}")
    if not winners:
        return 0.5
    return 1.0 if winners == [rb_seat] else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=sorted(GAMES))
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--playouts", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--uct-c", type=float, default=2.0)
    parser.add_argument("--no-solve", action="store_true")
    parser.add_argument("--rulebook", required=True, help="the rulebook binary")
    parser.add_argument("--agent", help="rulebook's search settings (serve --agent)")
    parser.add_argument("--ms", type=int, help="equal time a move, in milliseconds")
    parser.add_argument("--fixed", action="store_true",
                        help="with --ms: rulebook's playouts calibrated too, both fixed")
    parser.add_argument("--settings", help="with --ms: rulebook's settings after the budget")
    args = parser.parse_args()

    import pyspiel

    mapping = GAMES[args.game]()
    game = pyspiel.load_game(mapping.openspiel)
    rb_playouts, agent = args.playouts, args.agent
    if args.ms:
        extra = f":{args.settings}" if args.settings else ""
        agent = f"mcts:{args.ms}ms{extra}"

        def openspiel_search(n):
            pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 1), args.uct_c, n, 1000,
                            not args.no_solve, 1, False).step(game.new_initial_state())

        rb_playouts = None
    rb = SearchingRulebook(args.rulebook, str(ROOT / mapping.rules), agent)
    if args.ms and args.fixed:
        rb.send({"cmd": "new", "players": 2, "seed": 0})
        args.playouts, rb_playouts = calibrate(
            [openspiel_search, lambda n: rb.send({"cmd": "suggest", "playouts": n})], args.ms)
        agent = f"mcts:{rb_playouts}{extra}"
        rb.close()
        rb = SearchingRulebook(args.rulebook, str(ROOT / mapping.rules), agent)
    elif args.ms:
        (args.playouts,) = calibrate([openspiel_search], args.ms)
    start = time.perf_counter()
    results = {"win": 0, "draw": 0, "loss": 0}
    by_seat = {"p1": {"win": 0, "draw": 0, "loss": 0}, "p2": {"win": 0, "draw": 0, "loss": 0}}
    for index in range(args.games):
        rb_seat = index % 2
        evaluator = pyspiel.RandomRolloutEvaluator(1, args.seed * 100003 + index)
        bot = pyspiel.MCTSBot(game, evaluator, args.uct_c, args.playouts, 1000,
                              not args.no_solve, args.seed * 100003 + index, False)
        r = play(game, mapping, rb, bot, index, rb_playouts, rb_seat)
        key = {1.0: "win", 0.5: "draw", 0.0: "loss"}[r]
        results[key] += 1
        by_seat[f"p{rb_seat + 1}"][key] += 1
        print(f"game {index}: rulebook as p{rb_seat + 1}: {key}", file=sys.stderr, flush=True)
    rb.close()
    n = args.games
    score = results["win"] + 0.5 * results["draw"]
    low, high = wilson(results["win"], n)
    print(json.dumps({
        "game": args.game,
        "games": n,
        "playouts": args.playouts,
        "ms": args.ms,
        "rulebook_playouts": rb_playouts,
        "openspiel": {"uct_c": args.uct_c, "solve": not args.no_solve, "rollouts": 1},
        "rulebook_agent": agent or "default",
        "rulebook": results,
        "rulebook_by_seat": by_seat,
        "rulebook_win_rate": round(results["win"] / n, 3) if n else None,
        "rulebook_win_rate_95": [round(low, 3), round(high, 3)],
        "rulebook_score": round(score / n, 3) if n else None,
        "seconds": round(time.perf_counter() - start, 1),
    }))


if __name__ == "__main__":
    main()
