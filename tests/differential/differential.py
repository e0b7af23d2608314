#!/usr/bin/env python3
"""Differential test: rulebook's interpreted rules against OpenSpiel's hand-written C++ games.

    differential.py GAME --games N --seed S --rulebook PATH [--rules FILE]

For each of N random games it plays the same moves in OpenSpiel (`pyspiel`) and in one
`rulebook serve` process, and at every step compares the player to move and the set of legal
actions, both written as rulebook action texts. A random legal action (random.Random, seeded
per game from S) is applied to both. At the end the outcome (winner or draw) is compared.

On the first disagreement it prints the game, the step, the moves so far and both legal lists
and exits 1. Otherwise it prints one line of JSON (games, steps, seconds, ...) and exits 0.
The mapping of each game is explained in tests/differential/README.md.
"""

import argparse
import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


# --- per-game mappings: an OpenSpiel action (in its state) -> a rulebook action text ---------
#
# Each mapping parses OpenSpiel's own action_to_string, so the test also checks that OpenSpiel
# names its actions as documented. Player 0 of OpenSpiel is seat 0 (p1) of rulebook in every game.


class TicTacToe:
    """OpenSpiel action r*3+c, text `x(r,c)` / `o(r,c)`, row 0 printed at the top.
    rulebook `place cell=<col><row>`, a1 at the bottom left: column c -> letter, row r -> 3 - r."""

    openspiel = "tic_tac_toe"
    rules = "rules/classic/tic_tac_toe.rules"
    pattern = re.compile(r"^[xo]\((\d),(\d)\)$")

    def to_text(self, state, action):
        m = self.pattern.match(state.action_to_string(action))
        if not m:
            raise ValueError(f"unexpected OpenSpiel action {state.action_to_string(action)!r}")
        r, c = int(m.group(1)), int(m.group(2))
        return f"place cell={'abc'[c]}{3 - r}"


class ConnectFour:
    """OpenSpiel action c (0..6, left to right), text `x3` / `o3`.
    rulebook `drop column=<a..g>`."""

    openspiel = "connect_four"
    rules = "rules/classic/connect_four.rules"
    pattern = re.compile(r"^[xo]([0-6])$")

    def to_text(self, state, action):
        m = self.pattern.match(state.action_to_string(action))
        if not m:
            raise ValueError(f"unexpected OpenSpiel action {state.action_to_string(action)!r}")
        return f"drop column={'abcdefg'[int(m.group(1))]}"


class Breakthrough:
    """OpenSpiel text `a7a6` (from, to; `*` appended for a capture), chess-like squares.
    OpenSpiel player 0 is black, starts on ranks 7-8 and moves first, down the board.
    rulebook's first player starts on rows 1-2 and its a1 is that player's left corner, so the
    board is turned 180 degrees: file f -> h..a (a<->h, b<->g, ...), rank r -> 9 - r
    (OpenSpiel h8 is rulebook a1, OpenSpiel a1 is rulebook h8)."""

    openspiel = "breakthrough"
    rules = "rules/classic/breakthrough.rules"
    pattern = re.compile(r"^([a-h])([1-8])([a-h])([1-8])(\*?)$")

    @staticmethod
    def square(file, rank):
        return f"{'hgfedcba'['abcdefgh'.index(file)]}{9 - int(rank)}"

    def to_text(self, state, action):
        m = self.pattern.match(state.action_to_string(action))
        if not m:
            raise ValueError(f"unexpected OpenSpiel action {state.action_to_string(action)!r}")
        f1, r1, f2, r2, _capture = m.groups()
        return f"advance from={self.square(f1, r1)} to={self.square(f2, r2)}"


class Hex:
    """OpenSpiel action row*11+col, text `a1` .. `k11` (column letter, row number), the same
    names and neighbours as rulebook's hex(11, 11); player 0 (x) joins rows 1 and 11 as
    rulebook's first seat does. rulebook `place cell=<text>`."""

    openspiel = "hex"
    rules = "rules/classic/hex.rules"
    pattern = re.compile(r"^[a-k](1[01]|[1-9])$")

    def to_text(self, state, action):
        text = state.action_to_string(action)
        if not self.pattern.match(text):
            raise ValueError(f"unexpected OpenSpiel action {text!r}")
        return f"place cell={text}"


