//! The engine against its oracle (`rulebook::reference`): seeded random games of every
//! rules file of the repository (the folders below, globbed, so a new file joins), and at
//! every decision the engine's legal list compared with the reference's (texts and values,
//! in order), each option the engine lists checked against the reference's guard, no `end
//! when` holding; every finished game's scores and winners compared with the reference's.
//! Decisions the reference does not cover yet are counted by kind and printed per file
//! (`cargo test --test oracle -- --nocapture` shows the figures). A longer run:
//! `cargo run --release --example oracle -- --games 200`.

#[allow(dead_code)]
#[path = "../examples/fuzz/mutate.rs"]
mod mutate;

use rand::SeedableRng;
use rulebook::engine::{ChanceMode, Config};
use rulebook::reference::diff::{compare_lists, decision, play, scenario, Tally};
use rulebook::reference::{options, Listing};
use rulebook::Game;

/// The folders whose rules files are played.
const FOLDERS: [&str; 5] = [
    "rules",
    "rules/classic",
    "tests/constructs",
    "tests/reference",
    "tests/seen",
];

/// Decisions per game at most (a long game is compared up to there).
const CAP: u64 = 400;

/// Files slow to list by the reference in a debug build: one game per player count.
const SLOW: [&str; 4] = ["atlantis_omni", "atlantis_rising", "omnia", "ominoes"];

fn rules_files() -> Vec<String> {
    let mut files = Vec::new();
    for dir in FOLDERS {
        for e in std::fs::read_dir(dir).expect("rules directory") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "rules") {
                files.push(p.display().to_string());
            }
        }
    }
    files.sort();
    files
}

/// The checked game of a rules file; `None` for a file that does not check (some files of
/// `tests/reference/` hold examples of diagnostics).
fn game(path: &str) -> Option<Game> {
    let text = std::fs::read_to_string(path).expect("readable");
    rulebook::load(path, &text).game
}

/// Every player count the game takes, or its smallest and largest when there are many.
fn player_counts(g: &Game) -> Vec<u8> {
    if g.max_players - g.min_players <= 2 {
        (g.min_players..=g.max_players).collect()
    } else {
        vec![g.min_players, g.max_players]
    }
}

#[test]
fn the_engine_lists_what_the_reference_lists() {
    let start = std::time::Instant::now();
    let mut total = Tally::default();
    let mut failures = Vec::new();
    for path in rules_files() {
        let Some(g) = game(&path) else {
            println!("{path}: does not check, not played");
            continue;
        };
        let games = if SLOW.iter().any(|s| path.contains(s)) {
            2
        } else {
            8
        };
        // Seeded games at every player count, one with external chance, one per variant.
        let mut runs: Vec<Config> = Vec::new();
        for players in player_counts(&g) {
            runs.extend((1..=games).map(|seed| Config::seeded(players, seed)));
            runs.push(Config {
                chance: ChanceMode::External,
                ..Config::seeded(players, 100)
            });
        }
        for v in g.variants.iter() {
            runs.push(Config {
                variant: Some(v.name.clone()),
                ..Config::seeded(g.min_players, 200)
            });
        }
        let mut tally = Tally::default();
        for cfg in runs {
            if let Err(d) = play(&g, &cfg, CAP, &mut tally) {
                failures.push(format!("{path}: {d}"));
                break;
            }
        }
        println!("{path}: {tally}");
        total.add(&tally);
    }
    report(&total, &failures, start);
    assert!(
        total.compared > 2_000,
        "too few decisions compared: {total}"
    );
}

