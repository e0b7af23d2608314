//! rulebook's classic games against OpenSpiel's hand-written C++ engines, move by move: the
//! player to move and the set of legal actions at every step, and the outcome at the end
//! (`tests/differential/differential.py`; the mappings are in `tests/differential/README.md`).
//!
//! `tests/differential/setup.sh` installs OpenSpiel in `target/ospiel-venv` the first time
//! (network needed once). Without it these tests fail, saying how to install it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Python that imports `pyspiel`, from `setup.sh` (run once for all the tests here).
fn openspiel_python() -> &'static Path {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let python = PYTHON.get_or_init(|| {
        let script = root().join("tests/differential/setup.sh");
        let out = Command::new("bash")
            .arg(&script)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        match stdout.lines().last() {
            Some(path) if out.status.success() => Ok(PathBuf::from(path.trim())),
            _ => Err(format!(
                "OpenSpiel is not installed and tests/differential/setup.sh could not install \
                 it ({}).\n{stderr}\nInstall it with network access: run \
                 tests/differential/setup.sh, or `python3 -m venv target/ospiel-venv && \
                 target/ospiel-venv/bin/pip install open-spiel==2.0.2`, then run the tests again.",
                out.status
            )),
        }
    });
    match python {
        Ok(path) => path,
        Err(message) => panic!("{message}"),
    }
}

/// Plays `games` seeded random games of `game` in both engines; fails on any disagreement.
fn agrees_with_openspiel(game: &str, games: u32) {
    let python = openspiel_python();
    let out = Command::new(python)
        .arg(root().join("tests/differential/differential.py"))
        .arg(game)
        .args(["--games", &games.to_string(), "--seed", "1"])
        .args(["--rulebook", env!("CARGO_BIN_EXE_rulebook")])
        .current_dir(root())
        .output()
        .expect("runs differential.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{game}: rulebook and OpenSpiel disagree ({})\n{stdout}\n{stderr}",
        out.status
    );
    assert!(stdout.contains("\"agree\": true"), "{stdout}\n{stderr}");
    println!("{stdout}");
}

#[test]
fn tic_tac_toe_agrees_with_openspiel() {
    agrees_with_openspiel("tic_tac_toe", 300);
}

#[test]
fn connect_four_agrees_with_openspiel() {
    agrees_with_openspiel("connect_four", 150);
}

#[test]
fn breakthrough_agrees_with_openspiel() {
    agrees_with_openspiel("breakthrough", 40);
}

#[test]
fn hex_agrees_with_openspiel() {
    agrees_with_openspiel("hex", 10);
}

/// English draughts against OpenSpiel's `checkers`: a multi-jump, several OpenSpiel actions,
/// is grouped into rulebook's one move; a game ended by OpenSpiel's 40-ply draw is compared up
/// to there (see tests/differential/README.md).
#[test]
fn checkers_agrees_with_openspiel() {
    agrees_with_openspiel("checkers", 40);
}

/// A mill's removal, a separate OpenSpiel action, is part of rulebook's move.
#[test]
fn nine_mens_morris_agrees_with_openspiel() {
    agrees_with_openspiel("nine_mens_morris", 20);
}

/// Othello: a forced pass is an action in both engines.
#[test]
fn othello_agrees_with_openspiel() {
    agrees_with_openspiel("othello", 60);
}

#[test]
fn clobber_agrees_with_openspiel() {
    agrees_with_openspiel("clobber", 200);
}

/// Pentago with rulebook's variant `twist_first`, OpenSpiel's reading of the win.
#[test]
fn pentago_agrees_with_openspiel() {
    agrees_with_openspiel("pentago", 8);
}

/// A completed box gives the same player another move.
#[test]
fn dots_and_boxes_agrees_with_openspiel() {
    agrees_with_openspiel("dots_and_boxes", 300);
}

/// Oware: the grand slam, the feeding rule and the end on a repeated position.
#[test]
fn oware_agrees_with_openspiel() {
    agrees_with_openspiel("oware", 40);
}

/// Kalah (OpenSpiel's `mancala`).
#[test]
fn mancala_agrees_with_openspiel() {
    agrees_with_openspiel("mancala", 200);
}

#[test]
fn gomoku_agrees_with_openspiel() {
    agrees_with_openspiel("gomoku", 10);
}

#[test]
fn nim_agrees_with_openspiel() {
    agrees_with_openspiel("nim", 300);
}

/// OpenSpiel's choice of a small board, a separate action, is part of rulebook's move.
#[test]
fn ultimate_tic_tac_toe_agrees_with_openspiel() {
    agrees_with_openspiel("ultimate_tic_tac_toe", 60);
}