def grouped_moves(state, to_text):
    """Every sequence of actions one player takes in a row (OpenSpiel splits a multi-jump or a
    mill's removal into several actions): {rulebook text: [actions]}."""
    moves = {}
    player = state.current_player()

    def walk(st, actions):
        for a in st.legal_actions():
            nxt = st.clone()
            nxt.apply_action(a)
            path = actions + [(a, st.action_to_string(a), st)]
            if not nxt.is_terminal() and nxt.current_player() == player:
                walk(nxt, path)
            else:
                text = to_text(path)
                if text in moves:
                    raise Disagreement(f"two OpenSpiel moves map to {text!r}")
                moves[text] = [x[0] for x in path]

    walk(state, [])
    return moves


class Checkers:
    """OpenSpiel checkers: text `a3b4` (from, to); a multi-jump is several actions by the same
    player, grouped here into one move. Player 0 (o) starts on rows 1-3 and moves first, as
    rulebook's first seat (black) does; the squares have the same names. rulebook `move
    from=a3 to=b4`, `jump from=c3 to=e5 to=c7`. OpenSpiel draws after 40 plies without a
    capture; rulebook's reading (80 moves without a capture or a man's move) differs, so a game
    is compared until OpenSpiel's rule ends it (counted as `stopped`)."""

    openspiel = "checkers"
    rules = "rules/classic/english_draughts.rules"
    pattern = re.compile(r"^([a-h][1-8])([a-h][1-8])$")
    draw_rule = True

    def path_text(self, path):
        squares = []
        for _, text, _ in path:
            m = self.pattern.match(text)
            if not m:
                raise ValueError(f"unexpected OpenSpiel action {text!r}")
            if squares and squares[-1] != m.group(1):
                raise ValueError(f"a jump that does not go on from {squares[-1]}: {text!r}")
            squares += [m.group(1)] if not squares else []
            squares.append(m.group(2))
        jump = abs(ord(squares[1][0]) - ord(squares[0][0])) == 2
        if not jump:
            return f"move from={squares[0]} to={squares[1]}"
        return f"jump from={squares[0]} " + " ".join(f"to={s}" for s in squares[1:])

    def moves(self, state):
        return grouped_moves(state, self.path_text)


class NineMensMorris:
    """OpenSpiel points 0..23 row by row from the top left of its printed board; rulebook's
    graph declares the same points in the same order (a7 d7 g7 b6 ... a1 d1 g1). `Point p`
    places a man (or, right after a mill, takes one: a separate action of the same player,
    grouped here); `Move a -> b`. rulebook `place at=X [take=Y]`, `move from=X to=Y [take=Z]`,
    or `fly ...` when the mover has 3 men left (OpenSpiel's `Num men`)."""

    openspiel = "nine_mens_morris"
    rules = "rules/classic/nine_mens_morris.rules"
    points = ["a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5", "a4", "b4", "c4",
              "e4", "f4", "g4", "c3", "d3", "e3", "b2", "d2", "f2", "a1", "d1", "g1"]
    place = re.compile(r"^Point (\d+)$")
    move = re.compile(r"^Move (\d+) -> (\d+)$")
    men = re.compile(r"Num men: (\d+) (\d+)")

    def path_text(self, path):
        words = []
        for i, (_, text, st) in enumerate(path):
            p, m = self.place.match(text), self.move.match(text)
            if p and i == 0:
                words.append(f"place at={self.points[int(p.group(1))]}")
            elif p:
                words.append(f"take={self.points[int(p.group(1))]}")
            elif m and i == 0:
                left = self.men.search(str(st))
                mover = st.current_player()
                flying = left is not None and int(left.group(1 + mover)) == 3
                verb = "fly" if flying else "move"
                words.append(f"{verb} from={self.points[int(m.group(1))]}"
                             f" to={self.points[int(m.group(2))]}")
            else:
                raise ValueError(f"unexpected OpenSpiel action {text!r}")
        return " ".join(words)

    def moves(self, state):
        return grouped_moves(state, self.path_text)