/// The comparison can fail: a list with two options swapped, one left out or one added is
/// caught, both by the list comparison and at a real decision of a real game.
#[test]
fn a_planted_wrong_answer_is_caught() {
    let g = game("rules/classic/tic_tac_toe.rules").expect("checks");
    let st = g.start(&Config::seeded(2, 1)).expect("starts");
    let mut legal = Vec::new();
    g.legal(&st, &mut legal).expect("listed");
    assert!(legal.len() > 2);
    let Ok(Listing::Options(list)) = options(&g, &st) else {
        panic!("tic-tac-toe's first decision is covered");
    };
    let texts: Vec<String> = list.iter().map(|o| o.text.clone()).collect();
    assert_eq!(compare_lists(&texts, &texts), None);
    let mut swapped = texts.clone();
    swapped.swap(0, 1);
    assert!(compare_lists(&texts, &swapped).is_some());
    assert!(compare_lists(&texts, &texts[1..]).is_some());
    let mut tally = Tally::default();
    assert_eq!(decision(&g, &st, &Ok(()), &legal, &mut tally), Ok(()));
    let mut wrong = legal.clone();
    wrong.swap(0, 1);
    assert!(decision(&g, &st, &Ok(()), &wrong, &mut tally).is_err());
    wrong = legal[1..].to_vec();
    assert!(decision(&g, &st, &Ok(()), &wrong, &mut tally).is_err());
    // An option whose value is not in its collection: the lists differ, and the reference's
    // guard refuses it.
    wrong = legal.clone();
    wrong[0].args[0] = wrong[0].args[1];
    let err = decision(&g, &st, &Ok(()), &wrong, &mut tally).expect_err("caught");
    assert!(err.contains("differ"), "{err}");
}

/// Every scenario of `tests/scenarios/`: each state its steps reach (its `setup { }` blocks
/// change what `setup` wrote, which answers remembered per setup must follow) compared,
/// then a random game from where it ends.
#[test]
fn the_engine_lists_what_the_reference_lists_in_every_scenario() {
    let start = std::time::Instant::now();
    let mut files: Vec<_> = std::fs::read_dir("tests/scenarios")
        .expect("tests/scenarios")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "scenarios"))
        .collect();
    files.sort();
    let mut total = Tally::default();
    let mut failures = Vec::new();
    for f in files {
        let name = f.display().to_string();
        let text = std::fs::read_to_string(&f).expect("readable");
        let sf = rulebook::syntax::parse_scenarios(&name, &text).expect("parses");
        let rules = f.parent().expect("a folder").join(&sf.rules);
        let rules_name = rules.display().to_string();
        let rules_text = std::fs::read_to_string(&rules).expect("the rules file");
        let loaded = rulebook::load(&rules_name, &rules_text);
        let (Some(g), Some(symbols)) = (loaded.game, loaded.symbols) else {
            panic!("{rules_name} does not check");
        };
        let source = rulebook::source::Source {
            name: name.clone(),
            text: text.clone(),
        };
        let (g, scenarios, diags) = rulebook::check::scenario::lower(g, symbols, source, &sf);
        assert!(!diags.has_errors(), "{name} does not check");
        let mut tally = Tally::default();
        for sc in &scenarios {
            if let Err(d) = scenario(&g, sc, 60, &mut tally) {
                failures.push(format!("{name}: {d}"));
                break;
            }
        }
        println!("{name}: {tally}");
        total.add(&tally);
    }
    report(&total, &failures, start);
    assert!(total.compared > 500, "too few decisions compared: {total}");
}

/// Section 4.1: of interchangeable components, a secret field *the chooser* cannot see keeps
/// them apart, whoever acts around the `choose`. Two tokens with equal fields, their secret
/// field seen by `owner`; seat 0 acts and seat 1 chooses (`by seat(1)`). Failed before the
/// engine told them apart as `me` (seat 0) sees them: when the owner is seat 1, the chooser,
/// they were offered twice; when it is seat 0, once, which told seat 1 that the two values
/// it cannot see are equal.
#[test]
fn a_choice_by_another_seat_tells_components_apart_as_the_chooser_sees_them() {
    for (owner, want) in [
        (1, &["t=token-1"][..]),
        (0, &["t=token-1", "t=token-2"][..]),
    ] {
        let text = format!(
            r#"
game "Chooser"
players 2
component Token {{ owner: Player, value: 1..3 seen by owner }}
zone pool: Token public
zone taken: Token public
components Token in pool {{ "token-{{n}}" for n in 1..2 {{ value = 1 }} }}
setup {{ for t in pool {{ t.owner = seat({owner}) }} }}
flow {{
    turn seat(0) {{
        choose by seat(1) t in pool {{ move t to taken }}
    }}
}}
"#
        );
        let loaded = rulebook::load("chooser.rules", &text);
        let g = loaded
            .game
            .unwrap_or_else(|| panic!("{}", loaded.diagnostics));
        let st = g.start(&Config::seeded(2, 1)).expect("starts");
        let mut legal = Vec::new();
        g.legal(&st, &mut legal).expect("listed");
        let engine: Vec<String> = legal.iter().map(|a| g.action_text(&st, a)).collect();
        let Ok(Listing::Options(list)) = options(&g, &st) else {
            panic!("covered");
        };
        let reference: Vec<String> = list.into_iter().map(|o| o.text).collect();
        assert_eq!(reference, want, "the reference, owner seat {owner}");
        assert_eq!(engine, want, "the engine, owner seat {owner}");
    }
}

