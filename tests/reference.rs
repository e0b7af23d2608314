//! The language reference cannot rot: every ```rules block of grammar/README.md is checked as
//! written. An HTML comment on the line just above a block (invisible on GitHub) says how:
//!
//! - no comment: the block is a whole game and must check without errors;
//! - `<!-- context: NAME -->`: a fragment, checked inside tests/reference/NAME.rules, which
//!   supplies what the fragment uses: the fragment replaces the line `// the example goes
//!   here` of the context file, or is appended when the file has no such line;
//! - `<!-- expect: CODE -->` (with or without a context): a deliberate error; a diagnostic
//!   with that code (`check::type`) must be reported;
//! - `<!-- not built -->` (with a context): syntax that is designed but not built (section
//!   13); it must FAIL to parse or check, with an error inside the fragment itself, so that
//!   building it makes this test ask for the mark to be removed;
//! - `<!-- scenario: NAME -->`: a scenario file, run against tests/reference/NAME.rules; every
//!   scenario in it must pass.
//!
//! A block that fits none of these fails the test.

use miette::Diagnostic;
use rulebook::run::scenarios;

const PLACEHOLDER: &str = "// the example goes here";

/// One ```rules block: its text, its line in the README and the marks just above it.
struct Block {
    line: usize,
    code: String,
    context: Option<String>,
    expect: Option<String>,
    not_built: bool,
    scenario: Option<String>,
}

fn blocks(readme: &str) -> Vec<Block> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != "```rules" {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i + 1;
        while end < lines.len() && !lines[end].starts_with("```") {
            end += 1;
        }
        let mut block = Block {
            line: start + 1,
            code: lines[start + 1..end.min(lines.len())].join("\n") + "\n",
            context: None,
            expect: None,
            not_built: false,
            scenario: None,
        };
        let mut k = start;
        while k > 0 {
            let Some(mark) = lines[k - 1]
                .trim()
                .strip_prefix("<!--")
                .and_then(|m| m.strip_suffix("-->"))
            else {
                break;
            };
            let mark = mark.trim();
            let arg = |key: &str| mark.strip_prefix(key).map(|v| v.trim().to_string());
            if let Some(name) = arg("context:") {
                block.context = Some(name);
            } else if let Some(code) = arg("expect:") {
                block.expect = Some(code);
            } else if let Some(name) = arg("scenario:") {
                block.scenario = Some(name);
            } else if mark == "not built" {
                block.not_built = true;
            }
            k -= 1;
        }
        out.push(block);
        i = end + 1;
    }
    out
}

fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

/// The context file with `fragment` in its place, and where the fragment starts.
fn in_context(context: &str, fragment: &str) -> (String, usize) {
    match context.find(PLACEHOLDER) {
        Some(at) => (context.replacen(PLACEHOLDER, fragment, 1), at),
        None => (format!("{context}\n{fragment}"), context.len() + 1),
    }
}

/// The errors of checking `text`: each one's code and the offsets its labels point at; and
/// all of them rendered.
fn errors(name: &str, text: &str) -> (Vec<(String, Vec<usize>)>, String) {
    let loaded = rulebook::load(name, text);
    let mut found = Vec::new();
    let mut rendered = String::new();
    for p in &loaded.diagnostics.problems {
        if p.severity() == Some(miette::Severity::Error) || p.severity().is_none() {
            let code = p.code().map(|c| c.to_string()).unwrap_or_default();
            let at = p
                .labels()
                .map(|ls| ls.map(|l| l.offset()).collect())
                .unwrap_or_default();
            found.push((code, at));
            rendered += &rulebook::render::plain(p);
        }
    }
    (found, rendered)
}

/// Checks one block as its marks say; `Err` says why it fails.
fn check(b: &Block) -> Result<(), String> {
    let name = format!("grammar/README.md, the block at line {}", b.line);
    if let Some(rules) = &b.scenario {
        let path = format!("tests/reference/{rules}.rules");
        let results =
            scenarios::run_text(&name, &b.code, &path, &read(&path)?).map_err(|e| e.to_string())?;
        let failed: Vec<String> = results
            .iter()
            .filter_map(|(r, line)| r.failure.as_ref().map(|(_, m)| format!("{line}: {m}")))
            .collect();
        return if results.is_empty() || !failed.is_empty() {
            Err(format!(
                "scenarios: {} run, failing: {failed:?}",
                results.len()
            ))
        } else {
            Ok(())
        };
    }
    let context = match &b.context {
        Some(c) => Some(read(&format!("tests/reference/{c}.rules"))?),
        None => None,
    };
    let (text, start) = context
        .as_deref()
        .map_or((b.code.clone(), 0), |c| in_context(c, &b.code));
    let (found, rendered) = errors(&name, &text);
    let codes: Vec<&str> = found.iter().map(|(c, _)| c.as_str()).collect();
    if let Some(want) = &b.expect {
        let found = codes
            .iter()
            .any(|c| c == want || c.ends_with(&format!("::{want}")));
        return if found {
            Ok(())
        } else {
            Err(format!(
                "expected an error `{want}`, got {codes:?}\n{rendered}"
            ))
        };
    }
    if b.not_built {
        if context.is_none() {
            return Err("a `not built` block needs a context".into());
        }
        let fragment = start..start + b.code.len();
        let inside = found
            .iter()
            .any(|(_, at)| at.iter().any(|o| fragment.contains(o)));
        return match (codes.is_empty(), inside) {
            (true, _) => Err("marked `not built`, but it checks: remove the mark".into()),
            (false, false) => Err(format!(
                "marked `not built`, but no error lies in the example; its context fails:\n{rendered}"
            )),
            (false, true) => Ok(()),
        };
    }
    match (codes.is_empty(), b.context.is_some()) {
        (true, _) => Ok(()),
        (false, true) => Err(rendered),
        (false, false) => Err(format!(
            "{rendered}(a fragment needs a `<!-- context: NAME -->` line above it)"
        )),
    }
}

#[test]
fn every_example_in_the_reference_checks() {
    let readme = std::fs::read_to_string("grammar/README.md").expect("the reference");
    let blocks = blocks(&readme);
    assert!(blocks.len() >= 30, "{} blocks found", blocks.len());
    let failures: Vec<String> = blocks
        .iter()
        .filter_map(|b| check(b).err().map(|e| format!("line {}: {e}", b.line)))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} examples fail:\n\n{}",
        failures.len(),
        blocks.len(),
        failures.join("\n\n")
    );
}

/// The conventions themselves: a fragment with no mark fails; a `not built` mark on a block
/// that checks fails.
#[test]
fn unmarked_fragments_and_stale_marks_are_caught() {
    let fragment = "enum Suit { red, green }\n";
    let unmarked = format!("```rules\n{fragment}```\n");
    assert!(check(&blocks(&unmarked)[0]).is_err());
    let marked = format!("<!-- context: minimal -->\n```rules\n{fragment}```\n");
    assert_eq!(check(&blocks(&marked)[0]), Ok(()));
    let stale = format!("<!-- context: minimal -->\n<!-- not built -->\n```rules\n{fragment}```\n");
    assert!(check(&blocks(&stale)[0]).is_err());
}
