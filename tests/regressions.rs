//! Bugs found in review, each with the smallest game that showed it.

use rulebook::engine::State;
use rulebook::source::{FileId, Source};
use rulebook::{Config, Game};

fn game(text: &str) -> Game {
    let loaded = rulebook::load("test.rules", text);
    loaded.game.unwrap_or_else(|| {
        panic!(
            "does not check:\n{}",
            loaded
                .diagnostics
                .problems
                .iter()
                .map(|p| p.message.clone())
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

/// `roll c.f` without `in` rolls within the range of the field of `c`'s own type: another
/// type declared first, with a field at the same position, must not lend its range.
#[test]
fn a_rolled_field_uses_the_range_of_its_own_type() {
    let g = game(
        r#"
        players 1
        component Token { big: 10..15 }
        component Die { face: 1..6 }
        zone bag: Token
        zone tray: Die
        components Token in bag { "t" { big = 10 } }
        components Die in tray { "d" { face = 1 } }
        var seen: int
        action throw() { roll top(tray).face  seen = top(tray).face }
        flow { repeat 200 { turn seat(0) { choose { throw } } } }
        "#,
    );
    let mut faces = std::collections::BTreeSet::new();
    let mut st: State = g
        .start(&Config {
            players: 1,
            seed: 3,
            ..Default::default()
        })
        .expect("starts");
    let mut legal = Vec::new();
    while !st.is_over() {
        g.legal(&st, &mut legal).expect("legal");
        g.apply(&mut st, &legal[0]).expect("applies");
        let seen = g.vars.iter().position(|v| v.name == "seen").unwrap();
        if let rulebook::ir::Value::Int(n) = st.var(g.vars.as_slice()[seen].base as usize) {
            faces.insert(n);
        }
    }
    assert_eq!(
        faces.into_iter().collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5, 6],
        "a d6 rolls 1 to 6"
    );
}

/// A scenario whose game cannot start points at the rule that failed, in the rules file,
/// not at the same line of the scenario file.
#[test]
fn a_game_that_cannot_start_is_blamed_in_the_rules_file() {
    let rules = "players 2\n\nvar small: 1..3 = 7\nflow { end }\n";
    let loaded = rulebook::load("small.rules", rules);
    let (g, symbols) = (loaded.game.unwrap(), loaded.symbols.unwrap());
    let scen = "rules \"small.rules\"\nscenario \"starts\" {\n    expect not finished\n}\n";
    let file = rulebook::syntax::parse_scenarios("small.scenarios", scen).expect("parses");
    let source = Source {
        name: "small.scenarios".into(),
        text: scen.into(),
    };
    let (g, scenarios, diags) = rulebook::check::scenario::lower(g, symbols, source, &file);
    assert!(!diags.has_errors());
    let result = g.run_scenario(&scenarios[0]);
    let (span, message) = result.failure.expect("the game cannot start");
    assert!(message.contains("could not start"), "{message}");
    assert_eq!(span.file, FileId::RULES);
    let src = g.source(span);
    assert_eq!(src.name, "small.rules");
    assert_eq!(src.line_col(span.start).0, 3, "the `var` line of the rules");
}

/// Listing the outcomes of a chance event with external chance merges equal outcomes: found by
/// the fuzzer (`tests/fuzz_findings/`), a roll over 100,000 values and a shuffle of 10,000
/// cards each took minutes because every value was compared with every one before it. Each
/// value of a roll is its own outcome; cards with equal fields in the same zone are one
/// outcome whose weight is how many there are, listed where the first of them lies.
#[test]
fn chance_outcomes_of_wide_rolls_and_large_shuffles_are_listed_and_merged() {
    let external = |players| Config {
        players,
        chance: rulebook::ChanceMode::External,
        ..Config::default()
    };
    let outcomes = |g: &Game, st: &State| {
        let mut all = Vec::new();
        let total = g
            .chance_outcomes(st, &mut |v, w| all.push((v, w)))
            .expect("outcomes");
        (all, total)
    };
    for finding in ["chance_roll_wide", "chance_shuffle_large"] {
        let path = format!("tests/fuzz_findings/{finding}.rules");
        let g = game(&std::fs::read_to_string(&path).expect("readable"));
        let st = g.start(&external(1)).expect("starts");
        let (all, total) = outcomes(&g, &st);
        assert_eq!(
            all.len(),
            if finding == "chance_roll_wide" {
                100_000
            } else {
                10_000
            }
        );
        assert_eq!(
            total as usize,
            all.len(),
            "{finding}: every outcome distinct"
        );
        assert!(all.iter().all(|&(_, w)| w == 1));
    }
    // Three kinds of card, two of each, shuffled: three outcomes of weight 2, in deck order.
    let g = game(
        r#"
        players 1
        component Card { n: int }
        zone deck: Card
        components Card in deck { "c{i}" for i in 1..6 { n = i % 3 } }
        flow { shuffle deck end }
        "#,
    );
    let st = g.start(&external(1)).expect("starts");
    let (all, total) = outcomes(&g, &st);
    assert_eq!(total, 6);
    assert_eq!(all.iter().map(|o| o.1).collect::<Vec<_>>(), [2, 2, 2]);
    let firsts: Vec<_> = all
        .iter()
        .map(|o| rulebook::engine::show_value(&g, &st, o.0))
        .collect();
    assert_eq!(firsts, ["c1", "c2", "c3"]);
}

/// A match keeps a state only every `CHECKPOINT_EVERY` decisions (a million decisions kept
/// 1.1 GB of states); undo replays from the last checkpoint and must land on exactly the state
/// that was there, generator included, across several checkpoints.
#[test]
fn undo_replays_from_checkpoints_to_exactly_the_earlier_states() {
    use rand::{Rng, SeedableRng};
    let text = std::fs::read_to_string("rules/omega_shift.rules").expect("readable");
    let g = game(&text);
    let config = Config {
        players: 2,
        seed: 5,
        ..Config::default()
    };
    let mut m = rulebook::engine::Match::new(&g, config).expect("starts");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let snapshot = |m: &rulebook::engine::Match| serde_json::to_string(m.state()).expect("json");
    let mut seen = vec![snapshot(&m)];
    while seen.len() <= 3 * rulebook::engine::CHECKPOINT_EVERY + 10 {
        let legal = m.legal().expect("legal");
        if legal.is_empty() {
            break;
        }
        let pick = legal[rng.gen_range(0..legal.len())].0;
        m.apply(&pick).expect("applies");
        seen.push(snapshot(&m));
    }
    assert!(
        seen.len() > 2 * rulebook::engine::CHECKPOINT_EVERY,
        "a long enough game"
    );
    while seen.len() > 1 {
        seen.pop();
        m.undo().expect("undo");
        assert_eq!(
            &snapshot(&m),
            seen.last().expect("a state"),
            "after undo to {}",
            seen.len() - 1
        );
        assert_eq!(m.log().len(), seen.len() - 1);
    }
    assert!(m.undo().is_err(), "nothing left to undo");
}

/// Components that differ only in a secret field the chooser cannot see were offered once, as
/// if interchangeable: the chooser could only ever take the lowest, and whether two face-down
/// pieces were equal decided nothing it could see. They are offered each (grammar 3.4.1); for
/// their owner, who sees the field, equal ones are still offered once.
#[test]
fn face_down_pieces_are_never_merged_for_a_seat_that_cannot_see_them() {
    let g = game(
        r#"
        players 2
        component Token { owner: Player, points: 0..3 seen by owner }
        zone row: Token public
        zone taken: Token public
        components Token in row { "token" for n in [1, 1, 2, 2] { points = n } }
        setup { for t in row { t.owner = seat(1) } }
        action take(t in row) { move t to taken }
        flow { turn seat(1) { choose { take } } turn seat(0) { choose { take } } }
        "#,
    );
    let mut st: State = g
        .start(&Config {
            players: 2,
            ..Default::default()
        })
        .expect("starts");
    let mut legal = Vec::new();
    // the owner sees the points: one option per value
    g.legal(&st, &mut legal).expect("legal");
    assert_eq!(legal.len(), 2);
    g.apply(&mut st, &legal[0]).expect("applies");
    // the other seat sees three face-down tokens (points 1, 2, 2): three options
    g.legal(&st, &mut legal).expect("legal");
    assert_eq!(legal.len(), 3);
}

/// Components with equal fields are interchangeable: a choice over their zone offers them once
/// (grammar 3.4, components: "interchangeable"). Components that start different and whose
/// fields nothing writes are each offered; components whose fields an action writes can become
/// equal later, and are then offered once.
#[test]
fn components_made_equal_by_an_action_are_offered_once() {
    let g = game(
        r#"
        players 1
        component Card { rank: 0..3 }
        component Gem { colour: 0..3 }
        zone row: Card public
        zone gems: Gem public
        zone taken: Card public
        components Card in row { "card-{rank}" for n in [1, 2, 3, 3] { rank = n } }
        components Gem in gems { "gem-{colour}" for n in [0, 1, 2, 2] { colour = n } }
        action take(c in row, g in gems) { move c to taken }
        action lower(c in row) where c.rank > 1 { c.rank -= 1 }
        flow { repeat 10 { turn seat(0) { choose { take lower } } } }
        "#,
    );
    let mut st: State = g
        .start(&Config {
            players: 1,
            ..Default::default()
        })
        .expect("starts");
    let mut legal = Vec::new();
    // how many `take` and `lower` options are offered now
    let offered = |st: &State, legal: &mut Vec<_>| -> (usize, usize) {
        g.legal(st, legal).expect("legal");
        let texts: Vec<String> = legal.iter().map(|a| g.action_text(st, a)).collect();
        let n = |w: &str| texts.iter().filter(|x| x.starts_with(w)).count();
        (n("take"), n("lower"))
    };
    // cards 1, 2, 3, 3 (three kinds) by gems 0, 1, 2, 2 (three kinds), and lower 2 or 3
    assert_eq!(offered(&st, &mut legal), (9, 2));
    // lower card-2: the cards are now 1, 1, 3, 3, two kinds
    let lower = legal
        .iter()
        .find(|a| g.action_text(&st, a) == "lower c=card-2")
        .cloned()
        .expect("lower card-2 offered");
    g.apply(&mut st, &lower).expect("applies");
    assert_eq!(offered(&st, &mut legal), (6, 1));
}

/// `choose each` over some of the seats asks only those (grammar README, simultaneous
/// choices): a seat left out of the collection once made the flow re-run the step with its
/// locals put away and panic.
#[test]
fn a_simultaneous_choice_over_some_seats_asks_only_them() {
    let g = game(
        r#"
        game "Subset bid"
        players 3
        var bid[Player]: int
        flow {
            choose each p in [seat(1), seat(2)], n in 1..3 { bid[p] = n }
        }
        score(p) = bid[p]
        "#,
    );
    let mut st = g
        .start(&Config {
            players: 3,
            ..Default::default()
        })
        .expect("starts");
    let mut legal = Vec::new();
    assert!(
        g.legal_for(&st, 0, &mut legal).is_err() || legal.is_empty(),
        "seat 0 is not in the collection: {legal:?}"
    );
    for (seat, pick) in [(1u8, 2usize), (2, 0)] {
        g.legal_for(&st, seat, &mut legal).expect("options");
        assert_eq!(legal.len(), 3, "seat {seat} bids 1, 2 or 3");
        let a = legal[pick];
        g.apply_for(&mut st, seat, &a).expect("commits");
    }
    let o = st.outcome().expect("over once both bid");
    assert_eq!(o.scores, vec![0, 3, 1]);
}

/// A `group` flooded inside another group's condition neither reads nor spoils the answers
/// the outer one keeps between floods: the inner group of a1 below holds one space (the
/// only piece), whatever an earlier flood over the same board computed.
#[test]
fn a_group_inside_a_group_condition_keeps_its_own_answers() {
    let g = game(
        r#"
        game "Nested groups"
        players 2
        board grid = grid(3, 1)
        var piece[grid]: Player
        var outer: int
        var inner: int
        def blob(x: grid) = count(t in group(y in grid, x where piece[y] == piece[x]))
        setup { piece[a1] = seat(0) }
        flow {
            outer = count(t in group(z in grid, a1 where blob(z) >= 2))
            inner = blob(a1)
        }
        score(p) = if p == seat(0) then inner else outer
        "#,
    );
    let st = g
        .start(&Config {
            players: 2,
            ..Default::default()
        })
        .expect("starts");
    let o = st.outcome().expect("the flow ends at once");
    // blob(a1) = 1 (only a1 holds seat 0's piece), so no space has blob >= 2: outer = 0.
    assert_eq!(o.scores, vec![1, 0]);
}

/// `roll x in [list]` with seeded chance drew from an empty domain ("a roll with no possible
/// values") in every game: the list's iterator dropped what it listed when it stopped, and
/// the roll counted what was left (found by the library's differential script).
#[test]
fn a_roll_over_a_list_draws_each_listed_value() {
    let g = game(
        r#"
        players 1
        var last: int
        action throw() { roll last in [2, 3, 3, 7] }
        flow { repeat 60 { turn seat(0) { choose { throw } } } }
        "#,
    );
    let mut faces = std::collections::BTreeSet::new();
    let mut st: State = g
        .start(&Config {
            players: 1,
            seed: 5,
            ..Default::default()
        })
        .expect("starts");
    let mut legal = Vec::new();
    let last = g.vars.iter().position(|v| v.name == "last").unwrap();
    while !st.is_over() {
        g.legal(&st, &mut legal).expect("legal");
        g.apply(&mut st, &legal[0])
            .expect("a roll over a list has values to draw");
        if let rulebook::ir::Value::Int(n) = st.var(g.vars.as_slice()[last].base as usize) {
            faces.insert(n);
        }
    }
    assert_eq!(faces.into_iter().collect::<Vec<_>>(), vec![2, 3, 7]);
}