/// The run's total, and a failure listing every difference found.
/// Rules mutants (the fuzzer's token-level mutants of the repository's files) that check are
/// played twice, engine against reference: a short fixed slice of `cargo run --release
/// --example oracle -- --mutants N`, so that files nobody wrote by hand are compared too.
/// Mutants made (most do not check: about one in twenty does).
const MUTANTS: usize = 600;
/// A mutant whose boards have more spaces than this, or whose first decision offers more
/// options, is left to the long run (`examples/oracle --mutants N`): the mutants are drawn
/// from every file of the repository, so a new file changes which are made, and one that
/// blows a board up (Amazons on 257 x 10 squares, Lines of Action on 8 x 256) would cost
/// this test minutes to a quarter of an hour.
const MUTANT_SPACES: u32 = 1_000;
const MUTANT_OPTIONS: usize = 5_000;

#[test]
fn the_engine_lists_what_the_reference_lists_on_rules_mutants() {
    let start = std::time::Instant::now();
    let corpus = mutate::Corpus::load(std::path::Path::new("."));
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(35);
    let (mut checked, mut total, mut failures) = (0, Tally::default(), Vec::new());
    for k in 0..MUTANTS {
        let (text, what) = mutate::mutant(&mut rng, &corpus);
        let Some(g) = rulebook::load("mutant.rules", &text).game else {
            continue;
        };
        let spaces: u32 = g.boards.iter().map(|b| b.len()).sum();
        if spaces > MUTANT_SPACES {
            eprintln!("mutant {k} ({what}): {spaces} spaces, left to the long run");
            continue;
        }
        let mut first = Vec::new();
        if let Ok(st) = g.start(&Config::seeded(g.min_players, 1)) {
            if g.legal(&st, &mut first).is_ok() && first.len() > MUTANT_OPTIONS {
                eprintln!(
                    "mutant {k} ({what}): {} options, left to the long run",
                    first.len()
                );
                continue;
            }
        }
        checked += 1;
        let one = std::time::Instant::now();
        let played = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || {
                let mut tally = Tally::default();
                for seed in [1, 2] {
                    play(&g, &Config::seeded(g.min_players, seed), 100, &mut tally)
                        .map_err(|d| d.to_string())?;
                }
                Ok::<Tally, String>(tally)
            })
            .expect("a thread")
            .join();
        if one.elapsed().as_secs_f64() > 2.0 {
            eprintln!("mutant {k} ({what}): {:.1} s", one.elapsed().as_secs_f64());
        }
        match played {
            Ok(Ok(t)) => total.add(&t),
            Ok(Err(d)) => failures.push(format!("mutant {k} ({what}): {d}\n{text}")),
            Err(_) => failures.push(format!("mutant {k} ({what}): a panic\n{text}")),
        }
    }
    eprintln!("{checked} of {MUTANTS} mutants checked");
    assert!(checked >= 15, "only {checked} mutants checked");
    report(&total, &failures, start);
}

fn report(total: &Tally, failures: &[String], start: std::time::Instant) {
    println!("all: {total} in {:.1} s", start.elapsed().as_secs_f64());
    assert!(
        failures.is_empty(),
        "the engine and the reference differ:\n{}",
        failures.join("\n")
    );
}
