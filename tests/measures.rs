//! The measures of play beyond one run (README, "Measures of play"): the uncertainty over a
//! game on races whose leads are known by construction, the tests that compare the measures
//! between variants, the summary in words at the top of a comparison, and shards of a run
//! with `--lead` merged into exactly one machine's output.

mod common;
use common::rulebook;
use rulebook::engine::{ChanceMode, Config};
use rulebook::run::compare::{self, Measure};
use rulebook::run::play::PlayStats;
use rulebook::run::{simulate_with, words, Options};
use rulebook::Game;

const RACE: &str = "tests/measures/race.rules";

fn config(variant: Option<&str>, seed: u64) -> Config {
    Config {
        players: 2,
        variant: variant.map(str::to_string),
        seed,
        chance: ChanceMode::Seeded,
        ..Config::default()
    }
}

fn race() -> Game {
    let text = std::fs::read_to_string(RACE).expect("readable");
    rulebook::load(RACE, &text).game.expect("valid rules")
}

/// One game of a race whose every decision is forced: each player gains `gains` a turn for
/// `rounds` rounds, the higher score wins.
fn forced(rounds: u32, gains: &str) -> PlayStats {
    let text = format!(
        "game \"Forced race\"\nplayers 2\nvar pts[Player]: int\n\
         action step() {{ pts[me] += {gains} }}\n\
         flow {{ repeat {rounds} {{ for p in players {{ turn p {{ choose {{ step }} }} }} }} }}\n\
         score(p) = pts[p]\n"
    );
    let g = rulebook::load("forced.rules", &text)
        .game
        .expect("valid rules");
    let opts = Options {
        lead: true,
        ..Options::new(1)
    };
    simulate_with(&g, &config(None, 1), &opts).play
}

