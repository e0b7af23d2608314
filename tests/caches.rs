//! Check mode (`Game::set_check_caches`): every remembered answer the engine serves (the
//! options listed in a state, function results, guard answers remembered per setup, a
//! window's "no option") is computed again without it and must be equal, else the engine
//! panics naming the cache. Here seeded random games of every rules file are played in check
//! mode, as `simulate` plays them, and must give the same summary as without it.

use rulebook::engine::Config;
use rulebook::run::simulate::simulate;
use rulebook::Game;

fn game(path: &str) -> Game {
    let text = std::fs::read_to_string(path).expect("readable");
    let loaded = rulebook::load(path, &text);
    match loaded.game {
        Some(g) => g,
        None => panic!("{path}: {}", loaded.diagnostics),
    }
}

fn rules_files() -> Vec<String> {
    let mut files = Vec::new();
    for dir in ["rules", "rules/classic"] {
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

#[test]
fn random_games_of_every_rules_file_serve_no_stale_answer() {
    let files = rules_files();
    assert!(files.len() >= 13, "{files:?}");
    for path in files {
        let mut g = game(&path);
        for players in [g.min_players, g.max_players] {
            let cfg = Config::seeded(players, 1);
            g.set_check_caches(false);
            let plain = simulate(&g, &cfg, 6);
            g.set_check_caches(true);
            let checked = simulate(&g, &cfg, 6);
            assert_eq!(
                format!("{checked:?}"),
                format!("{plain:?}"),
                "{path}, {players} players: check mode changed the games"
            );
        }
    }
}

/// The compiled enumerators, `end when` tests and functions (issue 36) change nothing a
/// simulation reports: seeded games of every rules file, summarised as `simulate` does
/// (every figure it reports, results and errors), are the same with them and with the
/// engine running everything its own way.
#[test]
fn compiled_enumerators_leave_every_simulation_unchanged() {
    for path in rules_files() {
        let native = game(&path);
        let mut plain = native.clone();
        plain.native = rulebook::lir::listing::off();
        for players in [native.min_players, native.max_players] {
            let cfg = Config::seeded(players, 7);
            let a = format!("{:?}", simulate(&native, &cfg, 4));
            let b = format!("{:?}", simulate(&plain, &cfg, 4));
            assert_eq!(a, b, "{path}, {players} players");
        }
    }
    // Some actions of the library do have enumerators.
    let g = game("rules/classic/tic_tac_toe.rules");
    let mut st = g.start(&Config::seeded(2, 0)).expect("starts");
    let mut legal = vec![];
    g.legal(&st, &mut legal).expect("lists");
    g.apply(&mut st, &legal[0]).expect("applies");
    if cfg!(feature = "jit") && std::env::var_os(rulebook::lir::listing::OFF_VAR).is_none() {
        assert!(rulebook::lir::listing::enumerators(&g).is_some_and(|b| b.count() > 0));
        // And Kalah's `end when` (sums over the pits through functions) is compiled.
        let k = game("rules/classic/kalah.rules");
        assert!(rulebook::lir::listing::enumerators(&k).is_some_and(|b| b.end_count() == 1));
        // And its functions that walk the pits (`row_seeds`, `facing`), which the effects
        // and `score` call.
        assert!(rulebook::lir::listing::enumerators(&k).is_some_and(|b| b.def_count() >= 2));
    }
}
