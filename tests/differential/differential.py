#!/usr/bin/env python3
"""Differential test: rulebook's interpreted rules against OpenSpiel's hand-written C++ games.

    differential.py GAME --games N --seed S --rulebook PATH [--rules FILE]

For each of N random games it plays the same moves in OpenSpiel (`pyspiel`) and in one
`rulebook serve` process (external chance), and at every step compares the player to move and
the set of legal actions, both written as rulebook action texts. A random legal action
(random.Random, seeded per game from S) is applied to both. At a chance node rulebook must wait
for chance too, with the same outcomes at the same probabilities; at a simultaneous node each
seat's legal set is compared in seat order (rulebook's `choose each`), then the joint action is
applied. At the end the outcome (winner or draw) is compared, and the payoffs against
rulebook's scores where the game has them. For games with hidden information each seat's view
(and log) is compared with OpenSpiel's information state (class InfoCheck).

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


class Quoridor:
    """OpenSpiel quoridor with its defaults (`board_size=9`, 10 walls each, 2 players), row 1
    printed at the top. Player 0 starts on e9 (printed `0`) and makes for row 1; player 1 (`@`)
    starts on e1. A pawn's step, its jump over the other pawn and its diagonal jump beside it
    are all named by the square reached (`e8`); a wall by the square at its top left and `h`
    or `v` (`c3h`: below c3 and d3; `c3v`: right of c3 and c4). rulebook's first player starts
    on e1 and makes for row 9, so the rows are turned over (the columns stay): a square on row
    r is rulebook's row 10 - r, and a wall's middle, the corner below and right of OpenSpiel's
    square, is the corner northeast of rulebook's square on row 9 - r. A square next to the
    mover's pawn (read from OpenSpiel's board) is a step, any other a jump:
    `e8` -> `move to=e2` or `jump to=e2`, `c3h` -> `wall at=c6 way=horizontal`,
    `c3v` -> `wall at=c6 way=vertical`."""

    openspiel = "quoridor"
    rules = "rules/classic/quoridor.rules"
    pattern = re.compile(r"^([a-i])([1-9])([hv]?)$")

    @staticmethod
    def pawn(state):
        """The mover's square as (column 0..8, OpenSpiel row 1..9), from the printed board:
        row r is line 2 + 2 (r - 1), column k at character 3 + 4 k."""
        glyph = "0@"[state.current_player()]
        lines = str(state).split("\n")
        for r in range(1, 10):
            line = lines[2 + 2 * (r - 1)]
            for k in range(9):
                if line[3 + 4 * k] == glyph:
                    return k, r
        raise ValueError(f"no pawn {glyph!r} on OpenSpiel's board:\n{state}")

    def to_text(self, state, action):
        m = self.pattern.match(state.action_to_string(action))
        if not m:
            raise ValueError(f"unexpected OpenSpiel action {state.action_to_string(action)!r}")
        column, row, way = m.group(1), int(m.group(2)), m.group(3)
        if not way:
            k, r = self.pawn(state)
            step = abs("abcdefghi".index(column) - k) + abs(row - r) == 1
            return f"{'move' if step else 'jump'} to={column}{10 - row}"
        if row == 9:
            raise ValueError(f"a wall below the last row: {state.action_to_string(action)!r}")
        return f"wall at={column}{9 - row} way={'horizontal' if way == 'h' else 'vertical'}"


class Chess:
    """OpenSpiel chess: action_to_string is SAN (`Nf3`, `exd8=Q`, `O-O`); the move itself comes
    from `pyspiel.chess.action_to_move` (from and to squares, x = file 0..7, y = rank 0..7, and
    the promotion's piece): the squares have the same names in rulebook's grid. A castling is the
    king's move of two squares (`O-O` -> `move from=e1 to=g1`), a knight's move `leap`, a
    promotion `promote ... piece=knight`, any other move `move`:
    `e4` -> `move from=e2 to=e4`, `Nf3` -> `leap from=g1 to=f3`, `exd8=Q` -> `promote from=e7
    to=d8 piece=queen`. OpenSpiel's player 1 is white and moves first: rulebook's p1."""

    openspiel = "chess"
    rules = "rules/classic/chess.rules"
    seats = {1: 0, 0: 1}  # OpenSpiel player -> rulebook seat
    pieces = {"QUEEN": "queen", "ROOK": "rook", "BISHOP": "bishop", "KNIGHT": "knight"}
    san = re.compile(r"^(?:O-O(-O)?|[NBRQK]?[a-h]?[1-8]?x?([a-h][1-8])(=[NBRQ])?)[+#]?$")

    @staticmethod
    def square(sq):
        return f"{'abcdefgh'[sq.x]}{sq.y + 1}"

    def to_text(self, state, action):
        import pyspiel
        text = state.action_to_string(action)
        m = self.san.match(text)
        if not m:
            raise ValueError(f"unexpected OpenSpiel action {text!r}")
        board = state.board()
        move = pyspiel.chess.action_to_move(action, board)
        f, t = self.square(move.from_square), self.square(move.to_square)
        # the SAN text and the squares must tell the same move
        if text.startswith("O-O"):
            if not move.is_castling() or t[0] != ("c" if m.group(1) else "g"):
                raise ValueError(f"castling {text!r} is {f}{t}")
        elif m.group(2) != t:
            raise ValueError(f"{text!r} does not go to {t}")
        promotion = move.promotion_type.name
        if promotion != "EMPTY":
            if not m.group(3):
                raise ValueError(f"{text!r} is a promotion to {promotion}")
            return f"promote from={f} to={t} piece={self.pieces[promotion]}"
        if board.at(move.from_square).type.name == "KNIGHT":
            return f"leap from={f} to={t}"
        return f"move from={f} to={t}"


class ChessKiwipete(Chess):
    """The same from the Kiwipete test position (rulebook's variant `kiwipete`, OpenSpiel's
    state from its FEN): castling both ways, en passant and promotions come sooner."""

    variant = "kiwipete"
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


# --- chance, simultaneous moves and hidden information ---------------------------------------
#
# These classes also have `chance_text(state, action)` (an OpenSpiel chance outcome -> rulebook's
# `chance X`), `to_text(state, action, player)` at simultaneous nodes, `payoffs = True` (OpenSpiel's
# returns are rulebook's scores, exactly) and `info` ("both" or "leak": see InfoCheck).


class KuhnPoker:
    """OpenSpiel deals card 0, 1, 2 (jack, queen, king; `Deal:2`) to player 0, then to player 1;
    rulebook shuffles its deck of J, Q, K (two outcomes, top first) and deals the top card to p1,
    the next to p2. `Pass` / `Bet` -> `pass` / `bet`. Returns = scores (chips won)."""

    openspiel = "kuhn_poker"
    rules = "rules/classic/kuhn_poker.rules"
    payoffs = True
    info = "both"
    deal = re.compile(r"^Deal:([012])$")

    def chance_text(self, state, action):
        m = self.deal.match(state.action_to_string(action))
        if not m:
            raise ValueError(f"unexpected OpenSpiel outcome {state.action_to_string(action)!r}")
        return f"chance {'JQK'[int(m.group(1))]}"

    def to_text(self, state, action):
        text = state.action_to_string(action)
        if text not in ("Pass", "Bet"):
            raise ValueError(f"unexpected OpenSpiel action {text!r}")
        return text.lower()



class LeducPoker:
    """OpenSpiel cards 0..5 are J1 J2 Q1 Q2 K1 K2 (rank card // 2, suit card % 2 + 1), each
    chance outcome `Chance outcome:c` deals card c: player 0's, player 1's, then (after the
    first round) the public card; rulebook rolls a card of its deck each time (`chance Q2`).
    `Fold` / `Call` / `Raise` -> `fold` / `call` / `raise`. Returns = scores (chips won)."""

    openspiel = "leduc_poker"
    rules = "rules/classic/leduc_poker.rules"
    payoffs = True
    info = "both"
    deal = re.compile(r"^Chance outcome:([0-5])$")

    def chance_text(self, state, action):
        m = self.deal.match(state.action_to_string(action))
        if not m:
            raise ValueError(f"unexpected OpenSpiel outcome {state.action_to_string(action)!r}")
        c = int(m.group(1))
        return f"chance {'JQK'[c // 2]}{c % 2 + 1}"

    def to_text(self, state, action):
        text = state.action_to_string(action)
        if text not in ("Fold", "Call", "Raise"):
            raise ValueError(f"unexpected OpenSpiel action {text!r}")
        return text.lower()


class Goofspiel:
    """OpenSpiel `goofspiel` with its defaults (13 cards, prizes in random order, win/loss
    returns): chance `Deal 5` turns up the prize 5 -> `chance 5` (rulebook rolls over its row of
    prizes); each seat's bid `[P0]Bid: 7` -> `card=7`, a `choose each`. OpenSpiel plays the
    13th turn itself (no choice), as rulebook's [GS-4] does."""

    openspiel = "goofspiel"
    rules = "rules/classic/goofspiel.rules"
    info = "both"
    deal = re.compile(r"^Deal (\d+)$")
    bid = re.compile(r"^\[P([01])\]Bid: (\d+)$")

    def chance_text(self, state, action):
        m = self.deal.match(state.action_to_string(action))
        if not m:
            raise ValueError(f"unexpected OpenSpiel outcome {state.action_to_string(action)!r}")
        return f"chance {m.group(1)}"

    def to_text(self, state, action, player):
        text = state.action_to_string(player, action)
        m = self.bid.match(text)
        if not m or int(m.group(1)) != player:
            raise ValueError(f"unexpected OpenSpiel action {text!r}")
        return f"card={m.group(2)}"


class OshiZumo:
    """OpenSpiel `oshi_zumo` with its defaults (50 coins, size 3: positions 0..8, the wrestler
    on 4, minimum bid 0, horizon 1000, not alesia): each seat's bid `[P1]Bid: 7` -> `bid=7`,
    a `choose each`. Player 0 pushes towards 8."""

    openspiel = "oshi_zumo"
    rules = "rules/classic/oshi_zumo.rules"
    info = "both"
    bid = re.compile(r"^\[P([01])\]Bid: (\d+)$")

    def to_text(self, state, action, player):
        text = state.action_to_string(player, action)
        m = self.bid.match(text)
        if not m or int(m.group(1)) != player:
            raise ValueError(f"unexpected OpenSpiel action {text!r}")
        return f"bid={m.group(2)}"


class Pig:
    """OpenSpiel `pig` with its defaults (a six-sided die, 100 to win, horizon 1000, not
    piglet): `roll` / `stop` are rulebook's `roll` / `stop`; chance `Roll 4` -> `chance 4`
    (rulebook's `roll die`)."""

    openspiel = "pig"
    rules = "rules/classic/pig.rules"
    die = re.compile(r"^Roll ([1-6])$")

    def chance_text(self, state, action):
        m = self.die.match(state.action_to_string(action))
        if not m:
            raise ValueError(f"unexpected OpenSpiel outcome {state.action_to_string(action)!r}")
        return f"chance {m.group(1)}"

    def to_text(self, state, action):
        text = state.action_to_string(action)
        if text not in ("roll", "stop"):
            raise ValueError(f"unexpected OpenSpiel action {text!r}")
        return text


class PigHorizon(Pig):
    """Pig with a horizon of 30 decisions (OpenSpiel `horizon=30`, rulebook `HORIZON = 30`),
    so that games reach it: a roll that is the 30th decision ends the game unthrown."""

    parameters = {"horizon": 30}
    set = {"HORIZON": 30}


class LiarsDice:
    """OpenSpiel `liars_dice` with its defaults (2 players, 1 die each, 6 sides, bids ranked
    by quantity then face, 6 wild): chance `Roll 3` (player 0's die, then player 1's) ->
    `chance 3` (rulebook's `roll die[p]`); a bid `2-5` (quantity-face) -> `bid quantity=2
    face=5`; `Liar` -> `liar`."""

    openspiel = "liars_dice"
    rules = "rules/classic/liars_dice.rules"
    info = "both"
    roll = re.compile(r"^Roll ([1-6])$")
    bid = re.compile(r"^([12])-([1-6])$")

    def chance_text(self, state, action):
        m = self.roll.match(state.action_to_string(action))
        if not m:
            raise ValueError(f"unexpected OpenSpiel outcome {state.action_to_string(action)!r}")
        return f"chance {m.group(1)}"

    def to_text(self, state, action):
        text = state.action_to_string(action)
        if text == "Liar":
            return "liar"
        m = self.bid.match(text)
        if not m:
            raise ValueError(f"unexpected OpenSpiel action {text!r}")
        return f"bid quantity={m.group(1)} face={m.group(2)}"


class MatrixRps:
    """OpenSpiel `matrix_rps`: one simultaneous node, `Rock` / `Paper` / `Scissors` for each
    seat -> `rock` / `paper` / `scissors` (a `choose each` of inline options). Returns = scores
    (+1 / -1 / 0)."""

    openspiel = "matrix_rps"
    rules = "rules/classic/matrix_rps.rules"
    payoffs = True
    info = "both"

    def to_text(self, state, action, player):
        text = state.action_to_string(player, action)
        if text not in ("Rock", "Paper", "Scissors"):
            raise ValueError(f"unexpected OpenSpiel action {text!r}")
        return text.lower()


class FirstSealedAuction:
    """OpenSpiel `first_sealed_auction` with its defaults (2 players, values 1..10): chance
    `Player 0 value: 7` -> `chance 7` (rulebook's `roll value[p]`, an owner variable); the
    bids are sequential in OpenSpiel as in rulebook, `Player 1 bid: 3` -> `amount=3`; the
    chance node `Chose winner 1` (also when one bid is highest, with probability 1) ->
    `chance 1` (rulebook rolls a seat number from the highest bidders'). Returns (value - bid for the winner, 0 for the other) = scores."""

    openspiel = "first_sealed_auction"
    rules = "rules/classic/first_sealed_auction.rules"
    payoffs = True
    info = "both"
    info_acting_only = True  # p2's information state is the same before and after p1 bids
    # rulebook's log shows p1's bid `amount=0` to p2 when it was p1's only option (value 1),
    # so it tells p2 p1's value (an engine bug, tests/differential/README.md): views only
    info_log = False
    value = re.compile(r"^Player ([01]) value: (\d+)$")
    winner = re.compile(r"^Chose winner ([01])$")
    bid = re.compile(r"^Player ([01]) bid: (\d+)$")

    def chance_text(self, state, action):
        text = state.action_to_string(action)
        m = self.value.match(text)
        if m:
            return f"chance {m.group(2)}"
        m = self.winner.match(text)
        if m:
            return f"chance {m.group(1)}"
        raise ValueError(f"unexpected OpenSpiel outcome {text!r}")

    def to_text(self, state, action):
        text = state.action_to_string(action)
        m = self.bid.match(text)
        if not m or int(m.group(1)) != state.current_player():
            raise ValueError(f"unexpected OpenSpiel action {text!r}")
        return f"amount={m.group(2)}"


class PhantomTTT(TicTacToe):
    """OpenSpiel `phantom_ttt` with its defaults (classical: a player who names a cell the
    other has taken learns it and names another; observation `reveal-nothing`): the actions
    are tic-tac-toe's, `x(r,c)` -> `place cell=...`. Each seat's information state is its own
    board and its own actions in order: compared (as `leak`) with rulebook's view of the seat
    to act. rulebook's log tells a seat how many decisions the other made, which
    `reveal-nothing` hides, and rulebook's view does not hold the order of one's own tries,
    which the information state does: so views only, and only one way."""

    openspiel = "phantom_ttt"
    rules = "rules/classic/phantom_ttt.rules"
    info = "leak"
    info_acting_only = True
    info_log = False


class PhantomTTTNumTurns(PhantomTTT):
    """The same game with OpenSpiel's observation `reveal-numturns` (the number of the other's
    decisions is known, as rulebook's log tells it): rulebook's view and log of the seat to
    act against the information state, both ways. KNOWN TO FAIL (not in tests/differential.rs):
    with seed 7, game 11 shows that rulebook's log names the other's second failed try (`p2:
    place cell=a1`) when it was the only failing option p2 had, given what p2 knew, so p1 learns
    the order of p2's tries, which OpenSpiel hides: the engine bug of the auction's log."""

    parameters = {"obstype": "reveal-numturns"}
    info = "both"
    info_log = True


class DarkHex:
    """OpenSpiel `dark_hex` with its defaults (3 x 3, classical: a player who names a cell the
    other has taken learns it and names another; observation `reveal-nothing`): action texts
    `a1` .. `c3` are Hex's, the same names in rulebook's `hex(3, 3)` -> `place cell=b2`. The
    information state is the seat's own board, the number of decisions made in all and the
    seat's own actions: compared (as `leak`) with rulebook's view of the seat to act
    (rulebook's log also tells when the other's decisions came, which OpenSpiel hides)."""

    openspiel = "dark_hex"
    rules = "rules/classic/dark_hex.rules"
    info = "leak"
    info_acting_only = True
    info_log = False
    pattern = re.compile(r"^[a-c][1-3]$")

    def to_text(self, state, action):
        text = state.action_to_string(action)
        if not self.pattern.match(text):
            raise ValueError(f"unexpected OpenSpiel action {text!r}")
        return f"place cell={text}"


class DarkHexNumTurns(DarkHex):
    """The same with OpenSpiel's observation `reveal-numturns` (the other's decisions in their
    places, as rulebook's log tells them): views and log of the seat to act, both ways. KNOWN
    TO FAIL like PhantomTTTNumTurns (seed 7, game 11), on rulebook's log."""

    parameters = {"obstype": "reveal-numturns"}
    info = "both"
    info_log = True


class Blackjack:
    """OpenSpiel `blackjack` (one player against the dealer): each chance outcome deals one
    card, named as in rulebook's deck (`CA`, `D7`, `HT`, `SK`: suit, then rank) -> `chance D7`
    (a roll over the deck): the player's two, the dealer's hole card, the dealer's up card,
    then one per hit and per dealer's draw. `Hit` / `Stand` -> `hit` / `stand`. The return
    (+1 / 0 / -1) is rulebook's score; a win is `win`, a loss `end lose`, a push `end draw`."""

    openspiel = "blackjack"
    rules = "rules/classic/blackjack.rules"
    payoffs = True
    info = "both"
    card = re.compile(r"^[CDHS][A2-9TJQK]$")

    def chance_text(self, state, action):
        text = state.action_to_string(action)
        if not self.card.match(text):
            raise ValueError(f"unexpected OpenSpiel outcome {text!r}")
        return f"chance {text}"

    def to_text(self, state, action):
        text = state.action_to_string(action)
        if text not in ("Hit", "Stand"):
            raise ValueError(f"unexpected OpenSpiel action {text!r}")
        return text.lower()

CHANCE_GAMES = {
    "kuhn_poker": KuhnPoker,
    "leduc_poker": LeducPoker,
    "goofspiel": Goofspiel,
    "oshi_zumo": OshiZumo,
    "pig": Pig,
    "pig_horizon": PigHorizon,
    "liars_dice": LiarsDice,
    "matrix_rps": MatrixRps,
    "first_sealed_auction": FirstSealedAuction,
    "phantom_ttt": PhantomTTT,
    "phantom_ttt_numturns": PhantomTTTNumTurns,
    "dark_hex": DarkHex,
    "dark_hex_numturns": DarkHexNumTurns,
    "blackjack": Blackjack,
}


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
    "quoridor": Quoridor,
    "chess": Chess,
    "chess_kiwipete": ChessKiwipete,
}
GAMES.update(CHANCE_GAMES)


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


def os_moves(state, mapping, player=None):
    """OpenSpiel's legal actions at a player node as {rulebook text: [actions]} (at a
    simultaneous node, those of `player`)."""
    if player is None and hasattr(mapping, "moves"):
        return mapping.moves(state)
    moves = {}
    actions = state.legal_actions() if player is None else state.legal_actions(player)
    for a in actions:
        if player is None:
            text = mapping.to_text(state, a)
        else:
            text = mapping.to_text(state, a, player)
        if text in moves:
            raise Disagreement(f"two OpenSpiel actions map to {text!r}")
        moves[text] = [a]
    return moves


def compare_sets(what, os_player, rb_actor, os_actions, rb_texts):
    """The player to act and the set of legal texts must agree."""
    rb_set = set(rb_texts)
    problems = []
    if os_player != seat_of(rb_actor):
        problems.append(f"{what}: OpenSpiel {os_player}, rulebook {rb_actor}")
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


def chance_step(state, mapping, legal, rng, history):
    """An OpenSpiel chance node: rulebook must wait for chance too, with the same outcomes
    (written as rulebook texts) at the same probabilities. One outcome, picked at random, is
    returned with its OpenSpiel action."""
    if legal["actor"] != "chance":
        raise Disagreement(f"OpenSpiel is at a chance node, rulebook's actor is {legal['actor']}"
                           f" (legal {sorted(a['text'] for a in legal.get('actions', []))})")
    os_outcomes = {}
    for a, p in state.chance_outcomes():
        text = mapping.chance_text(state, a)
        if text in os_outcomes:
            raise Disagreement(f"two OpenSpiel chance outcomes map to {text!r}")
        os_outcomes[text] = (a, p)
    rb_outcomes = {}
    for o in legal["outcomes"]:
        if o["text"] in rb_outcomes:
            raise Disagreement(f"rulebook lists the outcome {o['text']!r} twice")
        rb_outcomes[o["text"]] = o["weight"] / o["total"]
    if set(os_outcomes) != set(rb_outcomes):
        raise Disagreement(
            f"chance outcomes differ: only OpenSpiel {sorted(set(os_outcomes) - set(rb_outcomes))},"
            f" only rulebook {sorted(set(rb_outcomes) - set(os_outcomes))}"
            f"\n  OpenSpiel: {sorted((t, p) for t, (_, p) in os_outcomes.items())}"
            f"\n  rulebook: {sorted(rb_outcomes.items())}")
    for text, (_, p) in os_outcomes.items():
        if abs(p - rb_outcomes[text]) > 1e-9:
            raise Disagreement(f"probability of {text!r}: OpenSpiel {p}, rulebook "
                               f"{rb_outcomes[text]}\n  OpenSpiel: {sorted(os_outcomes.items())}"
                               f"\n  rulebook: {sorted(rb_outcomes.items())}")
    text = rng.choice(sorted(os_outcomes))
    action = os_outcomes[text][0]
    history.append((text, state.action_to_string(action), ("chance", action)))
    return text, action


class InfoCheck:
    """What a seat may know must agree: OpenSpiel's information state string of seat K
    against rulebook's view of seat K together with the log as seat K reads it. Two positions
    OpenSpiel's seat cannot tell apart must look the same to rulebook's seat (otherwise
    rulebook shows something OpenSpiel hides), and, with `both`, two positions rulebook's seat
    cannot tell apart must have the same OpenSpiel information state (otherwise rulebook
    hides something OpenSpiel shows). Kept across the games of a run. With `acting_only`,
    only the seats to act are compared (their information sets proper), for games whose
    information state does not change for a seat when another seat acts unseen (rulebook
    shows that the other has acted, in the actor and the log)."""

    def __init__(self, both, acting_only=False, with_log=True):
        self.both = both
        self.acting_only = acting_only
        self.with_log = with_log
        self.by_info = {}
        self.by_view = {}
        self.checked = 0

    def seen(self, rb, seats):
        """{seat: its view (and log) as one JSON text}."""
        requests = []
        for k in seats:
            requests += [{"cmd": "view", "seat": k}, {"cmd": "log", "seat": k}]
        if not self.with_log:
            requests = [r for r in requests if r["cmd"] == "view"]
        replies = rb.send(*requests)
        out = {}
        for i, k in enumerate(seats):
            if self.with_log:
                view, log = replies[2 * i]["view"], replies[2 * i + 1]["entries"]
            else:
                view, log = replies[i]["view"], None
            out[k] = json.dumps([view, log], sort_keys=True)
        return out

    def unchanged(self, rb, before, seats, who):
        """At a simultaneous node, after seat `who` committed: the other seats still to choose
        must see what they saw before (a choice is committed unseen)."""
        now = self.seen(rb, seats)
        for k in seats:
            # the actor (the first seat still to choose) moves on, and the log tells that the
            # seats before chose (`(hidden)`, who is pending is public): compare the rest
            a, b = json.loads(before[k]), json.loads(now[k])
            for v in (a[0], b[0]):
                v.pop("actor", None)
            if b[1] is not None and a[1] == b[1][:len(a[1])] and all(
                    e["text"] == "(hidden)" for e in b[1][len(a[1]):]):
                b[1] = a[1]
            if a != b:
                raise Disagreement(
                    f"seat {k} sees seat {who}'s choice at a simultaneous node before choosing"
                    f"\n  before: {before[k]}\n  after:  {now[k]}")

    def check(self, game_index, state, rb, players):
        if self.acting_only and not state.is_simultaneous_node():
            seats = [state.current_player()]
        else:
            seats = list(range(players))
        seen_by = self.seen(rb, seats)
        for k in seats:
            seen = seen_by[k]
            info = state.information_state_string(k)
            self.checked += 1
            old = self.by_info.setdefault((k, info), (seen, game_index))
            if old[0] != seen:
                raise Disagreement(
                    f"seat {k}: OpenSpiel's information state is the same as in game {old[1]},"
                    f" rulebook's view and log differ (rulebook shows what OpenSpiel hides)"
                    f"\n  information state: {info!r}\n  then: {old[0]}\n  now:  {seen}")
            if self.both:
                old = self.by_view.setdefault((k, seen), (info, game_index))
                if old[0] != info:
                    raise Disagreement(
                        f"seat {k}: rulebook's view and log are the same as in game {old[1]},"
                        f" OpenSpiel's information state differs (rulebook hides what OpenSpiel"
                        f" shows)\n  view and log: {seen}\n  then: {old[0]!r}\n  now:  {info!r}")
        return seen_by


def play(game, mapping, rb, index, seed, history, info=None):
    """Plays game `index`; returns the number of steps compared and the outcome."""
    rng = random.Random(f"{seed}/{index}")
    state = new_state(game, mapping)
    seats = getattr(mapping, "seats", {})  # OpenSpiel player -> rulebook seat, where they differ
    players = game.num_players()
    new = {"cmd": "new", "players": players, "seed": index, "chance": "external"}
    if getattr(mapping, "set", None):
        new["set"] = mapping.set  # constants matching `parameters` given to OpenSpiel
    if getattr(mapping, "variant", None):
        new["variant"] = mapping.variant  # the rules variant that plays as OpenSpiel does
    _, legal = rb.send(new, {"cmd": "legal"})
    steps = 0
    while True:
        if state.is_chance_node():
            steps += 1
            text, action = chance_step(state, mapping, legal, rng, history)
            state.apply_action(action)
            reply, legal = rb.send({"cmd": "apply", "action": text}, {"cmd": "legal"})
        elif state.is_simultaneous_node():
            # every seat in turn (rulebook asks the pending seats of a `choose each` in seat
            # order, each committing unseen), then the joint action
            before = info.check(index, state, rb, players) if info is not None else None
            joint, texts = [], []
            for p in range(players):
                if p > 0 and before is not None:
                    info.unchanged(rb, before, list(range(p, players)), p - 1)
                os_actions = os_moves(state, mapping, p)
                rb_texts = [a["text"] for a in legal.get("actions", [])]
                compare_sets(f"seat to choose (simultaneous, seat {p})", p, legal["actor"],
                             os_actions, rb_texts)
                steps += 1
                text = rng.choice(sorted(os_actions))
                joint += os_actions[text]
                texts.append(text)
                reply, legal = rb.send({"cmd": "apply", "action": text}, {"cmd": "legal"})
                if p < players - 1 and reply["finished"]:
                    raise Disagreement(f"rulebook finished before seat {p + 1} chose")
            history.append((" & ".join(texts),
                            " & ".join(state.action_to_string(p, a) for p, a in enumerate(joint)),
                            ("joint", joint)))
            state.apply_actions(joint)
        else:
            os_player = None if state.is_terminal() else state.current_player()
            os_player = seats.get(os_player, os_player)
            os_actions = {} if state.is_terminal() else os_moves(state, mapping)
            rb_texts = [a["text"] for a in legal.get("actions", [])]
            compare_sets("player to move", os_player, legal["actor"], os_actions, rb_texts)
            if os_player is None:
                break
            if not os_actions:
                raise Disagreement("neither has a legal action, but the game is not over")
            if info is not None:
                info.check(index, state, rb, players)
            steps += 1
            text = rng.choice(sorted(os_actions))
            history.append((text, ", ".join(state.action_to_string(a) for a in os_actions[text][:1]),
                            ("moves", os_actions[text])))
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
    if getattr(mapping, "payoffs", False):
        # the payoffs are rulebook's scores, exactly; the winners are the seats of the highest
        # payoff when it is above 0 (nobody wins a tie at 0: rulebook's `ties draw`; a lone
        # player wins with a positive payoff only)
        best = max(returns)
        os_outcome = outcome_text([p for p, r in enumerate(returns) if r == best and r > 0])
        if status["scores"] != [int(r) if r == int(r) else r for r in returns]:
            raise Disagreement(f"payoffs: OpenSpiel returns {returns}, rulebook scores "
                               f"{status['scores']} (status {json.dumps(status)})")
    else:
        os_outcome = outcome_text([seats.get(p, p) for p, r in enumerate(returns) if r > 0])
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
    parser.add_argument("--no-info", action="store_true",
                        help="do not compare what each seat may know (views against information states)")
    args = parser.parse_args()

    import pyspiel  # after argparse, so --help works without OpenSpiel

    mapping = GAMES[args.game]()
    rules = args.rules or str(ROOT / mapping.rules)
    game = pyspiel.load_game(mapping.openspiel, getattr(mapping, "parameters", {}))
    rb = Rulebook(args.rulebook, rules)
    # what each seat may know, where OpenSpiel says it (imperfect-information games)
    info = None
    if getattr(mapping, "info", None) and not args.no_info:
        info = InfoCheck(mapping.info == "both", getattr(mapping, "info_acting_only", False),
                         getattr(mapping, "info_log", True))
    start = time.perf_counter()
    steps = 0
    outcomes = {}
    for index in range(args.first, args.first + args.games):
        history = []
        try:
            n, outcome = play(game, mapping, rb, index, args.seed, history, info)
        except (Disagreement, RulebookError, ValueError) as e:
            print(f"DISAGREEMENT in {args.game}, game {index} (--seed {args.seed} --first {index}"
                  f" --games 1), step {len(history)}: {e}")
            print("  moves (rulebook text / OpenSpiel text): "
                  + (", ".join(f"{t} / {o}" for t, o, _ in history) or "none"))
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
        **({"views_compared": info.checked, "information_states": len(info.by_info)}
           if info is not None else {}),
        "agree": True,
    }))


def new_state(game, mapping):
    """OpenSpiel's first state: the game's own, or the position of the mapping's `fen`."""
    fen = getattr(mapping, "fen", None)
    return game.new_initial_state(fen) if fen else game.new_initial_state()


def game_state(game, history, mapping):
    """OpenSpiel's state after the moves of `history` (for the report)."""
    state = new_state(game, mapping)
    for _, _, (kind, actions) in history:
        if kind == "chance":
            state.apply_action(actions)
        elif kind == "joint":
            state.apply_actions(actions)
        else:
            for a in actions:
                state.apply_action(a)
    return state


if __name__ == "__main__":
    main()
