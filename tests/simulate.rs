//! `rulebook simulate` beyond one summary: shards merged back into exactly one machine's
//! output, variants compared on the same seeds, the figures of the JSON, HTML reports, and
//! errors with their places.

mod common;
use common::rulebook;
use rulebook::engine::{ChanceMode, Config};
use rulebook::run::{compare, simulate_with, Options, Shard};
use rulebook::Game;

fn file(path: &str) -> Game {
    let text = std::fs::read_to_string(path).expect("readable");
    rulebook::load(path, &text).game.expect("valid rules")
}

fn config(players: u8, variant: Option<&str>, seed: u64) -> Config {
    Config {
        players,
        variant: variant.map(str::to_string),
        seed,
        chance: ChanceMode::Seeded,
        ..Config::default()
    }
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rulebook-simulate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// The promise: the shards of a run, merged, print byte for byte what one machine
/// prints for the whole run (here 3 shards of 61 games, two variants, two threads for one
/// shard).
#[test]
fn merged_shards_print_exactly_what_one_machine_prints() {
    let base = [
        "simulate",
        "rules/ominoes.rules",
        "--games",
        "61",
        "--seed",
        "7",
        "--variant",
        "none",
        "--variant",
        "expert",
        "--json",
    ];
    let (code, whole, err) = rulebook(&base);
    assert_eq!(code, 0, "{err}");
    let files = common::shard_files(&base, 3, "simulate");
    // in any order
    let mut args = vec![
        "merge",
        files[2].as_str(),
        files[0].as_str(),
        files[1].as_str(),
    ];
    let (code, merged, err) = rulebook(&args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(merged, whole);
    // a missing shard, or one given twice, is refused
    args.pop();
    let (code, _, err) = rulebook(&args);
    assert_eq!(code, 1);
    assert!(err.contains("missing shards: 1/3"), "{err}");
    args.push(files[0].as_str());
    let (code, _, err) = rulebook(&args);
    assert_eq!(code, 1);
    assert!(err.contains("given twice"), "{err}");
    // a summary that is not a shard, or of another seed
    let (code, _, err) = rulebook(&["merge", files[0].as_str(), "Cargo.toml"]);
    assert_eq!(code, 1);
    assert!(err.contains("not JSON"), "{err}");
}

/// Games stopped by `--max-turns` and the agents of the seats survive the merge: shards of a
/// run with a searching agent and a turn limit add up to the whole run, byte for byte.
#[test]
fn shards_with_agents_and_a_turn_limit_merge_exactly() {
    let base = [
        "simulate",
        "rules/classic/tic_tac_toe.rules",
        "--games",
        "6",
        "--seed",
        "3",
        "--agents",
        "mcts:20,random",
        "--max-turns",
        // no game of tic-tac-toe ends before its 5th turn: every game is stopped by the limit
        "4",
        "--json",
    ];
    let (code, whole, err) = rulebook(&base);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(whole.trim()).expect("one JSON object");
    assert_eq!(v["agents"], serde_json::json!(["mcts:20", "random"]));
    assert!(v["unfinished"].as_u64() > Some(0), "{whole}");
    let n = |k: &str| v[k].as_u64().unwrap_or(u64::MAX);
    assert_eq!(n("completed") + n("errors") + n("unfinished"), 6, "{whole}");
    let files = common::shard_files(&base, 2, "simulate-agents");
    let (code, merged, err) = rulebook(&["merge", files[0].as_str(), files[1].as_str()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(merged, whole);
}

/// The same in the library, one variant, and the shards' game counts add up.
#[test]
fn shards_add_up_to_the_whole_run() {
    let g = file("rules/classic/connect_four.rules");
    let cfg = config(2, None, 3);
    let whole = simulate_with(&g, &cfg, &Options::new(50));
    let shards: Vec<_> = (0..4)
        .map(|index| {
            let opts = Options {
                shard: Some(Shard { index, count: 4 }),
                ..Options::new(50)
            };
            vec![simulate_with(&g, &cfg, &opts)]
        })
        .collect();
    assert_eq!(
        shards.iter().map(|s| s[0].games).collect::<Vec<_>>(),
        [13, 13, 12, 12]
    );
    let merged = compare::merge(shards).expect("merges");
    assert_eq!(merged[0], whole);
    assert_eq!(compare::runs_json(&merged), whole.json());
}

/// The figures a report shows are in the JSON, consistent with each other: wins and draws
/// add up to the completed games, histograms count every completed game, the decisions of the
/// seats add up to the lengths, and every choice made is counted under an action.
#[test]
fn json_figures_are_consistent() {
    let (code, out, err) = rulebook(&[
        "simulate",
        "rules/classic/tic_tac_toe.rules",
        "--games",
        "300",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("JSON");
    let n = |x: &serde_json::Value| x.as_u64().expect("a number");
    let completed = n(&v["completed"]);
    assert_eq!(completed, 300);
    let hist_games: u64 = v["turns"]["histogram"]
        .as_array()
        .expect("list")
        .iter()
        .map(|p| n(&p[1]))
        .sum();
    assert_eq!(hist_games, completed);
    let decisions: u64 = v["turns"]["histogram"]
        .as_array()
        .expect("list")
        .iter()
        .map(|p| n(&p[0]) * n(&p[1]))
        .sum();
    let per_seat: u64 = v["decisions"]["total"]
        .as_array()
        .expect("list")
        .iter()
        .map(n)
        .sum();
    assert_eq!(per_seat, decisions);
    let chosen: u64 = v["actions"]
        .as_array()
        .expect("list")
        .iter()
        .map(|a| n(&a["chosen"]))
        .sum();
    assert_eq!(chosen, decisions);
    // tic-tac-toe: p1 always moves first; at most one winner
    assert_eq!(v["first_player"]["seats"][0], 300);
    let wins: u64 = v["wins"].as_array().expect("list").iter().map(n).sum();
    assert_eq!(wins + n(&v["draws"]), completed);
    let r = &v["win_rate"][0];
    let (rate, low, high) = (
        r["rate"].as_f64().unwrap_or(-1.0),
        r["low"].as_f64().unwrap_or(-1.0),
        r["high"].as_f64().unwrap_or(-1.0),
    );
    assert!(
        0.0 <= low && low < rate && rate < high && high <= 1.0,
        "{r}"
    );
    // random tic-tac-toe: the first player wins about 58% of games
    assert!(low < 0.585 && 0.585 < high, "{r}");
    assert_eq!(v["first_player"]["win_rate"]["rate"], r["rate"]);
}

/// A game whose rule fails: the error is counted per kind and place, with the line of the
/// rules file, in the JSON and in the report.
#[test]
fn errors_are_grouped_with_their_places() {
    let rules = temp("overflow.rules");
    std::fs::write(
        &rules,
        "game \"Overflow\"\nplayers 1\nvar n: 0..3\naction up() {\n    n += 2\n    if n == 3 { end }\n}\nflow { repeat { turn seat(0) { choose { up } } } }\n",
    )
    .expect("written");
    let report = temp("overflow.html");
    let rules_s = rules.display().to_string();
    let report_s = report.display().to_string();
    let (code, out, err) = rulebook(&[
        "simulate", &rules_s, "--games", "5", "--json", "--report", &report_s,
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("JSON");
    assert_eq!(v["errors"], 5);
    let e = &v["error_list"][0];
    assert_eq!(e["count"], 5);
    assert_eq!(e["first_game"], 0);
    assert_eq!(e["place"]["line"], 5, "{e}");
    assert_eq!(e["place"]["text"], "    n += 2", "{e}");
    let html = std::fs::read_to_string(&report).expect("a report");
    assert!(html.contains("    n += 2"), "the report quotes the line");
    assert!(
        html.contains(&format!("{rules_s}:5:")),
        "the report gives the place"
    );
}

/// A report is one HTML file with an inline SVG for every chart and nothing fetched from
/// anywhere; variants sit side by side with the clear differences marked.
#[test]
fn reports_are_self_contained_and_compare_variants() {
    let report = temp("atlantis_rising.html");
    let report_s = report.display().to_string();
    let (code, out, err) = rulebook(&[
        "simulate",
        "rules/atlantis_rising.rules",
        "--players",
        "2",
        "--games",
        "40",
        "--variant",
        "level1",
        "--variant",
        "level5",
        "--report",
        &report_s,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("level5 against level1"), "{out}");
    let html = std::fs::read_to_string(&report).expect("a report");
    assert!(html.starts_with("<!DOCTYPE html>"));
    // win rate, first player, length, decisions, actions: one per variant each; the game
    // keeps no score, and the report says so instead of drawing it
    assert_eq!(html.matches("<svg").count(), 10);
    assert!(html.contains("the game keeps no score"));
    assert!(!html.contains("could not be drawn"));
    for needle in ["src=", "href=", "<script", "@import", "url("] {
        assert!(!html.contains(needle), "{needle} in the report");
    }
    assert!(html.contains("Differences between variants"));
    assert!(html.contains("Holm"));
}

#[test]
fn bad_shards_and_variant_lists_are_refused() {
    let (code, _, err) = rulebook(&[
        "simulate",
        "rules/classic/tic_tac_toe.rules",
        "--shard",
        "3/3",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("a shard is I/N with 0 <= I < N"), "{err}");
    let (code, _, err) = rulebook(&[
        "play",
        "rules/ominoes.rules",
        "--variant",
        "none",
        "--variant",
        "expert",
    ]);
    assert_ne!(code, 0);
    assert!(
        err.contains("only `simulate` compares several variants"),
        "{err}"
    );
}

/// Issue 35: merging adds counts with checked arithmetic: shards whose counts would overflow
/// when added (edited or corrupt files) are refused with an error naming the count, never
/// wrapped or a panic; and so is one shard whose histogram repeats a key past the limit.
#[test]
fn merge_refuses_shards_whose_sums_overflow() {
    let shard = |i: u32| -> serde_json::Value {
        let s = format!("{i}/2");
        let (code, out, err) = rulebook(&[
            "simulate",
            "rules/classic/tic_tac_toe.rules",
            "--games",
            "4",
            "--seed",
            "1",
            "--json",
            "--shard",
            s.as_str(),
        ]);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(out.trim()).expect("JSON")
    };
    let (a, b) = (shard(0), shard(1));
    let read = |v: &serde_json::Value| compare::read_runs(&v.to_string());
    // the shards as they are merge
    let whole =
        compare::merge(vec![read(&a).expect("reads"), read(&b).expect("reads")]).expect("merges");
    assert_eq!(whole[0].games, 4);
    // counts that overflow when added: each field on its own
    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit); 4] = [
        ("games", |v| v["games"] = u64::MAX.into()),
        ("wins", |v| v["wins"][0] = u64::MAX.into()),
        ("decisions", |v| {
            v["decisions"]["total"][1] = u64::MAX.into()
        }),
        ("turns.histogram", |v| {
            v["turns"]["histogram"] = serde_json::json!([[5, u64::MAX], [6, 1]])
        }),
    ];
    for (what, edit) in edits {
        let (mut x, mut y) = (a.clone(), b.clone());
        edit(&mut x);
        edit(&mut y);
        let r = compare::merge(vec![read(&x).expect("reads"), read(&y).expect("reads")]);
        let e = r.expect_err(what);
        assert!(e.contains("overflow") && e.contains(what), "{what}: {e}");
    }
    // one shard repeating a histogram key whose counts overflow
    let mut x = a.clone();
    x["turns"]["histogram"] = serde_json::json!([[5, u64::MAX], [5, 1]]);
    let e = read(&x).expect_err("overflowing histogram");
    assert!(
        e.contains("overflow") && e.contains("turns.histogram"),
        "{e}"
    );
}

/// The measures of play (README, "Measures of play") on games whose every decision is forced,
/// so their leads are known: the options and forced decisions, the lead changes, whether the
/// winner came back in the second half, and when the winner took the lead for good.
#[test]
fn measures_of_play_follow_the_lead() {
    let race = |gains: &str| {
        format!(
            "game \"Race\"\nplayers 2\nvar pts[Player]: int\n\
             action step() {{ pts[me] += {gains} }}\n\
             flow {{ repeat 3 {{ for p in players {{ turn p {{ choose {{ step }} }} }} }} }}\n\
             score(p) = pts[p]\n"
        )
    };
    let play = |text: &str| {
        let g = rulebook::load("race.rules", text)
            .game
            .expect("valid rules");
        let opts = Options {
            lead: true,
            ..Options::new(1)
        };
        simulate_with(&g, &config(2, None, 1), &opts).play
    };
    // The first player gains 2 a turn, the second 1: a tie before the first decision, then
    // the first player leads to the end (6 to 3).
    let ahead = play(&race("if me == seat(0) then 2 else 1"));
    assert_eq!((ahead.decisions, ahead.options, ahead.forced), (6, 6, 6));
    assert_eq!(ahead.branching(), 1.0);
    assert_eq!(ahead.forced_share(), 1.0);
    assert_eq!((ahead.lead_games, ahead.lead_changes), (1, 0));
    assert_eq!((ahead.won_games, ahead.comebacks), (1, 0));
    assert_eq!(
        ahead.decided_permille,
        1000 / 6,
        "led for good from the second decision"
    );
    // The first player gains 3 once; the second 2 a turn: behind until it leads before the
    // fifth decision (3 to 4), and wins 6 to 3.
    let back = play(&race(
        "if me == seat(0) then (if pts[me] == 0 then 3 else 0) else 2",
    ));
    assert_eq!((back.lead_games, back.lead_changes), (1, 1));
    assert_eq!((back.won_games, back.comebacks), (1, 1));
    assert_eq!(back.decided_permille, 4000 / 6);
}
