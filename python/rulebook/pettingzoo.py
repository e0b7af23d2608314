"""A rules file as a PettingZoo AEC environment, and as a Gymnasium environment for one seat.

`pettingzoo_env(path, players=None, variant=None, seed=0, max_turns=None, render_mode=None,
max_actions=1024, **constants)`:

- agents `p1`, `p2`, ... (the game's seats); the agent to act is the seat that must choose;
- actions: `Discrete(n)` over the game's action codes (as in `rulebook.openspiel`: stable
  integers, or positions in the legal list for a game whose options cannot be numbered);
- observations: a dict with `observation`, the seat's view as numbers
  (`rulebook::engine::ViewCodes`: derived from that seat's view only), and `action_mask`, 1
  for each legal action of the seat (all 0 when it is not to act);
- chance is the match's own seeded generator (`reset(seed=...)` seeds it);
- rewards at the end: the scores when the game declares `score`, else +1 for each winner and
  -1 for each other seat; `max_turns` truncates a game after that many decisions.

`gymnasium_env(path, seat=0, opponents="random", ...)`: the same game as a single-agent
`gymnasium.Env` for `seat`; the other seats are played by the named agent (`random`,
`mcts:N`; one name for all, or a list with one per seat, the seat's own entry ignored).
"""

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ._native import Agent, ConfigError
from ._play import load
from .openspiel import _returns


class RulebookEnv(AECEnv):
    metadata = {"render_modes": ["ansi", "human"], "name": "rulebook_v0", "is_parallelizable": False}

    def __init__(self, path, players=None, variant=None, seed=0, max_turns=None, render_mode=None,
                 max_actions=1024, **constants):
        super().__init__()
        self.game = load(path)
        self.native = self.game.native
        self.players = players or self.native.min_players
        self.variant = variant
        self.constants = constants
        self.seed = seed
        self.max_turns = max_turns
        if render_mode not in (None, "ansi", "human"):
            raise ConfigError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        self.render_mode = render_mode
        probe = self._start(seed)
        size, refused = probe.action_codes()
        self.numbered = refused is None
        self.num_actions = int(size if self.numbered else max_actions)
        self.possible_agents = [f"p{i + 1}" for i in range(self.players)]
        obs = spaces.Box(low=-np.inf, high=np.inf, shape=(probe.view_size(),), dtype=np.float32)
        mask = spaces.Box(low=0, high=1, shape=(self.num_actions,), dtype=np.int8)
        self.observation_spaces = {a: spaces.Dict({"observation": obs, "action_mask": mask})
                                   for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self.state_ = None

    def _start(self, seed):
        return self.native.start(self.players, seed, self.variant, self.constants, "seeded")

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def _seat(self, agent):
        return self.possible_agents.index(agent)

    def _mask(self, seat):
        mask = np.zeros(self.num_actions, np.int8)
        if self.state_.actor() == seat:
            codes = self.state_.legal_codes()
            if any(c >= self.num_actions for c in codes):
                raise ConfigError(
                    f"{len(codes)} legal actions, more than max_actions={self.num_actions}")
            mask[codes] = 1
        return mask

    def observe(self, agent):
        seat = self._seat(agent)
        return {"observation": np.asarray(self.state_.view_tensor(seat), np.float32),
                "action_mask": self._mask(seat)}

    def reset(self, seed=None, options=None):
        if seed is not None:
            self.seed = seed
        self.state_ = self._start(self.seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._select()

    def _select(self):
        actor = self.state_.actor()
        if actor >= 0:
            self.agent_selection = self.possible_agents[actor]
        elif self.agents:
            self.agent_selection = self.agents[0]

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.state_.apply_code(int(action))
        if self.state_.is_over():
            returns = _returns(self.native, self.state_)
            for i, a in enumerate(self.agents):
                self.rewards[a] = returns[self._seat(a)]
                self.terminations[a] = True
        elif self.max_turns is not None and self.state_.decisions >= self.max_turns:
            for a in self.agents:
                self.truncations[a] = True
        else:
            for a in self.agents:
                self.rewards[a] = 0.0
        self._select()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        text = self.state_.view(None)
        if self.render_mode == "human":
            print(text)
        return text

    def close(self):
        pass


def pettingzoo_env(path, **params):
    """The rules file at `path` as a PettingZoo AEC environment."""
    return RulebookEnv(path, **params)


class RulebookGymEnv(gymnasium.Env):
    """One seat of a rules file's game; the others played by named agents."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, path, seat=0, opponents="random", render_mode=None, **params):
        self.env = RulebookEnv(path, render_mode=render_mode, **params)
        if not 0 <= seat < self.env.players:
            raise ConfigError(f"seat must be a number from 0 to {self.env.players - 1}")
        self.seat = seat
        names = [opponents] * self.env.players if isinstance(opponents, str) else list(opponents)
        if len(names) != self.env.players:
            raise ConfigError(f"opponents: one agent name, or one per seat ({self.env.players})")
        self.opponents = names
        # Checks the names now (ConfigError).
        for i, n in enumerate(names):
            if i != seat:
                Agent(n, 0)
        agent = self.env.possible_agents[seat]
        self.observation_space = self.env.observation_space(agent)
        self.action_space = self.env.action_space(agent)
        self.render_mode = render_mode
        self.agents = {}

    def _play_others(self):
        st = self.env.state_
        while not st.is_over() and st.actor() != self.seat:
            if self.env.max_turns is not None and st.decisions >= self.env.max_turns:
                return True
            st.apply_code(self.agents[st.actor()].choose(st))
        return self.env.max_turns is not None and st.decisions >= self.env.max_turns

    def _obs(self):
        return self.env.observe(self.env.possible_agents[self.seat])

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.env.reset(seed=seed)
        base = self.env.seed
        self.agents = {i: Agent(n, base * 1000 + i) for i, n in enumerate(self.opponents)
                       if i != self.seat}
        self._play_others()
        obs = self._obs()
        return obs, {"action_mask": obs["action_mask"]}

    def step(self, action):
        st = self.env.state_
        st.apply_code(int(action))
        truncated = self._play_others()
        terminated = st.is_over()
        reward = _returns(self.env.native, st)[self.seat] if terminated else 0.0
        obs = self._obs()
        return obs, float(reward), terminated, truncated and not terminated, {
            "action_mask": obs["action_mask"]}

    def render(self):
        return self.env.state_.view(None)


def gymnasium_env(path, seat=0, opponents="random", **params):
    """The rules file at `path` as a Gymnasium environment for `seat`."""
    return RulebookGymEnv(path, seat=seat, opponents=opponents, **params)
