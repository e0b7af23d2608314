"""rulebook in Python: load a rules file, play it, simulate and tune it, and hand it to
OpenSpiel (`openspiel_game`) or PettingZoo and Gymnasium (`pettingzoo_env`, `gymnasium_env`).

    import rulebook
    game = rulebook.load("rules/classic/tic_tac_toe.rules")
    m = game.match(players=2, seed=1)
    m.apply("place cell=b2")
    print(m.legal()[0]["text"], m.view(seat=1)["vars"][:2])

Every failure raises a `rulebook.RulebookError` subclass carrying `message`, `code`, and the
`file`, `line` and `column` of the rule when the error has a place.
"""

from ._native import (  # noqa: F401
    Agent,
    ConfigError,
    GameOverError,
    IllegalActionError,
    LimitError,
    NothingToUndoError,
    ProtocolError,
    RuleFailedError,
    RulebookError,
    RulesError,
    SaveError,
)
from ._native import State  # noqa: F401
from ._play import Game, Match, load  # noqa: F401


def openspiel_game(path, **params):
    """The rules file as a `pyspiel.Game` (see `rulebook.openspiel`)."""
    from .openspiel import openspiel_game as make

    return make(path, **params)


def pettingzoo_env(path, **params):
    """The rules file as a PettingZoo AEC environment (see `rulebook.pettingzoo`)."""
    from .pettingzoo import pettingzoo_env as make

    return make(path, **params)


def gymnasium_env(path, seat=0, opponents="random", **params):
    """The rules file as a Gymnasium environment for one seat, the other seats played by the
    named agent (`random`, `mcts:N`) (see `rulebook.pettingzoo`)."""
    from .pettingzoo import gymnasium_env as make

    return make(path, seat=seat, opponents=opponents, **params)


__all__ = [
    "load",
    "Game",
    "Match",
    "State",
    "Agent",
    "openspiel_game",
    "pettingzoo_env",
    "gymnasium_env",
    "RulebookError",
    "RulesError",
    "ConfigError",
    "IllegalActionError",
    "RuleFailedError",
    "LimitError",
    "SaveError",
    "GameOverError",
    "NothingToUndoError",
    "ProtocolError",
]
