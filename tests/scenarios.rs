//! Every scenario file under tests/scenarios/ runs and every scenario in it passes.
//! A scenario sets up a position, applies actions and states what must hold (see the
//! scenario format in grammar/README.md); each cites the rulebook clause it checks.

use rulebook::run::scenarios;
use std::path::Path;

#[test]
fn all_scenarios_pass() {
    let mut files: Vec<_> = std::fs::read_dir("tests/scenarios")
        .expect("tests/scenarios")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "scenarios"))
        .collect();
    files.sort();
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