class Othello:
    """OpenSpiel action row*8+col (64: pass), text `d3` (column letter, row number; row 1
    printed at the top) or `pass`. Player 0 is black (x) and moves first. rulebook's
    `grid(8, 8)` has a1 at the bottom left, so the same names are the board seen in a mirror,
    which changes no rule: `place at=d3`, `pass`."""

    openspiel = "othello"
    rules = "rules/classic/othello.rules"
    pattern = re.compile(r"^[a-h][1-8]$")

    def to_text(self, state, action):
        text = state.action_to_string(action)
        if text == "pass":
            return "pass"
        if not self.pattern.match(text):
            raise ValueError(f"unexpected OpenSpiel action {text!r}")
        return f"place at={text}"


class Clobber:
    """OpenSpiel clobber with its defaults (6 columns, 5 rows): text `a5b5` (from, to), row 1
    printed at the bottom as in rulebook's grid; player 0 (o) has the stone on a1 and moves
    first, as rulebook's first seat. rulebook `clobber from=a5 to=b5`."""

    openspiel = "clobber"
    rules = "rules/classic/clobber.rules"
    pattern = re.compile(r"^([a-f][1-5])([a-f][1-5])$")

    def to_text(self, state, action):
        m = self.pattern.match(state.action_to_string(action))
        if not m:
            raise ValueError(f"unexpected OpenSpiel action {state.action_to_string(action)!r}")
        return f"clobber from={m.group(1)} to={m.group(2)}"


class Pentago:
    """OpenSpiel action (y * 6 + x) * 8 + r, text `a1s`: column a..f, row 1..6 (row 1 printed at
    the top), then the turn r as a letter s..z: block r // 2 (0 top left, 1 top right, 2 bottom
    right, 3 bottom left), anticlockwise when r is even, clockwise when odd. rulebook's a1 is
    the bottom left, so rows turn over (r -> 7 - r) and the board keeps its sense of turning:
    `a1s` -> `place at=a6 block=nw turn=ccw`. Player 0 moves first. Played with rulebook's
    variant `twist_first` (OpenSpiel looks for five in a row only after the turn)."""

    openspiel = "pentago"
    rules = "rules/classic/pentago.rules"
    variant = "twist_first"
    pattern = re.compile(r"^([a-f])([1-6])([s-z])$")
    blocks = ["nw", "ne", "se", "sw"]

    def to_text(self, state, action):
        m = self.pattern.match(state.action_to_string(action))
        if not m:
            raise ValueError(f"unexpected OpenSpiel action {state.action_to_string(action)!r}")
        r = ord(m.group(3)) - ord("s")
        turn = "cw" if r % 2 else "ccw"
        return f"place at={m.group(1)}{7 - int(m.group(2))} block={self.blocks[r // 2]} turn={turn}"


class DotsAndBoxes:
    """OpenSpiel dots_and_boxes with its defaults (2 x 2 boxes): text `P1(h,r,c)`, a line
    across at dot row r (0 at the top) between dot columns c and c + 1, or `P1(v,r,c)`, a line
    up at dot column c between dot rows r and r + 1. rulebook's paper is a grid of 5 x 5 squares
    (dots on odd columns and rows, a1 the bottom left dot), so dot row r is rulebook row
    5 - 2r and dot column c is column 2c + 1: `P1(h,0,0)` -> `draw line=b5`,
    `P1(v,1,2)` -> `draw line=e2`."""

    openspiel = "dots_and_boxes"
    rules = "rules/classic/dots_and_boxes.rules"
    pattern = re.compile(r"^P[12]\(([hv]),(\d+),(\d+)\)$")
    rows = 2  # boxes high

    def to_text(self, state, action):
        m = self.pattern.match(state.action_to_string(action))
        if not m:
            raise ValueError(f"unexpected OpenSpiel action {state.action_to_string(action)!r}")
        kind, r, c = m.group(1), int(m.group(2)), int(m.group(3))
        top = 2 * self.rows + 1
        if kind == "h":
            col, row = 2 * c + 2, top - 2 * r
        else:
            col, row = 2 * c + 1, top - 2 * r - 1
        return f"draw line={'abcdefghijklmnopqrstuvwxyz'[col - 1]}{row}"


