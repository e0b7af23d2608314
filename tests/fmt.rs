//! The formatter over every rules and scenario file of the repository and every example of
//! the language reference: formatting is idempotent, and the formatted file checks to the
//! same game (the IR, spans and source text aside) and the same scenarios. The files in
//! rules/ and tests/reference/ and the examples of the reference are committed formatted
//! (`rulebook fmt rules/*.rules rules/*/*.rules tests/reference/*.rules grammar/README.md`). And `rulebook fmt` as a
//! command: in place, `--check`, stdin, and a file that does not parse.

use rulebook::fmt::{self, Kind};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("readable")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else if p
            .extension()
            .is_some_and(|x| x == "rules" || x == "scenarios")
        {
            out.push(p);
        }
    }
}

fn all_files() -> Vec<PathBuf> {
    let mut out = vec![];
    files(Path::new("rules"), &mut out);
    files(Path::new("tests"), &mut out);
    assert!(out.len() > 40, "{} files found", out.len());
    out
}

/// A printed IR without its `Span { .. }` parts.
fn without_spans(printed: &str) -> String {
    let mut out = String::with_capacity(printed.len());
    let mut rest = printed;
    while let Some(at) = rest.find("Span {") {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        rest = rest.find('}').map_or("", |end| &rest[end + 1..]);
    }
    out.push_str(rest);
    out
}

/// The checked game of a rules text, printed without spans or source text, or its
/// diagnostics.
fn game(name: &str, text: &str) -> String {
    let loaded = rulebook::load(name, text);
    match loaded.game {
        Some(mut g) => {
            g.sources.clear();
            g.source_hash = 0;
            g.program.id = 0; // a number unique to each compiled program
            without_spans(&format!("{g:?}"))
        }
        None => format!(
            "{:?}",
            loaded
                .diagnostics
                .problems
                .iter()
                .map(|p| (p.code, p.message.clone()))
                .collect::<Vec<_>>()
        ),
    }
}

/// The checked scenarios of a scenario text against its rules, printed without spans.
fn scenarios(path: &Path, text: &str) -> String {
    let name = path.display().to_string();
    let file = rulebook::syntax::parse_scenarios(&name, text).expect("parses");
    let rules_path = path.parent().expect("a folder").join(&file.rules);
    let Ok(rules) = std::fs::read_to_string(&rules_path) else {
        return "no rules".into();
    };
    let loaded = rulebook::load("rules", &rules);
    let (Some(g), Some(symbols)) = (loaded.game, loaded.symbols) else {
        return "rules with errors".into();
    };
    let source = rulebook::source::Source {
        name,
        text: text.to_string(),
    };
    let (g, scenarios, diags) = rulebook::check::scenario::lower(g, symbols, source, &file);
    let problems: Vec<_> = diags.problems.iter().map(|p| p.message.clone()).collect();
    without_spans(&format!("{scenarios:?}\n{:?}\n{problems:?}", g.procs))
}

#[test]
fn every_file_formats_idempotently_to_the_same_game() {
    let mut formatted = 0;
    for path in all_files() {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).expect("readable");
        let kind = Kind::of_name(&name);
        let out = match fmt::format(&name, &text, kind) {
            Ok(out) => out,
            Err(fmt::FmtError::Syntax(_)) => continue, // tests/fail has files that do not parse
            Err(e) => panic!("{e}"),
        };
        formatted += 1;
        let again = fmt::format(&name, &out, kind).expect("the formatted text formats");
        assert!(again == out, "{name}: formatting twice changes it");
        match kind {
            Kind::Rules => assert!(
                game(&name, &text) == game(&name, &out),
                "{name}: the formatted file checks to another game"
            ),
            Kind::Scenarios => assert!(
                scenarios(&path, &text) == scenarios(&path, &out),
                "{name}: the formatted scenarios check differently"
            ),
        }
        if name.starts_with("rules") || name.starts_with("tests/reference") {
            assert!(
                out == text,
                "{name} is not formatted: run `rulebook fmt {name}`"
            );
        }
    }
    assert!(formatted > 40, "{formatted} files formatted");
}

/// The ```rules blocks of a Markdown text: the line of each, its code, and the context file
/// its `<!-- context: NAME -->` mark names (see tests/reference.rs).
fn blocks(markdown: &str) -> Vec<(usize, String, Option<String>)> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut out = vec![];
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != "```rules" {
            i += 1;
            continue;
        }
        let end = (i + 1..lines.len())
            .find(|&k| lines[k].starts_with("```"))
            .unwrap_or(lines.len());
        let mut context = None;
        let mut k = i;
        while k > 0 {
            let Some(mark) = lines[k - 1]
                .trim()
                .strip_prefix("<!--")
                .and_then(|m| m.strip_suffix("-->"))
            else {
                break;
            };
            if let Some(name) = mark.trim().strip_prefix("context:") {
                context = Some(name.trim().to_string());
            }
            k -= 1;
        }
        out.push((i + 1, lines[i + 1..end].join("\n") + "\n", context));
        i = end + 1;
    }
    out
}

