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
        if path.extension().is_some_and(|x| x == "scenarios") {
            continue; // checked against its rules file in `every_code_has_a_failing_file`
        }
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

/// The codes of the problems found in a broken file: a rules file, or a scenario file checked
/// against the rules file its `rules` line names.
fn codes_of(path: &std::path::Path, text: &str) -> Vec<String> {
    let name = path.display().to_string();
    let problems = if path.extension().is_some_and(|x| x == "scenarios") {
        let file = rulebook::syntax::parse_scenarios(&name, text).expect("a scenario file parses");
        let rules_path = path.parent().expect("a folder").join(&file.rules);
        let rules = std::fs::read_to_string(&rules_path).expect("its rules file");
        let loaded = load(&rules_path.display().to_string(), &rules);
        let source = rulebook::source::Source {
            name,
            text: text.to_string(),
        };
        let (_, _, diags) = rulebook::check::scenario::lower(
            loaded.game.expect("valid rules"),
            loaded.symbols.expect("symbols"),
            source,
            &file,
        );
        diags.problems
    } else {
        load(&name, text).diagnostics.problems
    };
    problems
        .iter()
        .map(|p| p.code.as_str().to_string())
        .collect()
}

#[test]
fn every_code_has_a_failing_file() {
    let mut found = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir("tests/fail").expect("tests/fail") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("readable");
        found.extend(codes_of(&path, &text));
    }
    let missing: Vec<&str> = rulebook::check::Code::ALL
        .iter()
        .map(|c| c.as_str())
        .filter(|c| !found.contains(*c))
        .collect();
    assert!(
        missing.is_empty(),
        "codes no file in tests/fail/ triggers: {missing:?}"
    );
}

/// Each code's documentation in src/check/code.rs shows a program; that program must trigger
/// exactly that code (among others it may trigger on the way).
#[test]
fn every_code_documents_a_program_that_triggers_it() {
    let doc = std::fs::read_to_string("src/check/code.rs").expect("code.rs");
    let mut example: Option<String> = None;
    let mut in_block = false;
    let mut checked = 0;
    let mut wrong = vec![];
    for line in doc.lines() {
        let t = line.trim();
        if let Some(d) = t.strip_prefix("///") {
            let d = d.strip_prefix(' ').unwrap_or(d);
            if d.starts_with("```rules") {
                in_block = true;
                example = Some(String::new());
            } else if d.starts_with("```") {
                in_block = false;
            } else if in_block {
                let e = example.as_mut().expect("in a block");
                e.push_str(d);
                e.push('\n');
            }
            continue;
        }
        let Some((_, code)) = t.split_once(" = \"") else {
            continue;
        };
        let code = code.trim_end_matches("\";");
        let program = example
            .take()
            .unwrap_or_else(|| panic!("`{code}` documents no ```rules program"));
        let codes = if program.starts_with("rules ") {
            let path = std::path::Path::new("tests/fail/documented.scenarios");
            codes_of(path, &program)
        } else {
            codes_of(std::path::Path::new("example.rules"), &program)
        };
        if !codes.iter().any(|c| c == code) {
            wrong.push(format!(
                "the documented program of `{code}` gives {codes:?}:\n{program}"
            ));
        }
        checked += 1;
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(checked, rulebook::check::Code::ALL.len());
}

/// The problems of a rules text: (code, the text the span covers, label, hint).
fn problems_of(text: &str) -> Vec<(String, String, String, Option<String>)> {
    load("test.rules", text)
        .diagnostics
        .problems
        .iter()
        .map(|p| {
            (
                p.code.as_str().to_string(),
                text[p.span.start..p.span.end].to_string(),
                p.label.clone(),
                p.help.clone(),
            )
        })
        .collect()
}

/// Issue 35: `end when false` ends nothing: a flow that loops forever with only that end
/// condition gets the never-ends diagnostic, with its place, label and hint, as without it.
#[test]
fn end_when_false_does_not_count_as_an_end() {
    let flow = "flow { repeat { turn seat(0) { choose { go } } } }";
    let base = format!("players 1\nvar n: int\naction go() {{ n += 1 }}\n{flow}\n");
    for end in ["", "end when false\n", "end when (false)\n"] {
        let text = format!("{base}{end}");
        let ps = problems_of(&text);
        let p = ps
            .iter()
            .find(|p| p.0 == "check::never_ends")
            .unwrap_or_else(|| panic!("`{end}`: {ps:?}"));
        assert!(p.1.starts_with("repeat"), "{p:?}");
        assert!(!p.2.is_empty() && p.3.is_some(), "{p:?}");
    }
    // a condition that can hold ends the game
    let text = format!("{base}end when n > 3\n");
    assert!(problems_of(&text).is_empty(), "{:?}", problems_of(&text));
}

/// Issue 35: range bounds may name constants wherever a range is written: parameter
/// domains, `for`, aggregates, range types of variables and fields, and the generators of a
/// `components` table; a bound that is no constant is `check::not_constant` at the bound.
#[test]
fn range_bounds_accept_constants() {
    let text = "players 2\nconst SIDES = 6\nconst LOW = 0 - 2\n\
                component Die { face: 1..SIDES = 1 }\nzone box: Die\n\
                components Die in box { \"d{i}\" for i in 1..SIDES { face = i } }\n\
                var total: LOW..SIDES\nvar seen[Player]: 0..SIDES clamp\n\
                action roll_it(k in 1..SIDES) { total = k  for i in LOW..SIDES { seen[me] += 1 } }\n\
                flow { turn seat(0) { choose { roll_it } } end }\n";
    assert!(problems_of(text).is_empty(), "{:?}", problems_of(text));
    let g = load("test.rules", text).game.expect("checks");
    assert_eq!(g.comps.len(), 6);
    // a bound that is not known when the file is read
    let text = "players 2\nvar n: int\nvar total: 0..n\nflow { total = 1 end }\n";
    let ps = problems_of(text);
    let p = ps
        .iter()
        .find(|p| p.0 == "check::not_constant")
        .unwrap_or_else(|| panic!("{ps:?}"));
    assert_eq!(p.1, "n");
    assert!(!p.2.is_empty() && p.3.is_some(), "{p:?}");
    // an unknown name, and an empty range of constants
    let ps = problems_of("players 2\nvar total: 0..NOPE\nflow { total = 1 end }\n");
    assert!(ps.iter().any(|p| p.1 == "NOPE"), "{ps:?}");
    let ps = problems_of("players 2\nconst A = 5\nvar total: A..1\nflow { total = 1 end }\n");
    assert!(ps.iter().any(|p| p.0 == "check::range"), "{ps:?}");
}
