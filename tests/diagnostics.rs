//! Every broken rules file in tests/fail/ gets its diagnostics, rendered without colour
//! at a fixed width, snapshotted; and none of them crashes the checker.

use rulebook::check::load;
use rulebook::render::plain as render_plain;

#[test]
fn broken_files_get_diagnostics() {
    insta::glob!("fail/*.rules", |path| {
        let text = std::fs::read_to_string(path).expect("readable");
        let name = format!(
            "tests/fail/{}",
            path.file_name().expect("name").to_string_lossy()
        );
        let loaded = load(&name, &text);
        let mut out = String::new();
        for p in &loaded.diagnostics.problems {
            out.push_str(&render_plain(p));
        }
        out.push_str(&format!("-- {}\n", loaded.diagnostics));
        insta::assert_snapshot!(out);
    });
}

#[test]
fn every_broken_file_has_an_error_or_a_warning() {
    for entry in std::fs::read_dir("tests/fail").expect("tests/fail") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("readable");
        let loaded = load(&path.display().to_string(), &text);
        assert!(
            !loaded.diagnostics.problems.is_empty(),
            "{} produced no diagnostic",
            path.display()
        );
        let is_warning_file = path.file_name().is_some_and(|n| n == "warnings.rules");
        assert_eq!(
            loaded.game.is_some(),
            is_warning_file,
            "{}: only warnings.rules should still load",
            path.display()
        );
    }
}

#[test]
fn the_seed_and_classic_games_check_clean() {
    for f in ["rules/omega_shift.rules", "rules/classic/tic_tac_toe.rules"] {
        let text = std::fs::read_to_string(f).expect("readable");
        let loaded = load(f, &text);
        let rendered: Vec<String> = loaded
            .diagnostics
            .problems
            .iter()
            .map(|p| render_plain(p))
            .collect();
        assert!(
            loaded.diagnostics.problems.is_empty(),
            "{f}:\n{}",
            rendered.join("\n")
        );
    }
}
