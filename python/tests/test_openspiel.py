"""The OpenSpiel game: stable actions, chance, information per seat, CFR, MCTS, tree counts."""

import glob
import json
import os
import subprocess

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import rulebook  # noqa: E402
from conftest import ROOT, rules  # noqa: E402


def test_actions_are_stable_integers_with_canonical_texts():
    g = rulebook.openspiel_game(rules("classic/tic_tac_toe"))
    assert g.num_distinct_actions() == 9
    assert g.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert g.get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert g.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    s = g.new_initial_state()
    assert s.legal_actions() == list(range(9))
    assert [s.action_to_string(a) for a in (0, 1, 3)] == [
        "place cell=a1", "place cell=b1", "place cell=a2"]
    s.apply_action(4)
    assert 4 not in s.legal_actions() and s.legal_actions() == [0, 1, 2, 3, 5, 6, 7, 8]
    # The same code names the same option in every state.
    assert s.action_to_string(4) == "place cell=b2"
    with pytest.raises(Exception):
        s.apply_action(4)
    # Nim: a pile and a number of stones, mixed radix in declaration order.
    nim = rulebook.openspiel_game(rules("classic/nim"))
    s = nim.new_initial_state()
    texts = {a: s.action_to_string(a) for a in s.legal_actions()}
    assert len(set(texts.values())) == len(texts)
    assert nim.num_distinct_actions() % 7 == 0  # n in 1..7 is the last digit


def test_chance_outcomes_carry_the_engine_weights():
    g = rulebook.openspiel_game(rules("classic/kuhn_poker"))
    assert g.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert g.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    s = g.new_initial_state()
    assert s.is_chance_node()
    outcomes = s.chance_outcomes()
    assert [p for _, p in outcomes] == [1 / 3] * 3
    assert sorted(s.action_to_string(a) for a, _ in outcomes) == ["chance J", "chance K", "chance Q"]
    pig = rulebook.openspiel_game(rules("classic/pig"), WIN=20)
    s = pig.new_initial_state()
    s.apply_action(s.legal_actions()[0])  # roll
    assert s.is_chance_node()
    ps = [p for _, p in s.chance_outcomes()]
    assert len(ps) == 6 and abs(sum(ps) - 1) < 1e-12


def _all_states(game):
    """Every non-terminal state of the game's tree (depth first), with its history."""
    stack = [game.new_initial_state()]
    while stack:
        s = stack.pop()
        if s.is_terminal():
            continue
        yield s
        for a in s.legal_actions():
            stack.append(s.child(a))


def test_a_seat_never_sees_another_seats_hidden_card():
    """Kuhn poker: two states that differ only in the other seat's card give a seat the same
    information state, observation string and observation tensor; its own card does change
    them (so the comparison can fail)."""
    g = rulebook.openspiel_game(rules("classic/kuhn_poker"))
    for seat in (0, 1):
        seen = {}
        for s in _all_states(g):
            if s.is_chance_node() or len(s.history()) < 2:
                continue
            h = s.history()  # two chance deals, then the players' actions
            own = s.information_state_string(seat)
            key = (json.dumps(json.loads(own.splitlines()[-1])["zones"][1 + seat]["visible"]),
                   tuple(h[2:]))
            obs = (own, s.observation_string(seat), tuple(s.observation_tensor(seat)))
            seen.setdefault(key, set()).add(obs)
        assert all(len(v) == 1 for v in seen.values()), seat
        own_cards = {k[0] for k in seen}
        assert len(own_cards) == 3
    # And the hidden card's name is never in the other seat's strings before a showdown.
    s = g.new_initial_state()
    s.apply_action(0)
    s.apply_action(0)
    view1 = json.loads(s.observation_string(1))
    theirs = [z for z in json.loads(s.observation_string(0))["zones"] if z["zone"] == "hand[p1]"]
    card = theirs[0]["visible"][0]
    assert card not in json.dumps([z for z in view1["zones"] if z["zone"] == "hand[p1]"])
    assert f'"{card}"' not in s.information_state_string(1)


def test_phantom_marks_stay_hidden():
    """Phantom tic-tac-toe: p1's mark changes nothing p2 sees; p2's tries are not told to p1."""
    g = rulebook.openspiel_game(rules("classic/phantom_ttt"))
    s = g.new_initial_state()
    before = (s.observation_string(1), s.observation_tensor(1))
    mine = s.observation_string(0)
    info = s.information_state_string(1)
    s.apply_action(4)  # p1 marks b2
    assert s.current_player() == 1
    after = (s.observation_string(1), s.observation_tensor(1))
    assert json.loads(after[0])["vars"] == json.loads(before[0])["vars"]
    assert after[1][7:] == before[1][7:]  # past the actor and observer one-hots
    assert json.loads(s.observation_string(0))["vars"] != json.loads(mine)["vars"]
    s.apply_action(4)  # p2 runs into it and must try again
    assert s.current_player() == 1
    p1 = s.information_state_string(0)
    s.apply_action(0)  # p2 marks a1
    assert s.information_state_string(0).count("\n") == p1.count("\n") + 1  # the turn only
    assert info.splitlines()[0] == s.information_state_string(1).splitlines()[0]