class Oware:
    """OpenSpiel oware with its defaults (6 houses a player, 4 seeds each): player 0's houses
    are `A`..`F` (houses 0..5, left to right as it sees them), player 1's `a`..`f` (houses
    6..11); seeds go from house i to i + 1, 11 back to 0. rulebook's ring pit1 .. pit12 is the
    same ring: `C` -> `sow from=pit3`, `c` -> `sow from=pit9`."""

    openspiel = "oware"
    rules = "rules/classic/oware.rules"
    pattern = re.compile(r"^([A-Fa-f])$")

    def to_text(self, state, action):
        m = self.pattern.match(state.action_to_string(action))
        if not m:
            raise ValueError(f"unexpected OpenSpiel action {state.action_to_string(action)!r}")
        letter = m.group(1)
        pit = "ABCDEF".index(letter) + 1 if letter.isupper() else "abcdef".index(letter) + 7
        return f"sow from=pit{pit}"


class Mancala:
    """OpenSpiel mancala (Kalah, 6 pits a side, 4 seeds): index 1..6 are player 0's pits
    (left to right as it sees them), 7 its store, 8..13 player 1's pits, 0 its store; seeds go
    from i to i + 1, 13 to 0. Text: the index (`3`, `10`). rulebook's ring pit1 .. pit14 is the
    same ring with pit14 for index 0: `3` -> `sow from=pit3`."""

    openspiel = "mancala"
    rules = "rules/classic/kalah.rules"
    pattern = re.compile(r"^(\d+)$")

    def to_text(self, state, action):
        m = self.pattern.match(state.action_to_string(action))
        if not m or int(m.group(1)) in (0, 7) or int(m.group(1)) > 13:
            raise ValueError(f"unexpected OpenSpiel action {state.action_to_string(action)!r}")
        return f"sow from=pit{int(m.group(1))}"


class Gomoku:
    """OpenSpiel gomoku with its defaults (15 x 15, five in a row, no `anti`, no `wrap`):
    action r * 15 + c, text `r,c` (row r from 0 at the top, column c from 0 at the left).
    rulebook `place at=<column letter><15 - r>`, a1 the bottom left: `0,0` -> `place at=a15`."""

    openspiel = "gomoku"
    rules = "rules/classic/gomoku.rules"
    pattern = re.compile(r"^(\d+),(\d+)$")
    size = 15

    def to_text(self, state, action):
        m = self.pattern.match(state.action_to_string(action))
        if not m:
            raise ValueError(f"unexpected OpenSpiel action {state.action_to_string(action)!r}")
        r, c = int(m.group(1)), int(m.group(2))
        return f"place at={'abcdefghijklmno'[c]}{self.size - r}"


class Nim:
    """OpenSpiel nim with its defaults (`pile_sizes="1;3;5;7"`, `is_misere=True`): text
    `pile:2, take:3;` (piles counted from 1). rulebook `take pile=pile2 n=3`."""

    openspiel = "nim"
    rules = "rules/classic/nim.rules"
    pattern = re.compile(r"^pile:([1-4]), take:([1-7]);$")

    def to_text(self, state, action):
        m = self.pattern.match(state.action_to_string(action))
        if not m:
            raise ValueError(f"unexpected OpenSpiel action {state.action_to_string(action)!r}")
        return f"take pile=pile{m.group(1)} n={m.group(2)}"


