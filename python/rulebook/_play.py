"""Loading and playing: `load`, `Game` and `Match`.

A `Match` is answered by the same session as `rulebook serve`'s line protocol: each method
sends one request and returns the reply's fields as Python values, so the play API and the
protocol cannot disagree (see the README's "The line protocol").
"""

import json

from . import _native
from ._native import (
    ConfigError,
    GameOverError,
    IllegalActionError,
    LimitError,
    NothingToUndoError,
    ProtocolError,
    RuleFailedError,
    SaveError,
)

# The protocol's error codes as the exceptions raised for them.
_ERRORS = {
    "bad_config": ConfigError,
    "illegal_action": IllegalActionError,
    "finished": GameOverError,
    "bad_save": SaveError,
    "nothing_to_undo": NothingToUndoError,
    "rules_error": RuleFailedError,
    "limit_reached": LimitError,
}


def _raise(error, file):
    cls = _ERRORS.get(error.get("code"), ProtocolError)
    e = cls(error.get("message", ""))
    e.message = error.get("message", "")
    e.code = error.get("code")
    e.line = error.get("line")
    e.column = error.get("column")
    e.file = file if e.line is not None else None
    raise e


def load(path, text=None):
    """Reads and checks a rules file; `RulesError` (with `file`, `line`, `column`, and
    `errors`: every error as (message, line, column, code)) when it cannot be read or has
    errors."""
    return Game(_native.load(str(path), text), str(path))


class Game:
    """A checked rules file."""

    def __init__(self, native, path):
        self.native = native
        self.path = path

    name = property(lambda self: self.native.name)
    min_players = property(lambda self: self.native.min_players)
    max_players = property(lambda self: self.native.max_players)
    variants = property(lambda self: self.native.variants)
    constants = property(lambda self: dict(self.native.constants))
    warnings = property(lambda self: self.native.warnings)

    def __repr__(self):
        return f"<rulebook.Game {self.name!r} from {self.path}>"

    def match(self, players=None, seed=0, variant=None, constants=None, chance="seeded", seat=None):
        """Starts a match to play (see `Match`). `seat`: the match as one seat's client sees
        it (its view, its actions only)."""
        if seat is not None and (not isinstance(seat, int) or not 0 <= seat < 256):
            raise ProtocolError(f"seat must be a seat number from 0, not {seat!r}")
        m = Match(self, seat=None)
        request = {"cmd": "new", "seed": seed, "chance": chance}
        if players is not None:
            request["players"] = players
        if variant is not None:
            request["variant"] = variant
        if constants:
            request["set"] = dict(constants)
        m.request(request)
        if seat is not None:
            m.seat = seat
        return m

    def load_match(self, data):
        """A match from a save (`Match.save()`); `SaveError` when it does not load."""
        m = Match(self)
        m.request({"cmd": "load", "data": data})
        return m

    def start(self, players=None, seed=0, variant=None, constants=None, chance="external"):
        """A bare state (`rulebook.State`) with action codes and view tensors, as the OpenSpiel
        game and the PettingZoo environment use it."""
        return self.native.start(players, seed, variant, constants, chance)

    def simulate(self, games, players=None, seed=0, variant=None, constants=None, agents=None,
                 threads=1, max_turns=None, lead=False):
        """`rulebook simulate`: the summary as a dict (the JSON `simulate --json` prints)."""
        return json.loads(self.native.simulate(games, players, seed, variant, constants, agents,
                                               threads, max_turns, lead))

    def tune(self, params, goals, games=100, budget=20000, players=None, seed=0, variant=None,
             constants=None, agents=None, threads=1, max_turns=None):
        """`rulebook tune`: params as `NAME=LO..HI`, goals as `METRIC in LO..HI`; the best
        candidate, whether it meets every goal, and every trial, as a dict."""
        return json.loads(self.native.tune(list(params), list(goals), games, budget, players, seed,
                                           variant, constants, agents, threads, max_turns))

    def count(self, depth, players=None, variant=None, constants=None, threads=1):
        """`rulebook count`: nodes per depth, finished games, outcomes (chance external)."""
        return json.loads(self.native.count(depth, players, variant, constants, threads))


class Match:
    """A match being played: legal actions, apply, undo, views, log, why, saves, suggest.

    With `seat` set (`Game.match(..., seat=1)`), requests are answered as that seat's client:
    its view, its legal actions, its own undo only.
    """

    def __init__(self, game, seat=None):
        self.game = game
        self._host = game.native.session(None)
        self.seat = seat

    def request(self, request):
        """Sends one protocol request (a dict) and returns the reply (a dict); an error reply
        raises its exception."""
        reply = json.loads(self._host.request(json.dumps(request)))
        if "error" in reply:
            _raise(reply["error"], self.game.path)
        return reply

    @property
    def actor(self):
        """`p1`, `p2`, ..., `chance` or `nobody`."""
        return self.request({"cmd": "status"})["actor"]

    def status(self):
        return self.request({"cmd": "status"})

    def legal(self):
        """The legal actions: dicts with `text`, `name`, `args` (or chance outcomes with their
        `probability`)."""
        r = self._seat_request({"cmd": "legal"})
        return r.get("actions", r.get("outcomes"))

    def apply(self, action):
        """Applies an action by its canonical text (`place cell=b2`)."""
        return self._seat_request({"cmd": "apply", "action": action})

    def undo(self):
        return self._seat_request({"cmd": "undo"})

    def view(self, seat=None):
        """What `seat` may see (default: the match's seat, else a spectator)."""
        return self._seat_request({"cmd": "view", "seat": seat if seat is not None else self.seat})["view"]

    def log(self, seat=None, start=0):
        """The decisions as `seat` may read them."""
        return self._seat_request({"cmd": "log", "from": start,
                                   "seat": seat if seat is not None else self.seat})["entries"]

    def why(self, action):
        """Why an action is (not) legal now: dict with `legal`, `reason`, `at`."""
        return self._seat_request({"cmd": "why", "action": action})

    def suggest(self, playouts=None):
        """The action `rulebook`'s search suggests to the seat that must act."""
        r = {"cmd": "suggest"}
        if playouts is not None:
            r["playouts"] = playouts
        return self._seat_request(r)["action"]

    def save(self):
        """The save as text; `Game.load_match` reads it back. A match bound to a seat may not
        save (`ProtocolError`): a save holds every decision, hidden ones too."""
        return self._seat_request({"cmd": "save"})["data"]

    @property
    def finished(self):
        return self.status()["finished"]

    def _seat_request(self, request):
        if self.seat is None:
            return self.request(request)
        return self._host_as_seat(request)

    def _host_as_seat(self, request):
        # The host's session answers as the seat's client would (`Session::run_as`): the
        # reply is derived from that seat's view and legal actions only.
        reply = json.loads(self._host.request_as(self.seat, json.dumps(request)))
        if "error" in reply:
            _raise(reply["error"], self.game.path)
        return reply

