//! The command line, run as a user runs it.

mod common;
use common::rulebook;
use std::process::Command;

#[test]
fn check_passes_valid_files_and_fails_broken_ones() {
    let (code, out, _) = rulebook(&[
        "check",
        "rules/omega_shift.rules",
        "rules/classic/tic_tac_toe.rules",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("rules/omega_shift.rules: ok"));
    let (code, out, err) = rulebook(&["check", "tests/fail/unknown_name.rules"]);
    assert_eq!(code, 1);
    assert!(out.contains("1 error(s)"), "{out}");
    assert!(err.contains("did you mean `score`?"), "{err}");
}

#[test]
fn bad_input_gets_a_one_line_error_not_a_panic() {
    let (code, _, err) = rulebook(&["check", "no/such/file.rules"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot read no/such/file.rules"), "{err}");
    assert!(!err.contains("panicked"));
    let (code, _, err) = rulebook(&["simulate", "rules/omega_shift.rules", "--no-such-flag"]);
    assert_eq!(code, 2);
    assert!(err.contains("--no-such-flag"), "{err}");
    let (code, _, err) = rulebook(&["simulate", "rules/omega_shift.rules", "--players", "3"]);
    assert_ne!(code, 0);
    assert!(err.contains("played by 2 players, not 3"), "{err}");
    let (code, _, err) = rulebook(&["simulate", "rules/omega_shift.rules", "--variant", "turbo"]);
    assert_ne!(code, 0);
    assert!(err.contains("unknown variant `turbo`"), "{err}");
}

#[test]
fn simulate_json_has_the_documented_keys_and_is_deterministic() {
    let args = [
        "simulate",
        "rules/omega_shift.rules",
        "--games",
        "50",
        "--seed",
        "9",
        "--json",
    ];
    let (code, out, _) = rulebook(&args);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    for key in [
        "games",
        "completed",
        "errors",
        "turns",
        "wins",
        "scores",
        "never_legal",
    ] {
        assert!(v.get(key).is_some(), "missing {key} in {out}");
    }
    assert_eq!(v["games"], 50);
    assert_eq!(v["completed"], 50);
    assert!(
        v["turns"]["mean"].is_number()
            && v["turns"]["min"].is_number()
            && v["turns"]["max"].is_number()
    );
    assert_eq!(v["wins"].as_array().map(|a| a.len()), Some(2));
    assert_eq!(v["scores"]["mean"].as_array().map(|a| a.len()), Some(2));
    let (_, again, _) = rulebook(&args);
    assert_eq!(out, again, "the same seed prints the same result");
}

/// `--max-turns` is a limit of the harness: a game still running is stopped and counted as
/// unfinished, neither completed nor an error. Rules need no turn limit of their own (Ominoes
/// ends only with a win, OM-5.3).
#[test]
fn simulate_max_turns_stops_games_as_unfinished() {
    let args = [
        "simulate",
        "rules/ominoes.rules",
        "--games",
        "4",
        "--max-turns",
        "10",
        "--json",
    ];
    let (code, out, err) = rulebook(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["unfinished"], 4, "{out}");
    assert_eq!(v["completed"], 0, "{out}");
    assert_eq!(v["errors"], 0, "{out}");
    let (code, out, _) = rulebook(&[
        "simulate",
        "rules/ominoes.rules",
        "--games",
        "2",
        "--max-turns",
        "10",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("unfinished 2"), "{out}");
    // a limit no game reaches changes nothing
    let (_, all, _) = rulebook(&["simulate", "rules/ominoes.rules", "--games", "3", "--json"]);
    let (_, high, _) = rulebook(&[
        "simulate",
        "rules/ominoes.rules",
        "--games",
        "3",
        "--json",
        "--max-turns",
        "100000",
    ]);
    assert_eq!(all, high);
}

#[test]
fn count_prints_the_tree_as_json() {
    let (code, out, _) = rulebook(&[
        "count",
        "rules/classic/tic_tac_toe.rules",
        "--depth",
        "2",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("json");
    assert_eq!(v["nodes"], serde_json::json!([1, 9, 72]));
    assert_eq!(v["finished"], 0);
}

#[test]
fn test_command_runs_the_scenarios_of_a_rules_file() {
    let (code, out, err) = rulebook(&["test", "rules/omega_shift.rules"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(" passed, 0 failed"), "{out}");
    assert!(
        !out.contains("\n0 passed"),
        "the scenarios of the rules file were found: {out}"
    );
}

#[test]
fn explain_lists_the_structure() {
    let (code, out, _) = rulebook(&["explain", "rules/omega_shift.rules"]);
    assert_eq!(code, 0);
    for word in [
        "Omega Shift (2 players)",
        "components",
        "zones",
        "actions",
        "play(card: Card)",
        "scoring",
    ] {
        assert!(out.contains(word), "missing {word}:\n{out}");
    }
}

#[test]
fn play_refuses_an_illegal_choice_and_asks_again() {
    let (code, text) = play(
        &["rules/classic/tic_tac_toe.rules", "--seed", "1"],
        "99\nplace cell=b2\n1\n1\n1\n1\n",
    );
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("`99` is not one of the legal actions; choose again (type help)"),
        "{text}"
    );
    assert!(text.contains("grid:"), "the board is drawn: {text}");
}

/// `rulebook play` with `input` on stdin: its exit code and what it printed.
fn play(args: &[&str], input: &str) -> (i32, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .arg("play")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    child
        .stdin
        .as_mut()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("writes");
    let out = child.wait_with_output().expect("ends");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The row numbers of the grid rows printed under the first `title` line, top to bottom.
fn rows_under(text: &str, title: &str) -> Vec<u32> {
    text.lines()
        .skip_while(|l| *l != title)
        .skip(1)
        .map_while(|l| l.trim_start().split(' ').next()?.parse().ok())
        .collect()
}

/// The legal lists `play` printed, in order.
fn legal_lists(text: &str) -> Vec<Vec<String>> {
    let mut lists: Vec<Vec<String>> = Vec::new();
    let mut open = false;
    for line in text.lines() {
        let numbered = line.trim_start().split_once(") ").is_some_and(|(n, _)| {
            line.starts_with("  ") && n.parse::<usize>().is_ok() && !line.contains(':')
        });
        match (numbered, open) {
            (true, true) => lists.last_mut().expect("open").push(line.trim().into()),
            (true, false) => lists.push(vec![line.trim().into()]),
            _ => {}
        }
        open = numbered;
    }
    lists
}

/// Boards are printed as on paper: the top row first, row 1 last, the column letters under it;
/// a disc dropped in Connect Four lies in row 1.
#[test]
fn play_prints_boards_with_row_1_at_the_bottom() {
    let (code, out) = play(
        &["rules/classic/connect_four.rules", "--seed", "1"],
        "drop column=a\nboard\nquit\n",
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(rows_under(&out, "grid:"), [6, 5, 4, 3, 2, 1], "{out}");
    let last = out
        .lines()
        .rev()
        .find(|l| l.starts_with("   1 "))
        .expect("row 1");
    assert!(last.starts_with("   1 p1"), "the disc in a1: {out}");
    let (_, out) = play(&["rules/classic/english_draughts.rules"], "quit\n");
    assert_eq!(
        rows_under(&out, "field:"),
        [8, 7, 6, 5, 4, 3, 2, 1],
        "{out}"
    );
}

#[test]
fn play_help_lists_the_commands_and_how_to_choose() {
    let (code, out) = play(&["rules/classic/tic_tac_toe.rules"], "help\nquit\n");
    assert_eq!(code, 0);
    for word in [
        "by its number in the list, or by its text (`place cell=a1`)",
        "  help ",
        "  board, show ",
        "  undo ",
        "  why ACTION ",
        "  quit ",
    ] {
        assert!(out.contains(word), "missing {word}: {out}");
    }
}

/// `quit` leaves at once with exit code 0: the moves after it are not read.
#[test]
fn play_quit_leaves_cleanly() {
    let (code, out) = play(
        &["rules/classic/tic_tac_toe.rules"],
        "quit\n1\n1\n1\n1\n1\n",
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.ends_with("leaving the game\n"), "{out}");
    assert_eq!(out.matches("your move").count(), 1, "{out}");
    assert!(!out.contains("winner"), "{out}");
}

/// `undo` with no decision of the seat's says so; after a move it takes back the move and the
/// agent's answer, and the first legal list comes back.
#[test]
fn play_undo_takes_back_the_seats_last_decision() {
    let (code, out) = play(
        &["rules/classic/tic_tac_toe.rules", "--seed", "1"],
        "undo\n1\nundo\nquit\n",
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("nothing to undo: you have made no decision yet"),
        "{out}"
    );
    assert!(
        out.contains("took back your last decision and the decision after it"),
        "{out}"
    );
    let lists = legal_lists(&out);
    assert_eq!(lists.len(), 3, "{out}");
    assert_eq!(lists[0].len(), 9, "{out}");
    assert_eq!(lists[1].len(), 7, "two cells taken: {out}");
    assert_eq!(lists[2], lists[0], "{out}");
    // After the undo the whole board is drawn again, empty.
    let after = out.rsplit("took back").next().expect("after the undo");
    assert!(after.contains("   1 .  .  .\n     a  b  c"), "{out}");
}

/// After a decision only what changed is drawn: in tic-tac-toe two marks, so not all three
/// rows; the whole view on `board`.
#[test]
fn play_shows_only_what_changed_after_a_decision() {
    let (code, out) = play(
        &["rules/classic/tic_tac_toe.rules", "--seed", "1"],
        "1\nboard\nquit\n",
    );
    assert_eq!(code, 0, "{out}");
    let (_, after) = out.split_once("\nchanged:\n").expect("changes drawn");
    let (changed, rest) = after.split_once("    1) ").expect("the legal list");
    let rows = changed.lines().filter(|l| l.starts_with("   ")).count();
    assert!(
        (2..=3).contains(&rows),
        "one or two rows and the letters: {changed}"
    );
    assert!(changed.contains("   1 p1"), "{changed}");
    assert_eq!(
        rows_under(rest, "grid:"),
        [3, 2, 1],
        "board draws it all: {out}"
    );
    let (_, out) = play(
        &["rules/classic/tic_tac_toe.rules", "--seed", "1"],
        "why place cell=a1\n1\nwhy place cell=a1\nquit\n",
    );
    assert!(out.contains("`place cell=a1` is legal now"), "{out}");
    assert!(
        out.contains("`place cell=a1` is not legal now: its condition does not hold now"),
        "{out}"
    );
}

/// A seat sees its own secrets (a hand, a secret field, an `owner` variable) and not the
/// other seat's, which differ.
#[test]
fn play_shows_a_seat_its_own_secrets_only() {
    let secrets = "tests/constructs/secrets.rules";
    let (code, one) = play(&[secrets, "--seed", "3", "--seat", "1"], "quit\n");
    assert_eq!(code, 0, "{one}");
    let (code, two) = play(&[secrets, "--seed", "3", "--seat", "2"], "quit\n");
    assert_eq!(code, 0, "{two}");
    let line = |text: &str, name: &str| -> String {
        let l = text
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} in {text}"));
        l[name.len()..].trim().to_string()
    };
    let (mine, theirs) = (line(&one, "rack[p1]"), line(&two, "rack[p2]"));
    assert!(mine.starts_with("tile-") && theirs.starts_with("tile-"));
    assert_ne!(mine, theirs);
    assert!(!one.contains(&theirs), "{one}");
    assert!(!two.contains(&mine), "{two}");
    assert_eq!(line(&one, "rack[p2]"), "1 hidden");
    // p1 owns the wheels and sees their secret values; p2 sees the wheels only.
    assert_eq!(
        line(&one, "board"),
        "wheel-1(value=1) wheel-2(value=2) wheel-3(value=3)"
    );
    assert_eq!(line(&two, "board"), "wheel-1 wheel-2 wheel-3", "{two}");
    assert!(!two.contains("value="), "{two}");
    assert_eq!(line(&one, "bid[p1]"), "0");
    assert_eq!(line(&one, "bid[p2]"), "?");
}

/// A variable of a board that a seat may not see is not drawn in the board's cells: in
/// Phantom tic-tac-toe, p2 sees its own board of what it knows, not p1's mark.
#[test]
fn play_draws_no_hidden_board_variable() {
    let (code, out) = play(
        &[
            "rules/classic/phantom_ttt.rules",
            "--seed",
            "1",
            "--seat",
            "2",
        ],
        "quit\n",
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("p1 plays place (hidden)"),
        "p1 has marked: {out}"
    );
    assert!(
        out.contains("grid                   hidden from you (mark)"),
        "{out}"
    );
    assert!(out.contains("known[p1]              hidden"), "{out}");
    assert_eq!(rows_under(&out, "known[p2] on grid:"), [3, 2, 1], "{out}");
    for l in out.lines().filter(|l| l.starts_with("   ")) {
        assert!(!l.contains("p1"), "p1's mark drawn: {out}");
    }
}

#[test]
fn bench_prints_speed_figures_as_json() {
    let (code, out, err) = rulebook(&[
        "bench",
        "rules/classic/tic_tac_toe.rules",
        "--seconds",
        "0.2",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    for key in [
        "playouts_per_sec",
        "decisions_per_sec",
        "decisions_per_game",
    ] {
        assert!(v[key].as_f64().is_some_and(|x| x > 0.0), "{key} in {out}");
    }
    // tic-tac-toe lasts 5 to 9 moves
    let d = v["decisions_per_game"].as_f64().unwrap_or(0.0);
    assert!((5.0..=9.0).contains(&d), "{out}");
    let (code, _, err) = rulebook(&["bench", "rules/classic/tic_tac_toe.rules", "--seconds", "0"]);
    assert_ne!(code, 0);
    assert!(err.contains("--seconds must be a positive number"), "{err}");
}

#[test]
fn threads_give_the_same_results_as_one_thread() {
    let one = rulebook(&[
        "simulate",
        "rules/omega_shift.rules",
        "--games",
        "40",
        "--seed",
        "4",
        "--json",
    ]);
    let two = rulebook(&[
        "simulate",
        "rules/omega_shift.rules",
        "--games",
        "40",
        "--seed",
        "4",
        "--json",
        "--threads",
        "2",
    ]);
    assert_eq!(one.0, 0);
    assert_eq!(one.1, two.1);
    let one = rulebook(&[
        "count",
        "rules/classic/tic_tac_toe.rules",
        "--depth",
        "4",
        "--json",
    ]);
    let two = rulebook(&[
        "count",
        "rules/classic/tic_tac_toe.rules",
        "--depth",
        "4",
        "--json",
        "--threads",
        "2",
    ]);
    assert_eq!(one.0, 0);
    assert_eq!(one.1, two.1);
}

/// Every file the command line reads must be a regular file of at most 16 MiB: a device, a
/// folder or a huge file is refused with a clear error, never read forever.
#[test]
fn only_regular_files_of_bounded_size_are_read() {
    for path in ["/dev/zero", "tests"] {
        let (code, _, err) = rulebook(&["check", path]);
        assert_eq!(code, 1);
        assert!(
            err.contains(&format!("cannot read {path}: not a regular file")),
            "{err}"
        );
    }
    let dir = std::env::temp_dir().join(format!("rulebook-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let big = dir.join("big.rules");
    std::fs::File::create(&big)
        .and_then(|f| f.set_len(17 << 20))
        .expect("a sparse file");
    let (code, _, err) = rulebook(&["check", &big.display().to_string()]);
    assert_eq!(code, 1);
    assert!(err.contains("larger than 16 MiB"), "{err}");
    // A scenario file naming a device as its rules is refused too.
    let scen = dir.join("zero.scenarios");
    std::fs::write(
        &scen,
        "rules \"/dev/zero\"\nscenario \"x\" { expect finished }\n",
    )
    .expect("writes");
    let (code, out, err) = rulebook(&["test", &scen.display().to_string()]);
    assert_eq!(code, 1, "{out}");
    assert!(err.contains("/dev/zero: not a regular file"), "{err}");
    std::fs::remove_dir_all(&dir).expect("cleans up");
}

#[test]
fn count_refuses_a_depth_beyond_its_limit() {
    let (code, _, err) = rulebook(&[
        "count",
        "rules/classic/tic_tac_toe.rules",
        "--depth",
        "1000000000",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("beyond the limit of 10000"), "{err}");
}

/// `--fuel` sets the work budget of each decision: tic-tac-toe plays within a small budget,
/// and a budget too small for its first decision stops the command with the work limit.
#[test]
fn fuel_sets_the_work_budget_of_each_decision() {
    let ttt = "rules/classic/tic_tac_toe.rules";
    let (code, out, err) = rulebook(&[
        "simulate", ttt, "--games", "5", "--json", "--fuel", "100000",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["completed"].as_u64(), Some(5), "{out}");
    let (code, _, err) = rulebook(&["simulate", ttt, "--games", "5", "--fuel", "3"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("more than 3 units of work"), "{err}");
    let (code, _, err) = rulebook(&["simulate", ttt, "--fuel", "0"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn simulate_with_agents_reports_them_and_the_win_rates() {
    let args = [
        "simulate",
        "rules/classic/tic_tac_toe.rules",
        "--games",
        "4",
        "--agents",
        "mcts:200,random",
        "--json",
        "--threads",
        "2",
    ];
    let (code, out, err) = rulebook(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["agents"], serde_json::json!(["mcts:200", "random"]));
    assert_eq!(v["wins"][1], 0, "{out}");
    let rate = &v["win_rate"][0];
    assert!(rate["low"].as_f64() <= rate["rate"].as_f64(), "{out}");
    assert!(rate["rate"].as_f64() <= rate["high"].as_f64(), "{out}");
    for key in ["mean", "sd", "min", "max", "all_zero"] {
        assert!(
            v["scores"].get(key).is_some(),
            "missing scores.{key} in {out}"
        );
    }
    let (_, again, _) = rulebook(&args);
    assert_eq!(out, again, "the same seed prints the same result");
    let (code, out, _) = rulebook(&[
        "simulate",
        "rules/classic/tic_tac_toe.rules",
        "--games",
        "2",
        "--agents",
        "mcts:20",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("win rate"), "{out}");
    for (agents, message) in [
        ("random,random,random", "3 agents for 2 players"),
        ("mcts:0", "the budget must be more than 0"),
        ("alpha", "unknown agent `alpha`"),
    ] {
        let (code, _, err) = rulebook(&[
            "simulate",
            "rules/classic/tic_tac_toe.rules",
            "--agents",
            agents,
        ]);
        assert_ne!(code, 0, "{agents}");
        assert!(err.contains(message), "{agents}: {err}");
    }
    let (code, _, err) = rulebook(&[
        "play",
        "rules/classic/tic_tac_toe.rules",
        "--opponents",
        "random,random",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("2 opponents for 1 other seats"), "{err}");
    // `serve --agent` sets up `suggest`'s search: an MCTS agent only.
    for (agent, message) in [
        ("random", "--agent must be an MCTS agent"),
        ("mcts:5:q=1", "unknown agent"),
    ] {
        let (code, _, err) =
            rulebook(&["serve", "rules/classic/tic_tac_toe.rules", "--agent", agent]);
        assert_ne!(code, 0, "{agent}");
        assert!(err.contains(message), "{agent}: {err}");
    }
}