class UltimateTicTacToe:
    """OpenSpiel ultimate_tic_tac_toe: when the player may play on any small board, it first
    chooses one (`Choose local board b`, a separate action of the same player, grouped here),
    then a square of it, `Local board b: x(r,c)`. Boards b = 0..8 and squares (r, c) are
    numbered row by row from the top left. rulebook's 9 x 9 field has a1 at the bottom left:
    column 3 * (b % 3) + c, row 9 - (3 * (b // 3) + r). `Local board 4: x(1,1)` -> `place
    cell=e5`."""

    openspiel = "ultimate_tic_tac_toe"
    rules = "rules/classic/ultimate_tic_tac_toe.rules"
    choose = re.compile(r"^Choose local board ([0-8])$")
    mark = re.compile(r"^Local board ([0-8]): [xo]\(([0-2]),([0-2])\)$")

    def path_text(self, path):
        texts = [text for _, text, _ in path]
        if len(texts) == 2 and self.choose.match(texts[0]):
            texts = texts[1:]
        m = self.mark.match(texts[0]) if len(texts) == 1 else None
        if not m:
            raise ValueError(f"unexpected OpenSpiel actions {texts!r}")
        b, r, c = int(m.group(1)), int(m.group(2)), int(m.group(3))
        return f"place cell={'abcdefghi'[3 * (b % 3) + c]}{9 - (3 * (b // 3) + r)}"

    def moves(self, state):
        return grouped_moves(state, self.path_text)


class Amazons:
    """OpenSpiel amazons with its defaults (`board_size=10`): a move is three actions of the same
    player, grouped here: `X From (7, 1)`, `X To (2, 6)`, `X Shoot: (1, 5)`, squares as (row,
    column) from 1, row 1 printed at the top. Player 0 (X) has the queens of rows 7 and 10,
    rulebook's white on a4, d1, g1, j4: column c -> letter, row r -> 11 - r.
    rulebook `move from=a4 to=f9 arrow=e10`."""

    openspiel = "amazons"
    rules = "rules/classic/amazons.rules"
    parts = [re.compile(r"^[XO] From \((\d+), (\d+)\)$"),
             re.compile(r"^[XO] To \((\d+), (\d+)\)$"),
             re.compile(r"^[XO] Shoot: \((\d+), (\d+)\)$")]

    @staticmethod
    def square(r, c):
        return f"{'abcdefghij'[int(c) - 1]}{11 - int(r)}"

    def path_text(self, path):
        texts = [text for _, text, _ in path]
        matches = [p.match(t) for p, t in zip(self.parts, texts)]
        if len(texts) != 3 or not all(matches):
            raise ValueError(f"unexpected OpenSpiel actions {texts!r}")
        f, t, a = (self.square(*m.groups()) for m in matches)
        return f"move from={f} to={t} arrow={a}"

    def moves(self, state):
        return grouped_moves(state, self.path_text)


class LinesOfAction:
    """OpenSpiel lines_of_action: text `b1-b3` (a move) or `c1xa3` (a capture), squares named
    as in rulebook's grid (row 1 printed at the bottom). Player 0 (x, black) has the pieces of
    rows 1 and 8 and moves first. rulebook `move from=b1 to=b3`, played with its variant
    `openspiel` (a repeated board draws whoever is to move; 1,000 moves draw)."""

    openspiel = "lines_of_action"
    rules = "rules/classic/lines_of_action.rules"
    variant = "openspiel"
    pattern = re.compile(r"^([a-h][1-8])[-x]([a-h][1-8])$")

    def to_text(self, state, action):
        m = self.pattern.match(state.action_to_string(action))
        if not m:
            raise ValueError(f"unexpected OpenSpiel action {state.action_to_string(action)!r}")
        return f"move from={m.group(1)} to={m.group(2)}"


class Y:
    """OpenSpiel y with its defaults (`board_size=19`): action y * 19 + x over the cells with
    x + y <= 18, text `a1` .. (column letter x, row number y + 1). Its neighbours (x, y +- 1),
    (x +- 1, y), (x + 1, y - 1), (x - 1, y + 1) are those of rulebook's hex(19, 19), so the
    names map as they are: `c4` -> `place at=c4`."""

    openspiel = "y"
    rules = "rules/classic/y.rules"
    pattern = re.compile(r"^[a-s](1[0-9]|[1-9])$")

    def to_text(self, state, action):
        text = state.action_to_string(action)
        if not self.pattern.match(text):
            raise ValueError(f"unexpected OpenSpiel action {text!r}")
        return f"place at={text}"