def test_cfr_on_kuhn_poker_reaches_the_game_value():
    from open_spiel.python.algorithms import cfr, exploitability, expected_game_score

    g = rulebook.openspiel_game(rules("classic/kuhn_poker"))
    solver = cfr.CFRSolver(g)
    for _ in range(500):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    expl = exploitability.exploitability(g, policy)
    value = expected_game_score.policy_value(g.new_initial_state(), [policy] * 2)[0]
    assert expl < 0.02
    assert abs(value - (-1 / 18)) < 0.01


@pytest.mark.parametrize("name, params", [
    ("classic/tic_tac_toe", {}),
    ("classic/kuhn_poker", {}),
    ("classic/pig", {"WIN": 20}),
    ("classic/connect_four", {}),
    ("classic/nine_mens_morris", {"sample_games": 5}),
])
def test_mcts_bot_plays_to_the_end(name, params):
    from open_spiel.python.algorithms import mcts

    g = rulebook.openspiel_game(rules(name), **params)
    rng = np.random.RandomState(7)
    bots = [mcts.MCTSBot(g, 2.0, 20, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
            for _ in range(g.num_players())]
    s = g.new_initial_state()
    steps = 0
    while not s.is_terminal() and steps < 400:
        if s.is_chance_node():
            actions, probs = zip(*s.chance_outcomes())
            s.apply_action(int(rng.choice(actions, p=probs)))
        else:
            s.apply_action(bots[s.current_player()].step(s))
        steps += 1
    assert s.is_terminal(), name
    assert len(s.returns()) == g.num_players()


def _tree_count(game, depth):
    nodes = [0] * (depth + 1)
    stack = [(game.new_initial_state(), 0)]
    while stack:
        s, d = stack.pop()
        nodes[d] += 1
        if d == depth or s.is_terminal():
            continue
        actions = [a for a, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()
        for a in actions:
            stack.append((s.child(a), d + 1))
    return nodes


@pytest.mark.parametrize("name, depth", [("classic/tic_tac_toe", 4), ("classic/kuhn_poker", 6),
                                         ("classic/nim", 3)])
def test_a_tree_count_through_the_python_game_equals_rulebook_count(name, depth):
    g = rulebook.openspiel_game(rules(name))
    counted = rulebook.load(rules(name)).count(depth, players=g.num_players())["nodes"]
    assert _tree_count(g, depth) == counted


def test_the_command_lines_count_agrees():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    exe = os.path.join(target, "debug", "rulebook")
    if not os.path.exists(exe):
        pytest.skip("no target/debug/rulebook: `cargo build` makes it")
    out = subprocess.run([exe, "count", rules("classic/kuhn_poker"), "--depth", "6", "--json"],
                         capture_output=True, text=True, check=True).stdout
    g = rulebook.openspiel_game(rules("classic/kuhn_poker"))
    assert _tree_count(g, 6) == json.loads(out)["nodes"]


def test_bad_parameters_raise_config_errors():
    with pytest.raises(rulebook.ConfigError):
        rulebook.openspiel_game(rules("classic/tic_tac_toe"), players=3)
    with pytest.raises(rulebook.ConfigError):
        rulebook.openspiel_game(rules("classic/pig"), NOPE=1)
    with pytest.raises(rulebook.ConfigError):
        rulebook.openspiel_game(rules("classic/pig"), utility="maybe")
    with pytest.raises(rulebook.RulesError):
        rulebook.openspiel_game("missing.rules")


def test_unnumbered_games_fall_back_to_positions():
    g = rulebook.openspiel_game(rules("classic/nine_mens_morris"), sample_games=2)
    assert g.rulebook_codes.startswith("positions")
    assert g.num_distinct_actions() == 1024
    s = g.new_initial_state()
    assert s.legal_actions() == list(range(len(s.legal_actions())))
    assert s.action_to_string(0).startswith("place at=")


ALL_RULES = sorted(glob.glob(os.path.join(ROOT, "rules", "*.rules"))
                   + glob.glob(os.path.join(ROOT, "rules", "classic", "*.rules")))


@pytest.mark.parametrize("path", ALL_RULES, ids=os.path.basename)
def test_every_rules_file_is_an_openspiel_game(path):
    """Every rules file of the repository loads as an OpenSpiel game whose legal actions lie
    below `num_distinct_actions()`, each with its text, and plays 40 random decisions."""
    import random

    g = rulebook.openspiel_game(path, sample_games=2, max_game_length=1000)
    n = g.num_distinct_actions()
    s = g.new_initial_state()
    rng = random.Random(1)
    for _ in range(40):
        if s.is_terminal():
            break
        if s.is_chance_node():
            outcomes = s.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
            s.apply_action(rng.choice([a for a, _ in outcomes]))
            continue
        legal = s.legal_actions()
        assert legal and all(0 <= a < n for a in legal)
        assert len({s.action_to_string(a) for a in legal}) == len(legal)
        assert len(s.observation_tensor(s.current_player())) == len(s.observation_tensor(0))
        s.apply_action(rng.choice(legal))
