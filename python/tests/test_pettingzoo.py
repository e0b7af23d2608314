"""The PettingZoo environment and the Gymnasium wrapper."""

import json

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

import rulebook  # noqa: E402
from conftest import rules  # noqa: E402


@pytest.mark.parametrize("name, params", [
    ("classic/tic_tac_toe", {}),
    ("classic/kuhn_poker", {}),  # hidden cards and a shuffle
    ("classic/pig", {"WIN": 20, "max_turns": 200}),  # dice
    ("classic/phantom_ttt", {}),  # hidden marks
])
def test_api_test_passes(name, params):
    from pettingzoo.test import api_test

    env = rulebook.pettingzoo_env(rules(name), **params)
    api_test(env, num_cycles=200, verbose_progress=False)


def test_masks_observations_and_rewards():
    env = rulebook.pettingzoo_env(rules("classic/kuhn_poker"))
    env.reset(seed=3)
    assert env.agents == ["p1", "p2"] and env.agent_selection == "p1"
    obs = env.observe("p1")
    assert obs["action_mask"].tolist() == [1, 1]
    assert env.observe("p2")["action_mask"].tolist() == [0, 0]
    assert obs["observation"].shape == env.observation_space("p1")["observation"].shape
    # Each seat's observation holds its own card only: the whole view differs from both.
    whole = np.asarray(env.state_.view_tensor(None))
    assert not np.array_equal(obs["observation"][7:], env.observe("p2")["observation"][7:])
    assert whole[7:].sum() < obs["observation"][7:].sum()
    env.step(1)  # p1 bets
    env.step(0)  # p2 folds
    assert all(env.terminations.values())
    assert env.rewards == {"p1": 1.0, "p2": -1.0}


def test_seeds_make_the_same_game():
    def play(seed):
        env = rulebook.pettingzoo_env(rules("classic/pig"), WIN=20, max_turns=100)
        env.reset(seed=seed)
        seen = []
        for agent in env.agent_iter(300):
            obs, reward, term, trunc, _ = env.last()
            action = None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0])
            seen.append((agent, reward, action, obs["observation"].tolist()))
            env.step(action)
        return seen
    assert play(5) == play(5)
    assert play(5) != play(6)


@pytest.mark.parametrize("opponents", ["random", "mcts:30"])
def test_the_gymnasium_wrapper_plays_an_episode(opponents):
    env = rulebook.gymnasium_env(rules("classic/tic_tac_toe"), seat=1, opponents=opponents)
    obs, info = env.reset(seed=2)
    assert env.observation_space.contains(obs)
    total, done, steps = 0.0, False, 0
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        done = terminated or truncated
        steps += 1
    assert terminated and total in (-1.0, 0.0, 1.0) and 1 <= steps <= 5


def test_the_gymnasium_wrapper_refuses_bad_names():
    with pytest.raises(rulebook.ConfigError):
        rulebook.gymnasium_env(rules("classic/tic_tac_toe"), opponents="grandmaster")
    with pytest.raises(rulebook.ConfigError):
        rulebook.gymnasium_env(rules("classic/tic_tac_toe"), seat=4)


def test_an_observation_holds_only_the_seats_own_card():
    """Kuhn poker over many deals: a seat's observation is the same whenever its own card is,
    whatever the other seat holds (and differs with its own card, so this can fail)."""
    for seat, agent in enumerate(["p1", "p2"]):
        by_card = {}
        for seed in range(30):
            env = rulebook.pettingzoo_env(rules("classic/kuhn_poker"))
            env.reset(seed=seed)
            own = json.loads(env.state_.view(seat))["zones"][1 + seat]["visible"]
            by_card.setdefault(tuple(own), set()).add(tuple(env.observe(agent)["observation"]))
        assert len(by_card) == 3
        assert all(len(v) == 1 for v in by_card.values()), seat
