"""The play API: loading, matches, errors, simulate, tune, count."""

import json

import pytest

import rulebook
from conftest import rules


def test_a_bad_path_is_a_rules_error():
    with pytest.raises(rulebook.RulesError) as e:
        rulebook.load("no/such/file.rules")
    assert "no/such/file.rules" in str(e.value)
    assert isinstance(e.value, rulebook.RulebookError)


def test_bad_rules_name_their_place():
    text = 'game "Bad"\nplayers 2\n\nflow { turn seat(0) { choose { fly } } }\n'
    with pytest.raises(rulebook.RulesError) as e:
        rulebook.load("bad.rules", text)
    err = e.value
    assert (err.file, err.line) == ("bad.rules", 4)
    assert err.column == text.splitlines()[3].index("fly") + 1
    assert "fly" in err.message
    assert err.errors and err.errors[0][1] == 4


def test_a_game_is_played_undone_saved_and_loaded():
    game = rulebook.load(rules("classic/tic_tac_toe"))
    assert (game.name, game.min_players, game.max_players) == ("Tic-tac-toe", 2, 2)
    m = game.match(players=2, seed=1)
    assert [a["text"] for a in m.legal()][:2] == ["place cell=a1", "place cell=b1"]
    m.apply("place cell=b2")
    assert m.actor == "p2"
    assert not m.why("place cell=b2")["legal"]
    with pytest.raises(rulebook.IllegalActionError) as e:
        m.apply("place cell=b2")
    assert "place cell=b2" in e.value.message
    m.undo()
    assert m.why("place cell=b2")["legal"]
    with pytest.raises(rulebook.NothingToUndoError):
        m.undo()
    for a in ["place cell=a1", "place cell=b1", "place cell=b2", "place cell=c1", "place cell=c3"]:
        m.apply(a)
    assert m.finished and m.status()["winners"] == [0]
    with pytest.raises(rulebook.GameOverError):
        m.apply("place cell=a3")
    again = game.load_match(m.save())
    assert again.status() == m.status()
    assert [e["text"] for e in again.log()] == [e["text"] for e in m.log()]


def test_bad_configurations_and_saves():
    game = rulebook.load(rules("classic/tic_tac_toe"))
    with pytest.raises(rulebook.ConfigError):
        game.match(players=5)
    with pytest.raises(rulebook.ConfigError):
        game.match(variant="nonesuch")
    with pytest.raises(rulebook.ConfigError):
        game.start(players=2, constants={"NOPE": 3})
    with pytest.raises(rulebook.ConfigError):
        game.start(players=2, chance="sometimes")
    with pytest.raises(rulebook.SaveError):
        game.load_match('{"version": 1, "rules_hash": "0", "config": {}, "log": []}')
    st = game.start(players=2)
    with pytest.raises(rulebook.IllegalActionError):
        st.apply_code(9)
    with pytest.raises(rulebook.IllegalActionError):
        st.apply_text("place cell=z9")
    with pytest.raises(rulebook.ProtocolError):
        st.view(7)
    # Numbers out of any range are refused the same way, not by an overflow.
    with pytest.raises(rulebook.IllegalActionError):
        st.apply_code(-1)
    with pytest.raises(rulebook.ProtocolError):
        st.view(-1)
    with pytest.raises(rulebook.ConfigError):
        game.start(players=300)
    with pytest.raises(rulebook.ProtocolError):
        game.match(players=2, seat=-1)


def test_a_seat_sees_only_its_view_through_the_play_api():
    game = rulebook.load(rules("classic/kuhn_poker"))
    for seed in range(6):
        host = game.match(players=2, seed=seed)
        whole = host.request({"cmd": "state"})["state"]
        hands = {z["zone"]: z["visible"] for z in whole["zones"]}
        seen = game.match(players=2, seed=seed, seat=1)
        mine = {z["zone"]: z["visible"] for z in seen.view()["zones"]}
        assert mine["hand[p2]"] == hands["hand[p2]"]
        assert mine["hand[p1]"] == [] and hands["hand[p1]"] != []
        with pytest.raises(rulebook.ProtocolError):
            seen.view(seat=0)
        with pytest.raises(rulebook.ProtocolError):
            seen.save()  # a save holds the deal
        # p2 is not to act: no legal action, and `why` says whose turn it is.
        assert seen.legal() == []
        assert not seen.why("bet")["legal"]


def test_suggest_simulate_tune_and_count():
    game = rulebook.load(rules("classic/tic_tac_toe"))
    m = game.match(players=2, seed=3)
    assert m.suggest(playouts=200) in [a["text"] for a in m.legal()]
    s = game.simulate(50, players=2, seed=1)
    assert s["games"] == 50
    assert s == game.simulate(50, players=2, seed=1)
    c = game.count(3, players=2)
    assert c["nodes"] == [1, 9, 72, 504]
    pig = rulebook.load(rules("classic/pig"))
    assert pig.constants["WIN"] == "100"
    with pytest.raises(rulebook.ConfigError):
        pig.tune(["not a param"], ["win_rate(p1) in 0.4..0.6"])
    t = pig.tune(["WIN=10..20"], ["win_rate(p1) in 0.0..1.0"], games=20, budget=100, players=2)
    assert t["met"] and t["games"] <= 100 and set(t["best"]["values"]) == {"WIN"}
    assert 10 <= t["best"]["values"]["WIN"] <= 20
