//! What one fuzz input goes through, in this process: a rules text is loaded and checked, its
//! diagnostics rendered and, when it checks, a few short games are played through the engine
//! (undo, views, `why`, a save replayed). `Ok` says what happened; `Err` is a violation of a
//! promise the library makes (a panic is caught by the caller, a stack overflow or a hang only
//! by a parent process).

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rulebook::engine::Match;
use rulebook::{Actor, ChanceMode, Config, Game};

/// Games played per rules text that checks.
const GAMES: u64 = 3;
/// Decisions per game at most.
const DECISIONS: usize = 400;
/// The work budget of each decision: small, so that three games of 400 decisions take a
/// second or two at most; an input that still runs past the fuzzer's timeout does work the
/// budget does not count.
const FUEL: u64 = 200_000;

/// Whether rendered text holds a character a terminal must not get.
fn unsafe_char(out: &str) -> Option<char> {
    out.chars()
        .find(|c| rulebook::source::is_unsafe(*c) && *c != '\n')
}

/// Loads and checks a rules text, and renders its diagnostics: the game, or its number of
/// errors.
pub fn check(text: &str) -> Result<Result<Game, usize>, String> {
    let loaded = rulebook::load("fuzz.rules", text);
    let d = &loaded.diagnostics;
    for p in d.problems.iter().take(20) {
        let out = rulebook::render::plain(p);
        if let Some(c) = unsafe_char(&out) {
            return Err(format!("a diagnostic renders {c:?}: {out}"));
        }
    }
    match loaded.game {
        Some(g) => Ok(Ok(g)),
        None if d.errors() == 0 => Err("no game, and no error".into()),
        None => Ok(Err(d.errors())),
    }
}

/// Plays a few short games of a checked game.
pub fn play(g: &Game, seed: u64) -> Result<String, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut decisions = 0;
    for k in 0..GAMES {
        let players = rng.gen_range(g.min_players..=g.max_players);
        let variant = g
            .variants
            .iter()
            .map(|v| Some(v.name.clone()))
            .chain([None])
            .collect::<Vec<_>>()
            .choose(&mut rng)
            .cloned()
            .flatten();
        let cfg = Config {
            players,
            variant,
            seed: seed ^ k,
            fuel: Some(FUEL),
            set: Vec::new(),
            chance: if rng.gen_bool(0.3) {
                ChanceMode::External
            } else {
                ChanceMode::Seeded
            },
        };
        let Ok(mut m) = Match::new(g, cfg) else {
            continue;
        };
        for _ in 0..DECISIONS {
            if m.actor() == Actor::Nobody {
                break;
            }
            let Ok(legal) = m.legal() else { break };
            let Some((a, text)) = legal.choose(&mut rng).cloned() else {
                break;
            };
            let _ = m.why(&text);
            let _ = m.view(Some(rng.gen_range(0..players)));
            if m.apply(&a).is_err() {
                break;
            }
            decisions += 1;
            if rng.gen_bool(0.05) {
                let _ = m.undo();
            }
        }
        let _ = m.why("no such action");
        let save = m.save_text();
        if let Err(e) = Match::load_text(g, &save) {
            return Err(format!("a save does not load: {}", e.message()));
        }
    }
    Ok(format!("a game; {decisions} decision(s)"))
}
