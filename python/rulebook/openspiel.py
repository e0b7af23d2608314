"""A rules file as an OpenSpiel game (`pyspiel.Game`, OpenSpiel's Python game API).

`openspiel_game(path, players=None, variant=None, seed=0, utility="auto", **constants)`:

- **Actions** are the game's action codes (`rulebook::engine::ActionCodes`): every option
  the game can offer has one integer, the same in every state — per action declaration (then
  per inline option of a choice) the mixed-radix number of its parameters' values, each in its
  finite domain, in declaration order; `num_distinct_actions()` is their number.
  `action_to_string` is the canonical action text (`place cell=b2`). A game whose options
  cannot be numbered so (a `sequence action`, a number whose range depends on the state)
  falls back to the position of the action in the engine's legal list, with
  `num_distinct_actions()` = `max_actions` (default 1024); `rulebook_codes` says which.
- **Chance**: chance events are decisions (`ChanceMode::External`); `chance_outcomes()`
  gives each outcome with its weight divided by the total weight (exact fractions as floats,
  summing to 1). A chance outcome's action is its position in the engine's list.
- **Information**: the information state string of a player is its view at the start, each
  later view that differs from the one before, and its own actions' texts; the observation
  string is its view now (JSON); the observation tensor is its view as numbers
  (`rulebook::engine::ViewCodes`). All are derived from that seat's view, never from the whole
  state.
- **Returns**: the final scores when the game declares `score`, else +1 for each winner and
  -1 for each other seat (0 for all in a draw). `utility="auto"` declares the game zero-sum
  when every one of `sample_games` seeded random games (default 200) summed to 0, else
  general-sum; `utility="zero_sum"` or `"general_sum"` says it outright. The utilities'
  bounds and the longest game are estimated from the same games (`max_game_length` may be
  given).
"""

import hashlib
import json

import numpy as np
import pyspiel

from ._play import load
from ._native import ConfigError

_REGISTERED = {}

_KNOWN = {"players", "variant", "seed", "utility", "sample_games", "max_actions",
          "max_game_length", "max_chance_outcomes"}


def _sample(native, players, variant, constants, seed, games):
    """Seeded random games with external chance: (returns per game, longest game, whether
    any chance event was met)."""
    from ._native import Agent

    sums, lo, hi, longest, chance = [], 0.0, 0.0, 1, False
    for i in range(games):
        st = native.start(players, seed + i, variant, constants, "external")
        agent = Agent("random", seed + i)
        steps = 0
        while st.actor() != -4 and steps < 100_000:
            if st.actor() == -1:
                chance = True
            code = agent.choose(st)
            st.apply_code(code)
            steps += 1
        r = _returns(native, st)
        sums.append(sum(r))
        lo, hi = min(lo, *r), max(hi, *r)
        longest = max(longest, steps)
    return sums, lo, hi, longest, chance


def _returns(native, st):
    out = st.outcome()
    if out is None:
        return [0.0] * st.players
    scores, winners, kind = out
    if native.has_score:
        return [float(s) for s in scores]
    if kind == "Lost":
        return [-1.0] * st.players
    if not winners:
        return [0.0] * st.players
    return [1.0 if p in winners else -1.0 for p in range(st.players)]