class Havannah:
    """OpenSpiel havannah with its defaults (`board_size=8`, `swap=False`): action y * 15 + x,
    text `a1` (column letter x, row number y + 1), the cells with |x - y| <= 7. Its neighbours
    (x +- 1, y), (x, y +- 1), (x + 1, y + 1), (x - 1, y - 1) are those of rulebook's hex(8) with
    the rows turned over: column x + 1, row 15 - y. `a1` -> `place at=a15`, `h8` -> `place
    at=h8`."""

    openspiel = "havannah"
    rules = "rules/classic/havannah.rules"
    pattern = re.compile(r"^([a-o])(1[0-5]|[1-9])$")

    def to_text(self, state, action):
        m = self.pattern.match(state.action_to_string(action))
        if not m:
            raise ValueError(f"unexpected OpenSpiel action {state.action_to_string(action)!r}")
        return f"place at={m.group(1)}{16 - int(m.group(2))}"


GAMES = {
    "tic_tac_toe": TicTacToe,
    "connect_four": ConnectFour,
    "breakthrough": Breakthrough,
    "hex": Hex,
    "checkers": Checkers,
    "nine_mens_morris": NineMensMorris,
    "othello": Othello,
    "clobber": Clobber,
    "pentago": Pentago,
    "dots_and_boxes": DotsAndBoxes,
    "oware": Oware,
    "mancala": Mancala,
    "gomoku": Gomoku,
    "nim": Nim,
    "ultimate_tic_tac_toe": UltimateTicTacToe,
    "amazons": Amazons,
    "lines_of_action": LinesOfAction,
    "y": Y,
    "havannah": Havannah,
}


# --- rulebook serve ---------------------------------------------------------------------------


class RulebookError(Exception):
    pass