/// A queen's move and its arrow, three OpenSpiel actions, are one rulebook move.
#[test]
fn amazons_agrees_with_openspiel() {
    agrees_with_openspiel("amazons", 2);
}

/// Lines of Action with rulebook's variant `openspiel` (a repeated board draws whoever is to
/// move, and so does the 1,000th move).
#[test]
fn lines_of_action_agrees_with_openspiel() {
    agrees_with_openspiel("lines_of_action", 15);
}

#[test]
fn y_agrees_with_openspiel() {
    agrees_with_openspiel("y", 12);
}

/// Havannah: a ring, a bridge or a fork.
#[test]
fn havannah_agrees_with_openspiel() {
    agrees_with_openspiel("havannah", 15);
}

/// Quoridor: steps, jumps and diagonal jumps, and walls refused for overlapping, crossing or
/// shutting a pawn off from its goal row (a few hundred such refusals in 40 games); OpenSpiel's
/// draw at the 324th move ends about a third of the random games.
#[test]
fn quoridor_agrees_with_openspiel() {
    agrees_with_openspiel("quoridor", 40);
}

/// Chess: OpenSpiel's player 1 (white) moves first, rulebook's p1; the moves are mapped from
/// squares (`pyspiel.chess.action_to_move`). From the start and from Kiwipete (rulebook's
/// variant `kiwipete`, OpenSpiel's state from its FEN), where castling, en passant and
/// promotions come sooner.
#[test]
fn chess_agrees_with_openspiel() {
    agrees_with_openspiel("chess", 6);
    agrees_with_openspiel("chess_kiwipete", 4);
}

/// Kuhn poker: the deal is two chance outcomes compared with their probabilities, the payoffs
/// (chips) are compared with rulebook's scores, and each seat's view and log against
/// OpenSpiel's information state (the opponent's card unseen).
#[test]
fn kuhn_poker_agrees_with_openspiel() {
    agrees_with_openspiel("kuhn_poker", 1000);
}

/// Leduc poker: cards dealt one at a time (a roll over the deck), two betting rounds.
#[test]
fn leduc_poker_agrees_with_openspiel() {
    agrees_with_openspiel("leduc_poker", 500);
}

/// Goofspiel: a chance prize and a simultaneous bid (`choose each`) every turn.
#[test]
fn goofspiel_agrees_with_openspiel() {
    agrees_with_openspiel("goofspiel", 60);
}

/// Oshi-zumo: a simultaneous bid (`choose each`) every turn.
#[test]
fn oshi_zumo_agrees_with_openspiel() {
    agrees_with_openspiel("oshi_zumo", 100);
}

/// Pig: a die thrown after every `roll`; and with a horizon of 30 decisions (OpenSpiel's
/// `horizon`, rulebook's `HORIZON`), where every game is drawn.
#[test]
fn pig_agrees_with_openspiel() {
    agrees_with_openspiel("pig", 60);
    agrees_with_openspiel("pig_horizon", 100);
}

/// Liar's dice: each die a roll into an `owner` variable, seen by its seat only.
#[test]
fn liars_dice_agrees_with_openspiel() {
    agrees_with_openspiel("liars_dice", 500);
}

/// Rock, paper, scissors (`matrix_rps`): one simultaneous node; the payoffs are the scores.
#[test]
fn matrix_rps_agrees_with_openspiel() {
    agrees_with_openspiel("matrix_rps", 300);
}

/// First-price sealed-bid auction: values rolled into `owner` variables, sealed bids, and a
/// chance node for the winner among the highest bids; the payoffs are the scores.
#[test]
fn first_sealed_auction_agrees_with_openspiel() {
    agrees_with_openspiel("first_sealed_auction", 300);
}

/// Phantom tic-tac-toe: each seat's own board an `owner` variable; a try on the other's mark
/// is learnt and the player goes again. The views of the seat to act against OpenSpiel's
/// default observation (`phantom_ttt_numturns`, with the log, is known to fail on an engine
/// bug: see tests/differential/README.md).
#[test]
fn phantom_ttt_agrees_with_openspiel() {
    agrees_with_openspiel("phantom_ttt", 300);
}

/// Dark Hex (3 x 3, OpenSpiel's default): Phantom tic-tac-toe's hidden boards on a Hex board.
#[test]
fn dark_hex_agrees_with_openspiel() {
    agrees_with_openspiel("dark_hex", 300);
}

/// Blackjack: one player against the dealer, each card a roll over the deck, the dealer's hole
/// card hidden; the return (+1, 0, -1) is the score.
#[test]
fn blackjack_agrees_with_openspiel() {
    agrees_with_openspiel("blackjack", 200);
}