def openspiel_game(path, **params):
    """The rules file at `path` as a `pyspiel.Game` (see the module's documentation).
    Keywords other than the known ones set the game's constants (`openspiel_game(p, SIZE=5)`);
    a bad one raises `ConfigError`."""
    game = load(path)
    native = game.native
    players = params.pop("players", None) or native.min_players
    variant = params.pop("variant", None)
    seed = int(params.pop("seed", 0))
    utility = params.pop("utility", "auto")
    sample_games = int(params.pop("sample_games", 200))
    max_actions = int(params.pop("max_actions", 1024))
    max_length = params.pop("max_game_length", None)
    max_chance = params.pop("max_chance_outcomes", None)
    constants = dict(params)
    if utility not in ("auto", "zero_sum", "general_sum"):
        raise ConfigError(f"utility must be auto, zero_sum or general_sum, not {utility!r}")
    # Starting checks the players, variant and constants (ConfigError).
    first = native.start(players, seed, variant, constants, "external")
    size, refused = first.action_codes()
    sums, lo, hi, longest, chance = _sample(native, players, variant, constants, seed,
                                            max(1, sample_games))
    if utility == "auto":
        utility = "zero_sum" if all(abs(s) < 1e-9 for s in sums) else "general_sum"
    key = json.dumps([str(path), players, variant, seed, sorted(constants.items()), utility],
                     default=str)
    short = "rulebook_" + hashlib.sha1(key.encode()).hexdigest()[:12]
    n_actions = size if refused is None else max_actions
    info = dict(
        num_distinct_actions=int(max(1, n_actions)),
        max_chance_outcomes=int(max_chance or max(1, _max_chance(native))),
        num_players=int(players),
        min_utility=float(lo if lo < hi else -1.0),
        max_utility=float(hi if lo < hi else 1.0),
        utility_sum=0.0 if utility == "zero_sum" else None,
        max_game_length=int(max_length or 2 * longest),
    )
    game_type = pyspiel.GameType(
        short_name=short,
        long_name=f"rulebook {native.name or path}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if chance or
                     native.has_chance else pyspiel.GameType.ChanceMode.DETERMINISTIC),
        information=(pyspiel.GameType.Information.PERFECT_INFORMATION if native.hides_nothing
                     else pyspiel.GameType.Information.IMPERFECT_INFORMATION),
        utility=(pyspiel.GameType.Utility.ZERO_SUM if utility == "zero_sum"
                 else pyspiel.GameType.Utility.GENERAL_SUM),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=int(players),
        min_num_players=int(players),
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={},
    )
    setup = dict(native=native, players=players, variant=variant, seed=seed,
                 constants=constants, codes=(size, refused), path=str(path))

    class RulebookGame(pyspiel.Game):
        def __init__(self, params=None):
            super().__init__(game_type, pyspiel.GameInfo(**info), params or {})
            self.rulebook = setup
            self.rulebook_codes = "stable" if refused is None else f"positions: {refused}"

        def new_initial_state(self):
            st = native.start(players, seed, variant, constants, "external")
            return RulebookState(self, st)

        def make_py_observer(self, iig_obs_type=None, params=None):
            return RulebookObserver(iig_obs_type, first.view_size())

    if short not in _REGISTERED:
        pyspiel.register_game(game_type, RulebookGame)
        _REGISTERED[short] = RulebookGame
    return _REGISTERED[short]()


def _max_chance(native):
    # A shuffle's outcomes are components, a roll's its values: at most the larger of the
    # number of components and a generous bound for dice.
    return max(native.components, 64)


class RulebookState(pyspiel.State):
    """A state of a rules file's game; its work is done by `rulebook.State`."""

    def __init__(self, game, native_state):
        super().__init__(game)
        self.native = native_state

    def __deepcopy__(self, memo):
        return RulebookState(self.get_game(), self.native.clone())

    def current_player(self):
        a = self.native.actor()
        if a == -1:
            return pyspiel.PlayerId.CHANCE
        if a < 0:
            return pyspiel.PlayerId.TERMINAL
        return a

    def _legal_actions(self, player):
        if player != self.native.actor():
            return []
        return sorted(self.native.legal_codes())

    def chance_outcomes(self):
        outcomes, total = self.native.chance_outcomes()
        return [(code, w / total) for code, w in outcomes]

    def _apply_action(self, action):
        self.native.apply_code(int(action))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            for code, text in self.native.legal():
                if code == action:
                    return text
            return f"chance {action}"
        return self.native.code_text(int(action))

    def is_terminal(self):
        return self.native.is_over()

    def returns(self):
        return _returns(self.get_game().rulebook["native"], self.native)

    def __str__(self):
        return self.native.view(None)


class RulebookObserver:
    """OpenSpiel's observer over a seat's view: with perfect recall, the information state
    string (and no tensor); otherwise the view as JSON and as numbers."""

    def __init__(self, iig_obs_type, size):
        self.perfect_recall = bool(iig_obs_type and iig_obs_type.perfect_recall)
        self.tensor = np.zeros(0 if self.perfect_recall else size, np.float32)
        self.dict = {"view": self.tensor}

    def set_from(self, state, player):
        if not self.perfect_recall:
            self.tensor[:] = state.native.view_tensor(player)

    def string_from(self, state, player):
        if self.perfect_recall:
            return state.native.information_state(player)
        return state.native.view(player)