/// The uncertainty and the leader at a quarter, half and three quarters of the game, where
/// the lead before each decision is known.
#[test]
fn uncertainty_follows_the_lead() {
    // The first player gains 2 a turn, the second 1: before the six decisions the leaders are
    // nobody (0-0), then the first player five times; the first player wins 6 to 3.
    let ahead = forced(3, "if me == seat(0) then 2 else 1");
    assert_eq!(ahead.won_games, 1);
    assert_eq!(ahead.uncertain_permille, 1000 / 6, "in doubt before 1 of 6");
    assert_eq!(ahead.uncertain_sq, 166 * 166);
    // read before decisions 2, 4 and 5 (after 1, 3 and 4 of 6 taken): the first player
    assert_eq!(ahead.leader_wins, [1, 1, 1]);
    // The first player gains 3 once, the second 2 a turn: nobody, the first player three
    // times, then the second twice, who wins 6 to 3.
    let back = forced(
        3,
        "if me == seat(0) then (if pts[me] == 0 then 3 else 0) else 2",
    );
    assert_eq!(back.uncertain_permille, 4000 / 6);
    assert_eq!(
        back.leader_wins,
        [0, 0, 1],
        "the first player leads until 4 of 6"
    );
    // Four rounds; the first player gains 3 once, the second 1 a turn: nobody, the first
    // player five times, a tie twice (3-3); the second wins 4 to 3 with the last decision.
    // It was never the sole leader: uncertain to the end, and every leader read lost.
    let last = forced(
        4,
        "if me == seat(0) then (if pts[me] == 0 then 3 else 0) else 1",
    );
    assert_eq!((last.won_games, last.comebacks), (1, 1));
    assert_eq!(last.uncertain_permille, 1000);
    assert_eq!(last.leader_wins, [0, 0, 0]);
    assert_eq!(last.decided_permille, 1000);
    // A draw (both gain 1) counts no won game, so no uncertainty.
    let draw = forced(3, "1");
    assert_eq!((draw.lead_games, draw.won_games), (1, 0));
    assert_eq!((draw.uncertain_permille, draw.leader_wins), (0, [0, 0, 0]));
    // The text says it.
    let (code, out, err) = rulebook(&["simulate", RACE, "--games", "20", "--lead"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("uncertain  the winner was not the sole leader for"),
        "{out}"
    );
}

/// The comparison tests the measures of play between variants: more steps to choose from is
/// a clear difference in options a decision; doubling every step changes the scores but, on
/// the same seeds, neither the options nor the lead, and these are not flagged. The summary
/// in words says the clear differences and only those.
#[test]
fn comparisons_flag_the_measures_that_differ() {
    let g = race();
    let opts = Options {
        lead: true,
        ..Options::new(200)
    };
    let base = simulate_with(&g, &config(None, 5), &opts);
    let wide = simulate_with(&g, &config(Some("wide"), 5), &opts);
    let scaled = simulate_with(&g, &config(Some("scaled"), 5), &opts);
    assert_eq!(base.completed, 200);
    let find = |diffs: &[compare::Difference], kind: Measure| {
        diffs
            .iter()
            .find(|d| d.kind == kind)
            .cloned()
            .unwrap_or_else(|| panic!("{kind:?} compared"))
    };
    let d = compare::compare(&base, &wide);
    let options = find(&d, Measure::Options);
    assert_eq!((options.base, options.other), (2.0, 5.0));
    assert!(options.clear(), "{options:?}");
    assert_eq!(options.test, compare::Test::Ratio);
    // no decision is forced in either; every game is 12 decisions long
    for kind in [Measure::Forced, Measure::Length] {
        assert!(!find(&d, kind).clear(), "{kind:?}");
    }
    // every measure of the lead is there
    for kind in [
        Measure::LeadChanges,
        Measure::Comebacks,
        Measure::DecidedAt,
        Measure::Uncertainty,
        Measure::LeaderWins(0),
        Measure::LeaderWins(1),
        Measure::LeaderWins(2),
    ] {
        find(&d, kind);
    }
    let said = words::summary(&base, &wide, &d);
    assert!(
        said.starts_with(
            "Under `wide`, against the base rules (200 games each on the same seeds): "
        ) && said.contains("decisions offer more options (5.0 against 2.0)"),
        "{said}"
    );
    assert!(
        !said.contains("forced") && !said.contains("longer"),
        "{said}"
    );

    let d = compare::compare(&base, &scaled);
    for kind in [Measure::Options, Measure::LeadChanges, Measure::Uncertainty] {
        let m = find(&d, kind);
        assert_eq!(m.base, m.other, "{kind:?}");
        assert!(!m.clear(), "{kind:?}");
    }
    let clear: Vec<Measure> = d.iter().filter(|x| x.clear()).map(|x| x.kind).collect();
    assert_eq!(clear, [Measure::Score(0), Measure::Score(1)]);
    let said = words::summary(&base, &scaled, &d);
    assert!(
        said.contains("p1 scores more") && said.contains("p2 scores more"),
        "{said}"
    );
    assert!(
        !said.contains("options") && !said.contains("lead"),
        "{said}"
    );
    // a run against itself: nothing differs
    let said = words::summary(&base, &base, &compare::compare(&base, &base));
    assert!(
        said.contains("none of the") && said.contains("differs clearly"),
        "{said}"
    );
}

/// Shards of a run with `--lead` and two variants (one of them on two threads) merge into
/// byte for byte what one machine prints, the new counts with them; the text and the report carry the summary in words; and
/// the JSON of an earlier version, without the new counts, is still read.
#[test]
fn measures_merge_over_shards_and_show_in_words() {
    let base = [
        "simulate",
        RACE,
        "--games",
        "30",
        "--seed",
        "3",
        "--lead",
        "--variant",
        "none",
        "--variant",
        "wide",
        "--json",
    ];
    let (code, whole, err) = rulebook(&base);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(whole.trim()).expect("JSON");
    let play = &v["runs"][1]["play"];
    // the won games are those with one winner: a tie at the top is a win for both
    let run = &v["runs"][1];
    let n = |x: &serde_json::Value| x.as_u64().expect("a count");
    let decided = n(&run["completed"]) - n(&run["draws"]);
    let wins = n(&run["wins"][0]) + n(&run["wins"][1]);
    assert_eq!(n(&play["won_games"]), 2 * decided - wins);
    assert!(
        play["uncertainty"].is_number() && play["leader_wins"].is_array(),
        "{play}"
    );
    let summary = v["differences"][0]["summary"].as_str().expect("a summary");
    assert!(
        summary.contains("decisions offer more options"),
        "{summary}"
    );
    let files = common::shard_files(&base, 2, "measures");
    let report =
        std::env::temp_dir().join(format!("rulebook-measures-{}.html", std::process::id()));
    let (code, merged, err) = rulebook(&[
        "merge",
        &files[1],
        &files[0],
        "--report",
        &report.display().to_string(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(merged, whole);
    let html = std::fs::read_to_string(&report).expect("a report");
    assert!(
        html.contains("<p class=\"words\">Under <code>wide</code>, against the base rules"),
        "{html}"
    );
    assert!(html.contains("leader at 1/2 of the game wins"));
    // the text: the words before the table of the comparison
    let (code, out, err) = rulebook(&base[..base.len() - 1]);
    assert_eq!(code, 0, "{err}");
    let words = out.find("Under `wide`").expect("the words");
    let table = out.find("wide against base rules").expect("the table");
    assert!(words < table, "{out}");
    assert!(out.contains("options a decision"), "{out}");
    // JSON of an earlier version: no counts since `uncertain_permille`
    let mut old = v["runs"][0].clone();
    let play = old["play"].as_object_mut().expect("play");
    play.retain(|k, _| {
        [
            "decisions",
            "options",
            "forced",
            "lead_games",
            "lead_changes",
            "won_games",
            "comebacks",
            "decided_permille",
        ]
        .contains(&k.as_str())
    });
    let runs = compare::read_runs(&old.to_string()).expect("read");
    assert!(runs[0].play.older);
    assert!(!runs[0].text().contains("uncertain "));
    // and it is not tested against a run that has them
    let new = compare::read_runs(&v["runs"][1].to_string()).expect("read");
    let d = compare::compare(&runs[0], &new[0]);
    assert!(d
        .iter()
        .all(|x| x.kind != Measure::Options && x.kind != Measure::Uncertainty));
    for f in files {
        let _ = std::fs::remove_file(f);
    }
    let _ = std::fs::remove_file(report);
}
