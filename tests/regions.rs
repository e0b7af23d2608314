//! Regions of statements run as native code (`Step::Native`, issue 36): a procedure's
//! loops, lets, conditions and assignments to locals and variables run natively, stopping
//! before a statement that fails or runs out of work, which the engine's steps then run
//! again. A game whose effect fails in the middle of a loop, after earlier writes (a range
//! left, a division by zero), or never stops, plays exactly the same with native code and
//! without: the same views after every action, the same errors, word for word.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rulebook::engine::Config;
use rulebook::run::simulate::simulate;
use rulebook::Game;

/// `add` loops `n` times, each time adding to `total` (whose range a long game leaves,
/// mid-loop) and writing `pos`; then divides by `total - 10` (zero at 10). `spin` never
/// stops; nor does `whirl`, whose region starts at its loop's head, so the steps that go on
/// where the native code ran out of work come back to the region at every turn (it is not
/// run natively again in that decision: the work stays bounded). `fill` loops over the players and, inside, over more numbers than native code
/// walks when `n` is 2 or 3: the native code stops there, inside the loop over the players,
/// and the steps go on from the loop's place and elements rebuilt.
const RULES: &str = r#"game "Regions"
players 2

var total: 0..30
var pos[1..8]: int
var last: int

action add(n in 1..4) {
    let k = n
    while k > 0 {
        total += 1
        pos[k] = pos[k] + total
        k -= 1
    }
    last = 100 / (total - 10)
}

action spin() where total == 5 {
    let k = 0
    while k >= 0 { k = k * 1 }
}

action whirl() where total == 6 {
    while total >= 0 { last = last * 1 }
}

action fill(n in 1..3) where total < 12 {
    for p in players {
        for i in 1..(n * 3000) {
            last = last + ord(p) + 1
        }
        total += 1
    }
}

end when last == 7

flow {
    repeat { turn seat(0) { choose { add spin whirl fill } } }
}
"#;

fn games() -> (Game, Game) {
    let native = rulebook::load("regions.rules", RULES)
        .game
        .expect("valid rules");
    let mut plain = native.clone();
    plain.native = rulebook::lir::listing::off();
    (native, plain)
}

/// The four regions are compiled (when the build has native code), so the comparisons below
/// compare native code with the steps.
#[test]
fn both_loops_are_compiled() {
    let (native, _) = games();
    if cfg!(feature = "jit") && std::env::var_os(rulebook::lir::listing::OFF_VAR).is_none() {
        let built = rulebook::lir::listing::enumerators(&native).expect("native code");
        assert_eq!(built.region_count(), 4);
    }
}

/// Random games, action by action: the full view after each, and the error of an action
/// that fails, are the same with native code and without.
#[test]
fn regions_play_as_the_steps_do() {
    let (native, plain) = games();
    let mut errors = vec![];
    for seed in 0..60 {
        let cfg = Config::seeded(2, seed);
        let (mut a, mut b) = (
            native.start(&cfg).expect("starts"),
            plain.start(&cfg).expect("starts"),
        );
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut la, mut lb) = (vec![], vec![]);
        for _ in 0..20 {
            if a.is_over() {
                break;
            }
            native.legal(&a, &mut la).expect("lists");
            plain.legal(&b, &mut lb).expect("lists");
            assert_eq!(format!("{la:?}"), format!("{lb:?}"), "seed {seed}");
            let pick = la[rng.gen_range(0..la.len())];
            let (ra, rb) = (native.apply(&mut a, &pick), plain.apply(&mut b, &pick));
            assert_eq!(format!("{ra:?}"), format!("{rb:?}"), "seed {seed}");
            if let Err(e) = ra {
                errors.push(e.to_string());
                break;
            }
            assert_eq!(native.view(&a, None), plain.view(&b, None), "seed {seed}");
        }
    }
    // Each way of stopping was met: a range left mid-loop, a division by zero after the
    // loop's writes, and a loop that never stops.
    for want in ["outside its range", "division by zero", "units of work"] {
        assert!(
            errors.iter().any(|e| e.contains(want)),
            "no error with {want:?} in {errors:?}"
        );
    }
}

/// What `simulate` reports (results, errors and their places) is the same.
#[test]
fn simulations_are_the_same() {
    let (native, plain) = games();
    let cfg = Config::seeded(2, 3);
    let a = format!("{:?}", simulate(&native, &cfg, 40));
    let b = format!("{:?}", simulate(&plain, &cfg, 40));
    assert_eq!(a, b);
}
