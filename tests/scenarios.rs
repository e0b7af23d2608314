//! Every scenario file under tests/scenarios/ runs and every scenario in it passes.
//! A scenario sets up a position, applies actions and states what must hold (see the
//! scenario format in grammar/README.md); each cites the rulebook clause it checks.

use rulebook::run::scenarios;
use std::path::Path;

/// The scenario files of `tests/scenarios`, sorted.
fn scenario_files() -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir("tests/scenarios")
        .expect("tests/scenarios")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "scenarios"))
        .collect();
    files.sort();
    files
}

#[test]
fn all_scenarios_pass() {
    let files = scenario_files();
    assert!(!files.is_empty(), "no scenario files");
    let mut failures = Vec::new();
    let mut passed = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable");
        let name = f.display().to_string();
        let rules = scenarios::rules_path(&name, &text).expect("a rules line");
        let rules = f.parent().unwrap_or(Path::new(".")).join(rules);
        let rules_text = std::fs::read_to_string(&rules).expect("the rules file");
        match scenarios::run_text(&name, &text, &rules.display().to_string(), &rules_text) {
            Err(e) => failures.push(format!("{name}: {e}")),
            Ok(results) => {
                for (r, line) in results {
                    match r.failure {
                        None => passed += 1,
                        Some((_, msg)) => {
                            failures.push(format!("{name}:{line}: {}: {msg}", r.name))
                        }
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{passed} passed; failures:\n{}",
        failures.join("\n")
    );
}

/// [ON-6.7] [ON-R10] of seeds/omnia.md: the actions next to a card's lightning run at once, in
/// an order the text does not give, so the player chooses it. No card of the assumed list has
/// two instants (ON-A3), so the scenario gives one card a second instant, as a real card could:
/// an edit of its row, which is all a real card list needs.
#[test]
fn omnia_two_instants_on_one_card_run_in_the_order_the_player_chooses() {
    let rules_text = std::fs::read_to_string("rules/omnia.rules").expect("rules/omnia.rules");
    let row =
        r#""Caterina"              { kind = person, cost = 0, points = 0, instant = gain_coin }"#;
    assert!(
        rules_text.contains(row),
        "Caterina's row changed: update this test"
    );
    let rules_text = rules_text.replace(
        row,
        r#""Caterina" { kind = person, cost = 0, points = 0, instant = gain_coin, instant2 = take_a_work }"#,
    );
    let scenario = r#"rules "omnia.rules"
scenario "ON-6.7 ON-R10 two instants: the player chooses which runs first" {
    seed 2
    setup {
        deal all from hand[seat(0)] to box
        move named("work-person-2a") to hand[seat(0)]
        deal all from row[person] to deck[person]
        move named("Caterina") to row[person]
        deal all from row[work] to deck[work]
        move named("madonna-1") to row[work]
    }
    apply "play card=work-person-2a"
    apply "take_person card=Caterina"
    expect legal "first_instant=1"
    expect legal "first_instant=2"
    expect not legal "done"
    apply "first_instant=2"
    expect coins[seat(0)] == 1
    apply "instant_work card=madonna-1"
    expect coins[seat(0)] == 2
    expect zone_of(named("madonna-1")) == tableau[seat(0)]
    expect legal "done"
}

scenario "ON-6.7 ON-R10 two instants: printed order" {
    seed 2
    setup {
        deal all from hand[seat(0)] to box
        move named("work-person-2a") to hand[seat(0)]
        deal all from row[person] to deck[person]
        move named("Caterina") to row[person]
        deal all from row[work] to deck[work]
        move named("madonna-1") to row[work]
    }
    apply "play card=work-person-2a"
    apply "take_person card=Caterina"
    apply "first_instant=1"
    expect coins[seat(0)] == 2
    expect legal "instant_work card=madonna-1"
    expect not legal "done"
}
"#;
    let results = scenarios::run_text("omnia_two_instants", scenario, "omnia.rules", &rules_text)
        .expect("the scenario runs");
    assert_eq!(results.len(), 2);
    for (r, line) in results {
        assert!(
            r.failure.is_none(),
            "line {line}: {}: {:?}",
            r.name,
            r.failure
        );
    }
}

/// Every scenario again in check mode: each remembered answer the engine serves (the options
/// listed in a state, function results, guard answers remembered per setup, a window's "no
/// option") is computed again without it and must be equal (the engine panics otherwise).
#[test]
fn all_scenarios_pass_with_every_remembered_answer_checked() {
    let files = scenario_files();
    let mut failures = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable");
        let name = f.display().to_string();
        let rules = scenarios::rules_path(&name, &text).expect("a rules line");
        let rules = f.parent().unwrap_or(Path::new(".")).join(rules);
        let rules_text = std::fs::read_to_string(&rules).expect("the rules file");
        let results = scenarios::run_text_with(
            &name,
            &text,
            &rules.display().to_string(),
            &rules_text,
            true,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        for (r, line) in results {
            if let Some((_, msg)) = r.failure {
                failures.push(format!("{name}:{line}: {}: {msg}", r.name));
            }
        }
    }
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
}

/// Issue 35: `expect not legal A` is exactly the negation of `expect legal A` in every state,
/// also while a window (`anytime`, `before turn`) waits: `expect legal` passes the window
/// for everyone until `A` is offered, so `expect not legal` must fail when passing the
/// window would offer `A` (it once passed vacuously, looking only at the window's options).
#[test]
fn expect_not_legal_is_the_negation_of_expect_legal_while_a_window_waits() {
    let rules = "tests/constructs/windows.rules";
    let rules_text = std::fs::read_to_string(rules).expect("the rules file");
    // States: a window after `do rise()`; before p2's turn (anytime, then before turn); a
    // turn with no window waiting.
    let states = [
        "",
        "apply \"earn\"",
        "apply \"earn\"\n    apply \"pass\"",
        "setup { level = 0 }",
    ];
    let actions = ["earn", "barrier", "redeploy", "pass", "stop", "surge"];
    for state in states {
        for a in actions {
            let outcome = |expect: &str| {
                let scenario = format!(
                    "rules \"windows.rules\"\nscenario \"s\" {{\n    {state}\n    {expect} \"{a}\"\n}}\n"
                );
                let results = scenarios::run_text("negation", &scenario, rules, &rules_text)
                    .expect("the scenario checks");
                results[0].0.failure.is_none()
            };
            let (legal, not_legal) = (outcome("expect legal"), outcome("expect not legal"));
            assert_ne!(
                legal, not_legal,
                "after `{state}`: `expect legal {a}` passes: {legal}, `expect not legal {a}`: {not_legal}"
            );
        }
    }
}
