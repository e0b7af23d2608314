//! The match runners of `rulebook::run`: the playout loop with an agent per seat, the
//! decision limit, the tree walk's depth limit; and the rule that tests use the library, not
//! the command line's code.

use rulebook::agents::{Agent, RandomAgent};
use rulebook::engine::{Action, ChanceMode, Config, State};
use rulebook::run::{self, Seats};
use rulebook::Game;

/// A one-player game that never ends: one action, forever (the `end` is never reached).
const ENDLESS: &str = r#"
    game "Endless"
    players 1
    var n: int
    action step() { n += 1  if n < 0 { end } }
    flow { repeat { turn seat(0) { choose { step } } } }
"#;

fn game(name: &str, text: &str) -> Game {
    rulebook::load(name, text).game.expect("valid rules")
}

fn file(path: &str) -> Game {
    game(path, &std::fs::read_to_string(path).expect("readable"))
}

/// No file in tests/ reaches into the command line's code: tests use the library.
#[test]
fn tests_do_not_use_the_command_line_module() {
    let forbidden = concat!("rulebook", "::", "cli");
    let mut dirs = vec![std::path::PathBuf::from("tests")];
    let mut offenders = vec![];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("tests/") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).expect("readable");
                if text.contains(forbidden) {
                    offenders.push(p.display().to_string());
                }
            }
        }
    }
    assert!(offenders.is_empty(), "{forbidden} in {offenders:?}");
}

/// Counts the decisions it takes, and plays like a `RandomAgent`.
struct Counting {
    inner: RandomAgent,
    taken: u64,
}

impl Agent for Counting {
    fn choose(&mut self, game: &Game, state: &State, legal: &[Action]) -> Option<Action> {
        self.taken += 1;
        self.inner.choose(game, state, legal)
    }
}

/// An agent per seat takes exactly its seat's decisions.
#[test]
fn each_seat_has_its_own_agent() {
    let g = file("rules/classic/tic_tac_toe.rules");
    let mut st = g.start(&Config::seeded(2, 3)).expect("starts");
    let mut a = Counting {
        inner: RandomAgent::new(1),
        taken: 0,
    };
    let mut b = Counting {
        inner: RandomAgent::new(2),
        taken: 0,
    };
    let mut chance = RandomAgent::new(3);
    let mut seats = Seats::Each {
        seats: vec![&mut a, &mut b],
        chance: &mut chance,
    };
    let p = run::playout(&g, &mut st, &mut seats, &mut Vec::new(), |_, _| {}).expect("plays");
    assert!(st.is_over());
    assert_eq!(
        (p.decisions, p.turns),
        (a.taken + b.taken, a.taken + b.taken)
    );
    // p1 moves first and at most one move ahead of p2.
    assert!(
        a.taken == b.taken || a.taken == b.taken + 1,
        "{} {}",
        a.taken,
        b.taken
    );
}

/// The playout loop of `simulate` and of `bench` is one: the same game seeds and agent seeds
/// give the same games, so `bench`'s decisions per game equal `simulate`'s turns.
#[test]
fn simulate_and_bench_play_the_same_games() {
    let g = file("rules/classic/tic_tac_toe.rules");
    let cfg = Config::seeded(2, 5);
    let b =
        run::bench::playouts_for(&g, &cfg, std::time::Duration::from_millis(50)).expect("plays");
    assert!(b.games > 0);
    let s = run::simulate(&g, &cfg, b.games);
    let turns: u64 = s.lengths.iter().map(|(len, games)| len * games).sum();
    assert_eq!(turns, b.decisions);
}

/// A game that never ends stops at `MAX_DECISIONS` with an error, not a hang.
#[test]
fn an_endless_game_stops_at_the_decision_limit() {
    let g = game("endless.rules", ENDLESS);
    let s = run::simulate(&g, &Config::seeded(1, 0), 1);
    assert_eq!((s.errors, s.completed), (1, 0));
    let e = s.first_error().expect("an error");
    assert!(e.contains("did not end within 1000000 decisions"), "{e}");
}

/// The walk is iterative: a line of 10,000 decisions counts without a deep stack, and a
/// depth beyond `MAX_DEPTH` is refused before anything is allocated for it.
#[test]
fn count_walks_deep_trees_and_refuses_absurd_depths() {
    let g = game("endless.rules", ENDLESS);
    let c = run::count(&g, &Config::seeded(1, 0), run::MAX_DEPTH).expect("walks");
    assert_eq!(c.nodes.len(), run::MAX_DEPTH as usize + 1);
    assert!(c.nodes.iter().all(|&n| n == 1));
    let e = run::count(&g, &Config::seeded(1, 0), 1_000_000_000).expect_err("refused");
    assert!(e.to_string().contains("beyond the limit of 10000"), "{e}");
}

/// A tree that ends before the requested depth still lists every depth asked for.
#[test]
fn count_lists_depths_past_the_end_of_the_game() {
    let g = file("rules/classic/tic_tac_toe.rules");
    let mut cfg = Config::seeded(2, 0);
    cfg.chance = ChanceMode::External;
    let c = run::count_threads(&g, &cfg, 11, 2).expect("walks");
    assert_eq!(c.nodes.len(), 12);
    assert_eq!(&c.nodes[9..], &[127_872, 0, 0]);
}
