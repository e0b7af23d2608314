//! Whole games: a seeded Omega Shift trace, tic-tac-toe's game tree, Omega Shift simulations,
//! and what a seat may see.

use rand::SeedableRng;
use rulebook::agents::{pick_chance, RandomAgent};
use rulebook::engine::{Actor, ChanceMode, Config};
use rulebook::Game;

fn game(path: &str) -> Game {
    let text = std::fs::read_to_string(path).expect("readable");
    rulebook::load(path, &text).game.expect("valid rules")
}

/// A seeded game of Omega Shift with chance made explicit: every decision and every chance
/// outcome, in order. A change in the rules file or the engine that alters play shows here.
#[test]
fn omega_shift_seeded_trace() {
    let g = game("rules/omega_shift.rules");
    let cfg = Config {
        players: 2,
        variant: None,
        seed: 7,
        chance: ChanceMode::External,
        fuel: None,
        set: Vec::new(),
    };
    let mut st = g.start(&cfg).expect("starts");
    let mut agent = RandomAgent::new(7);
    let mut chance_rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut buf = Vec::new();
    let mut trace = String::new();
    loop {
        match g.actor(&st) {
            Actor::Nobody => break,
            Actor::Chance => {
                let a = pick_chance(&g, &st, &mut chance_rng)
                    .expect("chance")
                    .expect("an outcome");
                trace += &format!("chance: {}\n", g.action_text(&st, &a));
                g.apply(&mut st, &a).expect("applies");
            }
            Actor::Player(p) => {
                g.legal(&st, &mut buf).expect("legal");
                let a = agent.pick(&buf).expect("a legal action");
                trace += &format!("p{}: {}\n", p + 1, g.action_text(&st, &a));
                g.apply(&mut st, &a).expect("applies");
            }
        }
    }
    let o = st.outcome().expect("over");
    trace += &format!("scores {:?} winners {:?}\n", o.scores, o.winners);
    insta::assert_snapshot!(trace);
}

/// The full game tree of tic-tac-toe: 255,168 finished games, of which 131,184 won by the
/// first player, 77,904 by the second and 46,080 drawn (the well-known counts).
#[test]
fn tic_tac_toe_tree() {
    let g = game("rules/classic/tic_tac_toe.rules");
    let cfg = Config {
        players: 2,
        variant: None,
        seed: 0,
        chance: ChanceMode::External,
        fuel: None,
        set: Vec::new(),
    };
    let c = rulebook::run::count(&g, &cfg, 9).expect("walks");
    assert_eq!(
        c.nodes,
        vec![1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]
    );
    assert_eq!(c.finished, 255_168);
    assert_eq!(c.outcomes.get("p1"), Some(&131_184));
    assert_eq!(c.outcomes.get("p2"), Some(&77_904));
    assert_eq!(c.outcomes.get("none"), Some(&46_080));
}

/// 10,000 random games of Omega Shift all reach the end [OS-8.1], and the same seed gives
/// the same summary.
#[test]
fn omega_shift_ten_thousand_games_finish() {
    let g = game("rules/omega_shift.rules");
    let cfg = Config {
        players: 2,
        variant: None,
        seed: 1,
        chance: ChanceMode::Seeded,
        fuel: None,
        set: Vec::new(),
    };
    let s = rulebook::run::simulate(&g, &cfg, 10_000);
    assert_eq!(s.errors, 0, "{:?}", s.first_error());
    assert_eq!(s.completed, 10_000);
    let again = rulebook::run::simulate(&g, &cfg, 200);
    let first = rulebook::run::simulate(&g, &cfg, 200);
    assert_eq!(again.json(), first.json());
}

/// [OS-2.4] a player's hand is seen by that player only; the draw pile by nobody.
#[test]
fn omega_shift_views_hide_what_a_seat_may_not_see() {
    let g = game("rules/omega_shift.rules");
    let st = g
        .start(&Config {
            players: 2,
            variant: None,
            seed: 3,
            chance: ChanceMode::Seeded,
            fuel: None,
            set: Vec::new(),
        })
        .expect("starts");
    for seat in 0..2u8 {
        let v = g.view(&st, Some(seat));
        for z in &v.zones {
            if z.zone == format!("hand[p{}]", seat + 1) {
                assert_eq!(z.visible.len(), 8, "own hand is visible");
            } else if z.zone.starts_with("hand[") {
                assert!(
                    z.visible.is_empty() && z.count == 8,
                    "the other hand shows only its size"
                );
            } else if z.zone == "deck" {
                assert!(
                    z.visible.is_empty() && z.count == 44,
                    "the draw pile is face down"
                );
            }
        }
    }
}

/// A saved state (serde) restores the same game: same legal actions, same continuation.
#[test]
fn states_round_trip_through_json() {
    let g = game("rules/omega_shift.rules");
    let mut st = g
        .start(&Config {
            players: 2,
            variant: None,
            seed: 11,
            chance: ChanceMode::Seeded,
            fuel: None,
            set: Vec::new(),
        })
        .expect("starts");
    let mut agent = RandomAgent::new(11);
    let mut buf = Vec::new();
    for _ in 0..20 {
        g.legal(&st, &mut buf).expect("legal");
        let a = agent.pick(&buf).expect("action");
        g.apply(&mut st, &a).expect("applies");
    }
    let text = serde_json::to_string(&st).expect("serialises");
    let back: rulebook::State = serde_json::from_str(&text).expect("deserialises");
    let mut a1 = RandomAgent::new(5);
    let mut a2 = RandomAgent::new(5);
    let (mut s1, mut s2) = (st.clone(), back);
    let mut b2 = Vec::new();
    while g.actor(&s1) != Actor::Nobody {
        g.legal(&s1, &mut buf).expect("legal");
        g.legal(&s2, &mut b2).expect("legal");
        assert_eq!(buf, b2);
        let (x, y) = (a1.pick(&buf).expect("a"), a2.pick(&b2).expect("a"));
        g.apply(&mut s1, &x).expect("applies");
        g.apply(&mut s2, &y).expect("applies");
    }
    assert_eq!(s1.outcome(), s2.outcome());
}
