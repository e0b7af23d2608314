//! Hover texts for the words of the language, drawn from the language reference
//! (`grammar/README.md`): a row of one of its tables whose first cell starts with the word
//! (`count(z)`, `move c to z`, `public`), or a section whose heading names it (`### 3.9
//! `action``). A construct documented in the reference gets its hover with no change here.

use std::collections::BTreeMap;
use std::sync::OnceLock;

const REFERENCE: &str = include_str!("../../grammar/README.md");

/// The most entries a hover shows.
const MOST: usize = 6;

/// What the reference says of a word: markdown, one entry per table row or section.
pub(crate) fn entry(word: &str) -> Option<String> {
    let entries = entries().get(word)?;
    let shown: Vec<&str> = entries.iter().take(MOST).map(String::as_str).collect();
    Some(shown.join("\n\n---\n\n"))
}

/// The words the reference's tables list as functions (`count(z)`: `count`), in order.
pub(crate) fn functions() -> &'static [String] {
    static FUNCTIONS: OnceLock<Vec<String>> = OnceLock::new();
    FUNCTIONS.get_or_init(|| {
        let mut out: Vec<String> = vec![];
        for row in rows() {
            for code in codes(row.first) {
                let word = leading_word(code);
                // (A one-letter word is a placeholder: `f(x)`, a function of the rules.)
                if word.len() > 1 && code[word.len()..].starts_with('(') {
                    out.push(word.to_string());
                }
            }
        }
        out.sort();
        out.dedup();
        out
    })
}

/// One row of a table: its first cell, the rest, and the section it is in.
struct Row<'a> {
    first: &'a str,
    rest: &'a str,
    section: &'a str,
}

fn rows() -> Vec<Row<'static>> {
    let mut section = "";
    let mut out = vec![];
    for line in REFERENCE.lines() {
        if let Some(h) = line
            .strip_prefix("## ")
            .or_else(|| line.strip_prefix("### "))
        {
            section = h.trim();
            continue;
        }
        let Some(row) = line.strip_prefix('|') else {
            continue;
        };
        let Some((first, rest)) = row.split_once('|') else {
            continue;
        };
        if first.trim_start().starts_with('-') {
            continue; // the line under a table's header
        }
        out.push(Row {
            first: first.trim(),
            rest: rest.trim().trim_end_matches('|').trim(),
            section,
        });
    }
    out
}

/// The `code` parts of a piece of markdown.
fn codes(cell: &str) -> impl Iterator<Item = &str> {
    cell.split('`').skip(1).step_by(2)
}

fn leading_word(code: &str) -> &str {
    let end = code
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(code.len());
    let word = &code[..end];
    if word.starts_with(|c: char| c.is_ascii_alphabetic()) {
        word
    } else {
        ""
    }
}

fn entries() -> &'static BTreeMap<String, Vec<String>> {
    static ENTRIES: OnceLock<BTreeMap<String, Vec<String>>> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for row in rows() {
            if row.rest.is_empty() {
                continue;
            }
            let text = format!("{}: {}\n\n*{}*", row.first, row.rest, row.section);
            let mut seen = vec![];
            for code in codes(row.first) {
                let word = leading_word(code);
                if !word.is_empty() && !seen.contains(&word) {
                    seen.push(word);
                    map.entry(word.to_string()).or_default().push(text.clone());
                }
            }
        }
        for (heading, body) in sections() {
            // Section 13 sketches designs: its headings name words that are not built.
            if heading.starts_with("13") {
                continue;
            }
            let Some(word) = codes(heading).map(leading_word).find(|w| !w.is_empty()) else {
                continue;
            };
            if let Some(paragraph) = first_paragraph(body) {
                let text = format!("**{heading}**\n\n{paragraph}");
                map.entry(word.to_string()).or_default().push(text);
            }
        }
        map
    })
}

/// The sections of the reference: heading and body.
fn sections() -> Vec<(&'static str, &'static str)> {
    let mut out = vec![];
    let mut heading: Option<(&str, usize)> = None;
    let mut offset = 0;
    for line in REFERENCE.split_inclusive('\n') {
        let trimmed = line.trim_end();
        if trimmed.starts_with("## ") || trimmed.starts_with("### ") || trimmed.starts_with("#### ")
        {
            if let Some((h, start)) = heading {
                out.push((h, &REFERENCE[start..offset]));
            }
            heading = Some((trimmed.trim_start_matches('#').trim(), offset + line.len()));
        }
        offset += line.len();
    }
    if let Some((h, start)) = heading {
        out.push((h, &REFERENCE[start..]));
    }
    out
}

/// The first paragraph of prose in a section: no code block, table or HTML comment.
fn first_paragraph(body: &str) -> Option<String> {
    let mut in_code = false;
    let mut lines: Vec<&str> = vec![];
    for line in body.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        let skip = in_code || line.starts_with('|') || line.starts_with("<!--");
        if skip || line.trim().is_empty() {
            if !lines.is_empty() {
                break;
            }
            continue;
        }
        lines.push(line);
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_keywords_and_declarations_have_entries() {
        let count = entry("count").expect("count");
        assert!(
            count.contains("the number of components in zone"),
            "{count}"
        );
        assert!(count.contains("how many elements pass"), "{count}");
        assert!(entry("move").expect("move").contains("takes `c` out"));
        assert!(entry("owner").is_some() && entry("public").is_some());
        let action = entry("action").expect("action");
        assert!(action.contains("**3.9 `action`**"), "{action}");
        assert!(entry("frobnicate").is_none());
        for f in ["count", "seat", "best_sets", "adjacent", "paths"] {
            assert!(functions().iter().any(|x| x == f), "{f}");
        }
        assert!(!functions().iter().any(|x| x == "f"), "a placeholder");
    }
}