class Rulebook:
    """One `rulebook serve FILE` process; one request line, one reply line."""

    def __init__(self, binary, rules):
        self.proc = subprocess.Popen(
            [binary, "serve", rules],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def send(self, *requests):
        """Sends the requests in one write and returns their replies, in order."""
        self.proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
        self.proc.stdin.flush()
        replies = []
        for request in requests:
            line = self.proc.stdout.readline()
            if not line:
                raise RulebookError(f"rulebook serve exited (code {self.proc.poll()}) on {request}")
            reply = json.loads(line)
            if "error" in reply:
                raise RulebookError(f"{json.dumps(request)} -> {line.strip()}")
            replies.append(reply)
        return replies

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def seat_of(actor):
    """rulebook actor `p1` -> 0, `p2` -> 1, `nobody` -> None."""
    return int(actor[1:]) - 1 if re.fullmatch(r"p\d+", actor) else None


def outcome_text(winners):
    """A list of winning seats -> `p1` / `p2` / `draw`."""
    return "draw" if not winners else "+".join(f"p{w + 1}" for w in sorted(winners))


# --- the comparison ---------------------------------------------------------------------------


class Disagreement(Exception):
    pass


def play(game, mapping, rb, index, seed, history):
    """Plays game `index`; returns the number of steps compared and the outcome."""
    rng = random.Random(f"{seed}/{index}")
    state = game.new_initial_state()
    new = {"cmd": "new", "players": 2, "seed": index}
    if getattr(mapping, "variant", None):
        new["variant"] = mapping.variant  # the rules variant that plays as OpenSpiel does
    _, legal = rb.send(new, {"cmd": "legal"})
    steps = 0
    while True:
        os_player = None if state.is_terminal() else state.current_player()
        rb_player = seat_of(legal["actor"])
        os_actions = {}
        if state.is_terminal():
            pass
        elif hasattr(mapping, "moves"):
            os_actions = mapping.moves(state)
        else:
            for a in state.legal_actions():
                text = mapping.to_text(state, a)
                if text in os_actions:
                    raise Disagreement(f"two OpenSpiel actions map to {text!r}")
                os_actions[text] = [a]
        rb_texts = [a["text"] for a in legal.get("actions", [])]
        rb_set = set(rb_texts)
        problems = []
        if os_player != rb_player:
            problems.append(f"player to move: OpenSpiel {os_player}, rulebook {legal['actor']}")
        if len(rb_set) != len(rb_texts):
            problems.append("rulebook lists an action twice")
        if set(os_actions) != rb_set:
            only_os = sorted(set(os_actions) - rb_set)
            only_rb = sorted(rb_set - set(os_actions))
            problems.append(f"legal sets differ: only OpenSpiel {only_os}, only rulebook {only_rb}")
        if problems:
            raise Disagreement(
                "; ".join(problems)
                + f"\n  OpenSpiel legal ({len(os_actions)}): {sorted(os_actions)}"
                + f"\n  rulebook legal ({len(rb_texts)}): {sorted(rb_texts)}"
            )
        if os_player is None:
            break
        if not os_actions:
            raise Disagreement("neither has a legal action, but the game is not over")
        steps += 1
        text = rng.choice(sorted(os_actions))
        history.append((text, ", ".join(state.action_to_string(a) for a in os_actions[text][:1])))
        for a in os_actions[text]:
            state.apply_action(a)
        reply, legal = rb.send({"cmd": "apply", "action": text}, {"cmd": "legal"})
        if (getattr(mapping, "draw_rule", False) and state.is_terminal()
                and not reply["finished"] and all(r == 0 for r in state.returns())):
            return steps, "stopped"  # OpenSpiel's own draw rule, which rulebook's file lacks
        if reply["finished"] != state.is_terminal():
            raise Disagreement(
                f"game over: OpenSpiel {state.is_terminal()}, rulebook {reply['finished']}"
            )
    (status,) = rb.send({"cmd": "status"})
    returns = state.returns()
    os_outcome = outcome_text([p for p, r in enumerate(returns) if r > 0])
    rb_outcome = outcome_text(status["winners"] or [])
    if not status["finished"] or os_outcome != rb_outcome:
        raise Disagreement(
            f"outcome: OpenSpiel {os_outcome} (returns {returns}), "
            f"rulebook {rb_outcome} (status {json.dumps(status)})"
        )
    return steps, os_outcome


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=sorted(GAMES))
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--first", type=int, default=0, help="index of the first game (to replay one)")
    parser.add_argument("--rulebook", required=True, help="the rulebook binary")
    parser.add_argument("--rules", help="the rules file (default: the game's file under rules/)")
    args = parser.parse_args()

    import pyspiel  # after argparse, so --help works without OpenSpiel

    mapping = GAMES[args.game]()
    rules = args.rules or str(ROOT / mapping.rules)
    game = pyspiel.load_game(mapping.openspiel)
    rb = Rulebook(args.rulebook, rules)
    start = time.perf_counter()
    steps = 0
    outcomes = {}
    for index in range(args.first, args.first + args.games):
        history = []
        try:
            n, outcome = play(game, mapping, rb, index, args.seed, history)
        except (Disagreement, RulebookError, ValueError) as e:
            print(f"DISAGREEMENT in {args.game}, game {index} (--seed {args.seed} --first {index}"
                  f" --games 1), step {len(history)}: {e}")
            print("  moves (rulebook text / OpenSpiel text): "
                  + (", ".join(f"{t} / {o}" for t, o in history) or "none"))
            try:
                board = str(game_state(game, history, mapping)).replace("\n", "\n    ")
            except Exception as err:  # the report must not hide the disagreement
                board = f"(cannot replay: {err})"
            print("  OpenSpiel state:\n    " + board)
            rb.proc.kill()
            sys.exit(1)
        steps += n
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    rb.close()
    seconds = time.perf_counter() - start
    print(json.dumps({
        "game": args.game,
        "games": args.games,
        "seed": args.seed,
        "steps": steps,
        "outcomes": dict(sorted(outcomes.items())),
        "seconds": round(seconds, 3),
        "games_per_second": round(args.games / seconds, 1) if seconds > 0 else None,
        "agree": True,
    }))


def game_state(game, history, mapping):
    """OpenSpiel's state after the moves of `history` (for the report)."""
    state = game.new_initial_state()
    for text, _ in history:
        if hasattr(mapping, "moves"):
            by_text = mapping.moves(state)
        else:
            by_text = {mapping.to_text(state, a): [a] for a in state.legal_actions()}
        for a in by_text[text]:
            state.apply_action(a)
    return state


if __name__ == "__main__":
    main()
