//! The interpreter against hand-written native engines (tests/native/): random games played
//! by the interpreter are replayed decision by decision into the native engine, which must
//! offer exactly the same legal actions, as canonical texts **in the same order**, at every
//! decision (chance outcomes included), and end with the same scores and winners.
//!
//! The native engines' speeds for the "Speed" tables of docs/benchmarks.md:
//! `cargo bench --bench native`.

// The engines' speed face (`playout`) is measured by benches/native.rs, not used here.
#[allow(dead_code)]
mod native;

use native::connect_four::ConnectFour;
use native::omega_shift::OmegaShift;
use native::{Native, Turn};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rulebook::agents::{pick_chance, RandomAgent};
use rulebook::engine::{Actor, ChanceMode, Config};
use rulebook::run::game_seed;
use rulebook::Game;

/// Random games per game. All 1,000 run in debug builds too: with the dev profile
/// (opt-level 1) the whole file takes about 5 s on the 2-core development machine.
const GAMES: u64 = 1_000;

fn game(path: &str) -> Game {
    let text = std::fs::read_to_string(path).expect("readable");
    rulebook::load(path, &text).game.expect("valid rules")
}

/// Plays `games` interpreted games with external chance, a random agent choosing for both
/// players and chance outcomes drawn by their weights, and replays each into a fresh native
/// engine. Returns the decisions compared (players' and chance's).
fn agree<N: Native>(path: &str, variant: Option<&str>, games: u64, new: impl Fn() -> N) -> u64 {
    let g = game(path);
    let mut buf = Vec::new();
    let mut nbuf = Vec::new();
    let mut compared = 0;
    for i in 0..games {
        let seed = game_seed(0xA9EE, i);
        let cfg = Config {
            players: 2,
            variant: variant.map(str::to_string),
            seed,
            chance: ChanceMode::External,
            fuel: None,
            set: Vec::new(),
        };
        let mut st = g.start(&cfg).expect("starts");
        let mut native = new();
        let mut agent = RandomAgent::new(seed);
        let mut chance = ChaCha8Rng::seed_from_u64(seed ^ 0xC4A2CE);
        let mut step = 0;
        loop {
            let actor = g.actor(&st);
            let at = format!("{path}: game {i} (seed {seed}), decision {step}");
            match (actor, native.turn()) {
                (Actor::Nobody, Turn::Over) => break,
                (Actor::Chance, Turn::Chance) => {}
                (Actor::Player(a), Turn::Player(b)) if a == b => {}
                (a, b) => panic!("{at}: the interpreter waits on {a:?}, the native on {b:?}"),
            }
            g.legal(&st, &mut buf).expect("legal");
            let texts: Vec<String> = buf.iter().map(|a| g.action_text(&st, a)).collect();
            native.legal(&mut nbuf);
            let ntexts: Vec<String> = nbuf.iter().map(|m| native.text(*m)).collect();
            assert_eq!(texts, ntexts, "{at}: interpreter (left) and native (right)");
            let a = match actor {
                Actor::Chance => pick_chance(&g, &st, &mut chance)
                    .expect("chance outcomes")
                    .expect("an outcome"),
                _ => agent.pick(&buf).expect("a legal action"),
            };
            let k = buf.iter().position(|x| *x == a).expect("listed");
            native.apply(nbuf[k]);
            g.apply(&mut st, &a).expect("applies");
            step += 1;
            compared += 1;
        }
        let o = st.outcome().expect("over");
        let (scores, winners) = native.outcome().expect("native over");
        assert_eq!(o.scores, scores, "{path}: game {i} (seed {seed}): scores");
        assert_eq!(
            o.winners, winners,
            "{path}: game {i} (seed {seed}): winners"
        );
    }
    compared
}

#[test]
fn omega_shift_native_agrees_with_the_interpreter() {
    // 1,000 games of ~340 decisions each (64 of them chance: 4 + 59 shuffle steps, 1 roll)
    let n = agree(
        "rules/omega_shift.rules",
        None,
        GAMES,
        OmegaShift::new_external,
    );
    assert!(n > GAMES * 300, "{n} decisions compared");
}

#[test]
fn omega_shift_no_retake_native_agrees_with_the_interpreter() {
    let n = agree(
        "rules/omega_shift.rules",
        Some("no_retake"),
        GAMES / 4,
        OmegaShift::no_retake,
    );
    assert!(n > GAMES / 4 * 300, "{n} decisions compared");
}

#[test]
fn connect_four_native_agrees_with_the_interpreter() {
    let n = agree(
        "rules/classic/connect_four.rules",
        None,
        GAMES,
        ConnectFour::new,
    );
    assert!(n > GAMES * 7, "{n} decisions compared");
}
