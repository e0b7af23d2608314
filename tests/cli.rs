//! The command line, run as a user runs it.

use std::process::Command;

fn rulebook(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

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
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .args(["play", "rules/classic/tic_tac_toe.rules", "--seed", "1"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    child
        .stdin
        .as_mut()
        .expect("stdin")
        .write_all(b"99\nplace cell=b2\n1\n1\n1\n1\n")
        .expect("writes");
    let out = child.wait_with_output().expect("ends");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        text.contains("`99` is not one of the legal actions; choose again"),
        "{text}"
    );
    assert!(text.contains("grid:"), "the board is drawn: {text}");
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