#[test]
fn every_example_of_the_reference_formats_to_the_same_game_and_is_formatted() {
    let reference = std::fs::read_to_string("grammar/README.md").expect("the reference");
    let out =
        fmt::format_markdown("grammar/README.md", &reference).unwrap_or_else(|e| panic!("{e}"));
    let again = fmt::format_markdown("grammar/README.md", &out).expect("formats again");
    assert!(again == out, "formatting the reference twice changes it");
    let (before, after) = (blocks(&reference), blocks(&out));
    assert_eq!(before.len(), after.len(), "the same blocks");
    assert!(before.len() >= 20, "{} blocks", before.len());
    let mut in_context = 0;
    for ((line, code, context), (_, formatted, _)) in before.iter().zip(&after) {
        // A whole game or scenario file was checked by the formatter itself (same tree); a
        // fragment is checked in its context file, as tests/reference.rs checks it.
        let Some(context) = context else { continue };
        let path = format!("tests/reference/{context}.rules");
        let text = std::fs::read_to_string(&path).expect("the context file");
        let place = |fragment: &str| match text.find("// the example goes here") {
            Some(_) => text.replacen("// the example goes here", fragment, 1),
            None => format!("{text}\n{fragment}"),
        };
        in_context += 1;
        assert!(
            game(&path, &place(code)) == game(&path, &place(formatted)),
            "grammar/README.md, the block at line {line}: formatted, it checks to another game"
        );
    }
    assert!(
        in_context >= 20,
        "{in_context} fragments checked in context"
    );
    if out != reference {
        let (line, _, _) = before
            .iter()
            .zip(&after)
            .find(|(b, a)| b.1 != a.1)
            .map(|(b, _)| b.clone())
            .unwrap_or_default();
        panic!(
            "grammar/README.md is not formatted (the block at line {line}, at least): run \
             `rulebook fmt grammar/README.md`"
        );
    }
}

fn rulebook(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rulebook"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    use std::io::Write;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("writes");
    let out = child.wait_with_output().expect("finishes");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_command_formats_in_place_checks_and_reads_stdin() {
    let dir = std::env::temp_dir().join(format!("rulebook-fmt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let messy = dir.join("messy.rules");
    let tidy = dir.join("tidy.scenarios");
    let broken = dir.join("broken.rules");
    std::fs::write(&messy, "players 2\nflow{x=1}\n").expect("written");
    std::fs::write(&tidy, "rules \"messy.rules\"\n").expect("written");
    std::fs::write(&broken, "flow { x = }\n").expect("written");
    let (m, t, b) = (
        messy.display().to_string(),
        tidy.display().to_string(),
        broken.display().to_string(),
    );

    // --check lists the file that would change and changes nothing.
    let (code, out, _) = rulebook(&["fmt", "--check", &m, &t], "");
    assert_eq!((code, out.trim()), (1, m.as_str()));
    assert_eq!(
        std::fs::read_to_string(&messy).unwrap(),
        "players 2\nflow{x=1}\n"
    );

    // In place.
    let (code, out, err) = rulebook(&["fmt", &m, &t], "");
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    assert_eq!(
        std::fs::read_to_string(&messy).unwrap(),
        "players 2\nflow { x = 1 }\n"
    );
    assert_eq!(rulebook(&["fmt", "--check", &m, &t], "").0, 0);

    // A file that does not parse is refused and left as it is.
    let (code, _, err) = rulebook(&["fmt", &b], "");
    assert_eq!(code, 1);
    assert!(
        err.contains("syntax error") && err.contains("not formatted"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&broken).unwrap(), "flow { x = }\n");

    // stdin to stdout; a scenario file is told by its first word.
    let (code, out, _) = rulebook(
        &["fmt", "-"],
        "rules \"x.rules\"\nscenario \"s\" {\nseed 1 }\n",
    );
    assert_eq!(
        (code, out.as_str()),
        (0, "rules \"x.rules\"\nscenario \"s\" {\n    seed 1\n}\n")
    );
    let (code, out, _) = rulebook(&["fmt", "--check", "-"], "players 2\n");
    assert_eq!((code, out.as_str()), (0, ""));

    std::fs::remove_dir_all(&dir).ok();
}
