//! A short, fixed run of the fuzzers of `examples/fuzz.rs` (whose long runs take a worker
//! process per input): mutants of the corpus through the checker and the renderer, a few of
//! them played, and protocol scripts against the classic games. Any panic fails the test;
//! so does a broken promise (a diagnostic that renders a control character, a save that does
//! not load, a reply that is not one line of JSON, an error reply that changes the match);
//! streams of LSP messages through the language server's loop (read to their end, every
//! request answered) and request scripts against the web page's app (no server error).

#[path = "../examples/fuzz/exercise.rs"]
mod exercise;
#[path = "../examples/fuzz/lsp.rs"]
mod lsp;
#[path = "../examples/fuzz/mutate.rs"]
mod mutate;
#[path = "../examples/fuzz/protocol.rs"]
mod protocol;
#[path = "../examples/fuzz/web.rs"]
mod web;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// Mutants checked, and the most of them played.
const MUTANTS: usize = 300;
const PLAYED: usize = 30;
/// How long a mutant may play here: the engine's work limits are not this test's subject (a
/// mutant that plays longer is left running on its thread, which ends with the test).
const PLAY_FOR: std::time::Duration = std::time::Duration::from_secs(2);

#[test]
fn mutants_of_the_corpus_check_and_play_without_panicking() {
    let corpus = mutate::Corpus::load(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(corpus.files.len() > 30, "{} files", corpus.files.len());
    let mut rng = ChaCha8Rng::seed_from_u64(20_261_123);
    let (mut checked, mut played, mut slow) = (0, 0, 0);
    for i in 0..MUTANTS {
        let (text, what) = mutate::mutant(&mut rng, &corpus);
        let seed = rng.gen();
        let game = exercise::check(&text).unwrap_or_else(|e| panic!("mutant {i} ({what}): {e}"));
        let Ok(g) = game else { continue };
        checked += 1;
        if played == PLAYED {
            continue;
        }
        played += 1;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || {
                let _ = tx.send(std::panic::catch_unwind(|| exercise::play(&g, seed)));
            })
            .expect("a thread");
        match rx.recv_timeout(PLAY_FOR) {
            Ok(Ok(result)) => {
                result.unwrap_or_else(|e| panic!("mutant {i} ({what}): {e}"));
            }
            Ok(Err(_)) => panic!("mutant {i} ({what}) panicked while playing"),
            Err(_) => slow += 1,
        }
    }
    eprintln!("{MUTANTS} mutants: {checked} checked, {played} played ({slow} still playing)");
    assert!(checked > 0);
}

#[test]
fn protocol_scripts_get_one_reply_each_and_errors_change_nothing() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut lines = 0;
    for file in [
        "rules/classic/tic_tac_toe.rules",
        "rules/classic/connect_four.rules",
        "rules/omega_shift.rules",
    ] {
        let text = std::fs::read_to_string(file).expect("readable");
        let g = rulebook::load(file, &text).game.expect("a game");
        for _ in 0..20 {
            let script = protocol::script(&mut rng, &g, 30);
            let seat = rng.gen_bool(0.3).then(|| rng.gen_range(0..g.max_players));
            lines += protocol::run(&g, seat, &script).unwrap_or_else(|e| panic!("{file}: {e}"));
        }
    }
    eprintln!("{lines} protocol lines");
}

#[test]
fn lsp_streams_are_read_to_their_end_and_every_request_answered() {
    let corpus = mutate::Corpus::load(Path::new(env!("CARGO_MANIFEST_DIR")));
    let mut rng = ChaCha8Rng::seed_from_u64(35);
    let mut replies = 0;
    for i in 0..40 {
        let (bytes, what) = lsp::input(&mut rng, &corpus);
        let out = lsp::run(&bytes).unwrap_or_else(|e| panic!("stream {i} ({what}): {e}"));
        replies += out
            .split(' ')
            .next()
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(0);
    }
    eprintln!("40 streams, {replies} replies");
    assert!(replies > 40, "{replies} replies");
}

#[test]
fn web_scripts_get_no_server_error() {
    let mut rng = ChaCha8Rng::seed_from_u64(35);
    for file in ["rules/classic/tic_tac_toe.rules", "rules/omega_shift.rules"] {
        let text = std::fs::read_to_string(file).expect("readable");
        let g = rulebook::load(file, &text).game.expect("a game");
        let mut app = rulebook::web::App::new(file.into());
        app.reload(text);
        for _ in 0..10 {
            let script = web::script(&mut rng, &g, 25);
            web::run(&mut app, &script).unwrap_or_else(|e| panic!("{file}: {e}"));
        }
    }
}
