//! The editor support in editors/ keeps up with the language: the VS Code extension's JSON
//! files parse and fit together, every keyword of grammar/rules.pest is highlighted, and every
//! built-in function of the reference (grammar/README.md) is highlighted as one.
//!
//! The TextMate grammar cannot be run here (its regexes need Oniguruma), so it keeps its words
//! in plain alternations, `\b(if|else|then)\b`, and these tests read the words out of them.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

const TM_GRAMMAR: &str = "editors/vscode/syntaxes/rules.tmLanguage.json";
const PACKAGE: &str = "editors/vscode/package.json";
const LANGUAGE_CONFIGURATION: &str = "editors/vscode/language-configuration.json";
const PEST: &str = "grammar/rules.pest";
const REFERENCE: &str = "grammar/README.md";

fn path(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(relative)
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(path(relative))
        .unwrap_or_else(|e| panic!("cannot read {relative}: {e}"))
}

fn json(relative: &str) -> Value {
    serde_json::from_str(&read(relative))
        .unwrap_or_else(|e| panic!("{relative} is not valid JSON: {e}"))
}

// ---------------------------------------------------------------- the TextMate grammar

/// Every regex in a grammar (or part of one): the `match`, `begin`, `end` and `while` strings.
fn regexes(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match (key.as_str(), v) {
                    ("match" | "begin" | "end" | "while", Value::String(s)) => out.push(s.clone()),
                    _ => regexes(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| regexes(v, out)),
        _ => {}
    }
}

/// Whether the character at `i` is escaped by an odd number of backslashes.
fn escaped(chars: &[char], i: usize) -> bool {
    chars[..i].iter().rev().take_while(|&&c| c == '\\').count() % 2 == 1
}

fn is_word(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The words of the regex's word alternations: groups `(a|b|c)` or `(?:a|b|c)` made only of
/// names and followed by `\b`, so that each word matches only as a whole word.
fn alternation_words(regex: &str) -> BTreeSet<String> {
    let chars: Vec<char> = regex.chars().collect();
    let mut words = BTreeSet::new();
    for open in 0..chars.len() {
        if chars[open] != '(' || escaped(&chars, open) {
            continue;
        }
        let Some(len) = chars[open + 1..].iter().position(|&c| c == ')') else {
            continue;
        };
        let close = open + 1 + len;
        let inner: String = chars[open + 1..close].iter().collect();
        let inner = inner.strip_prefix("?:").unwrap_or(&inner);
        let after: String = chars[close + 1..].iter().collect();
        if after.starts_with("\\b") && !inner.is_empty() && inner.split('|').all(is_word) {
            words.extend(inner.split('|').map(str::to_string));
        }
    }
    words
}

/// Every word of every word alternation in `value`.
fn words_in(value: &Value) -> BTreeSet<String> {
    let mut all = Vec::new();
    regexes(value, &mut all);
    all.iter().flat_map(|r| alternation_words(r)).collect()
}

// ---------------------------------------------------------------- the pest grammar

/// The text of a pest grammar without its `//` comments (a `"//"` string literal stays).
fn strip_pest_comments(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let chars: Vec<char> = line.chars().collect();
        let (mut in_string, mut i, mut end) = (false, 0, chars.len());
        while i < chars.len() {
            match chars[i] {
                '\\' if in_string => i += 1,
                '"' => in_string = !in_string,
                '/' if !in_string && chars.get(i + 1) == Some(&'/') => {
                    end = i;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
        out.extend(&chars[..end]);
        out.push('\n');
    }
    out
}

/// The string literals of a piece of pest grammar, unescaped.
fn pest_strings(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut s = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => s.extend(chars.next()),
                '"' => break,
                c => s.push(c),
            }
        }
        out.push(s);
    }
    out
}

/// The rules of a pest grammar: name and body, in order.
fn pest_rules(text: &str) -> Vec<(String, String)> {
    let text = strip_pest_comments(text);
    let chars: Vec<char> = text.chars().collect();
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let skip_space = |mut i: usize| {
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        i
    };
    let mut rules = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !ident(chars[i]) || (i > 0 && ident(chars[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && ident(chars[i]) {
            i += 1;
        }
        let name: String = chars[start..i].iter().collect();
        let mut j = skip_space(i);
        if chars.get(j) != Some(&'=') {
            continue;
        }
        j = skip_space(j + 1);
        if matches!(chars.get(j), Some('_' | '@' | '$' | '!')) {
            j = skip_space(j + 1);
        }
        if chars.get(j) != Some(&'{') {
            continue;
        }
        // The body runs to the matching brace; braces inside strings do not count.
        let (mut depth, mut in_string, mut k) = (0, false, j);
        while k < chars.len() {
            match chars[k] {
                '\\' if in_string => k += 1,
                '"' => in_string = !in_string,
                '{' if !in_string => depth += 1,
                '}' if !in_string => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            k += 1;
        }
        rules.push((name, chars[j + 1..k.min(chars.len())].iter().collect()));
        i = k + 1;
    }
    rules
}

/// The keywords of a pest grammar, each with the rule it comes from: the words of the `kw_*`
/// rules and of every rule that matches whole words only (ends a word with `!ident_char`,
/// like `keyword`, `visibility` and `board_flag`).
fn pest_keywords(text: &str) -> BTreeMap<String, String> {
    let mut keywords = BTreeMap::new();
    for (name, body) in pest_rules(text) {
        if !(name.starts_with("kw_") || body.contains("!ident_char")) {
            continue;
        }
        for word in pest_strings(&body) {
            if word.starts_with(|c: char| c.is_ascii_alphabetic()) && is_word(&word) {
                keywords.entry(word).or_insert_with(|| name.clone());
            }
        }
    }
    keywords
}

/// The keywords of `pest` that no word alternation of `grammar` holds, as `word (rule)`.
fn unhighlighted_keywords(pest: &str, grammar: &Value) -> Vec<String> {
    let highlighted = words_in(grammar);
    pest_keywords(pest)
        .into_iter()
        .filter(|(word, _)| !highlighted.contains(word))
        .map(|(word, rule)| format!("`{word}` (rule {rule})"))
        .collect()
}

// ---------------------------------------------------------------- the reference

/// The functions named in the first column of the tables of the reference's sections on
/// collections (6), built-in functions (7) and aggregates (8): `count(z)` gives `count`.
fn reference_functions(reference: &str) -> BTreeSet<String> {
    let mut functions = BTreeSet::new();
    let mut in_section = false;
    for line in reference.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            in_section = ["6.", "7.", "8."].iter().any(|n| heading.starts_with(n));
            continue;
        }
        let Some(row) = line.strip_prefix('|') else {
            continue;
        };
        if !in_section {
            continue;
        }
        let first_cell = row.split('|').next().unwrap_or_default();
        for code in first_cell.split('`').skip(1).step_by(2) {
            let name: String = code
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if is_word(&name) && code[name.len()..].starts_with('(') {
                functions.insert(name);
            }
        }
    }
    functions
}

/// The functions of `reference` missing from the grammar's `builtin-functions` rule.
fn unhighlighted_functions(reference: &str, grammar: &Value) -> Vec<String> {
    let rule = &grammar["repository"]["builtin-functions"];
    assert!(
        !rule.is_null(),
        "{TM_GRAMMAR} has no repository rule `builtin-functions`"
    );
    let highlighted = words_in(rule);
    reference_functions(reference)
        .into_iter()
        .filter(|f| !highlighted.contains(f))
        .map(|f| format!("`{f}`"))
        .collect()
}

// ---------------------------------------------------------------- tests

#[test]
fn every_keyword_of_the_grammar_is_highlighted() {
    let pest = read(PEST);
    let keywords = pest_keywords(&pest);
    for expected in ["action", "where", "expect", "owner", "diagonal"] {
        assert!(
            keywords.contains_key(expected),
            "found no keyword `{expected}` in {PEST}: has the way keywords are written changed? \
             Update pest_keywords in tests/editors.rs. Found: {:?}",
            keywords.keys().collect::<Vec<_>>()
        );
    }
    let missing = unhighlighted_keywords(&pest, &json(TM_GRAMMAR));
    assert!(
        missing.is_empty(),
        "keywords of {PEST} that {TM_GRAMMAR} does not highlight: {}. Add each to a word list \
         `\\b(...)\\b` of the right kind in its `keywords` rule (see editors/README.md)",
        missing.join(", ")
    );
}

#[test]
fn every_built_in_function_of_the_reference_is_highlighted() {
    let reference = read(REFERENCE);
    let functions = reference_functions(&reference);
    for expected in ["count", "seat", "best_sets", "adjacent"] {
        assert!(
            functions.contains(expected),
            "found no function `{expected}` in the tables of sections 6-8 of {REFERENCE}: \
             has the reference changed? Update reference_functions in tests/editors.rs. \
             Found: {functions:?}"
        );
    }
    let missing = unhighlighted_functions(&reference, &json(TM_GRAMMAR));
    assert!(
        missing.is_empty(),
        "built-in functions of {REFERENCE} that {TM_GRAMMAR} does not highlight: {}. Add each \
         to the word list of its `builtin-functions` rule",
        missing.join(", ")
    );
}

#[test]
fn a_new_keyword_or_function_without_highlighting_is_reported() {
    let grammar = json(TM_GRAMMAR);
    let pest = read(PEST) + "\nkw_frobnicate = @{ \"frobnicate\" ~ !ident_char }\n";
    assert_eq!(
        unhighlighted_keywords(&pest, &grammar),
        ["`frobnicate` (rule kw_frobnicate)"]
    );
    let reference = read(REFERENCE).replace(
        "| `empty(z)` |",
        "| `frobnicate(z)`, `wibble(x in C)` | nothing |\n| `empty(z)` |",
    );
    assert_eq!(
        unhighlighted_functions(&reference, &grammar),
        ["`frobnicate`", "`wibble`"]
    );
}

#[test]
fn word_lists_are_read_from_whole_word_alternations_only() {
    let words = alternation_words(r"\b(if|else)\b(?=\s*\()|\b(?:and|or)\b|(draw|lose)\s|\(x|y)\b");
    assert_eq!(words, ["and", "else", "if", "or"].map(String::from).into());
    let rules = pest_rules("// a \"comment\" {\nkw_a = @{ \"a\" ~ !ident_char }\nCOMMENT = _{ \"//\" ~ ANY }\nb = { \"{\" ~ kw_a ~ \"}\" }\n");
    let names: Vec<&str> = rules.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["kw_a", "COMMENT", "b"]);
    assert_eq!(pest_strings(&rules[2].1), ["{", "}"]);
}

#[test]
fn the_grammar_is_well_formed() {
    let grammar = json(TM_GRAMMAR);
    assert_eq!(grammar["scopeName"], "source.rules");
    let repository = grammar["repository"]
        .as_object()
        .expect("a repository of rules");

    // Every `#name` include names a rule, and every rule is included somewhere.
    let mut includes = BTreeSet::new();
    fn collect_includes(value: &Value, out: &mut BTreeSet<String>) {
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    match (key.as_str(), v) {
                        ("include", Value::String(s)) => {
                            out.insert(s.clone());
                        }
                        _ => collect_includes(v, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| collect_includes(v, out)),
            _ => {}
        }
    }
    collect_includes(&grammar, &mut includes);
    for include in &includes {
        if let Some(name) = include.strip_prefix('#') {
            assert!(
                repository.contains_key(name),
                "`{include}` names no rule of the repository"
            );
        } else {
            assert_eq!(include, "$self", "unexpected include `{include}`");
        }
    }
    for name in repository.keys() {
        assert!(
            includes.contains(&format!("#{name}")),
            "the rule `{name}` is never included"
        );
    }

    // Parentheses and character classes are balanced in every regex.
    let mut all = Vec::new();
    regexes(&grammar, &mut all);
    for regex in &all {
        let chars: Vec<char> = regex.chars().collect();
        let (mut depth, mut in_class) = (0i32, false);
        for (i, &c) in chars.iter().enumerate() {
            if escaped(&chars, i) {
                continue;
            }
            match c {
                '[' if !in_class => in_class = true,
                ']' if in_class => in_class = false,
                '(' if !in_class => depth += 1,
                ')' if !in_class => depth -= 1,
                _ => {}
            }
            assert!(depth >= 0, "unbalanced `)` in the regex {regex:?}");
        }
        assert!(
            depth == 0 && !in_class,
            "unclosed group or class in the regex {regex:?}"
        );
    }
}

#[test]
fn the_extension_contributes_the_language_grammar_and_server_setting() {
    let package = json(PACKAGE);
    let grammar = json(TM_GRAMMAR);
    let contributes = &package["contributes"];

    let languages = contributes["languages"].as_array().expect("languages");
    let rules = languages
        .iter()
        .find(|l| l["id"] == "rules")
        .expect("a language `rules`");
    for extension in [".rules", ".scenarios"] {
        assert!(
            rules["extensions"]
                .as_array()
                .is_some_and(|e| e.iter().any(|x| x == extension)),
            "the language `rules` does not claim {extension} files"
        );
    }
    let configuration = rules["configuration"]
        .as_str()
        .expect("a language configuration");
    assert!(path("editors/vscode").join(configuration).is_file());

    let grammars = contributes["grammars"].as_array().expect("grammars");
    let entry = grammars
        .iter()
        .find(|g| g["language"] == "rules")
        .expect("a grammar for `rules`");
    assert_eq!(entry["scopeName"], grammar["scopeName"]);
    let grammar_path = entry["path"].as_str().expect("a grammar path");
    assert_eq!(path("editors/vscode").join(grammar_path), path(TM_GRAMMAR));

    let setting = &contributes["configuration"]["properties"]["rulebook.path"];
    assert_eq!(
        setting["default"], "rulebook",
        "rulebook.path defaults to the binary on PATH"
    );
    let main = package["main"].as_str().expect("a main script");
    assert!(
        path("editors/vscode").join(main).is_file(),
        "{main} is missing"
    );
    assert!(package["dependencies"]["vscode-languageclient"].is_string());

    let language_configuration = json(LANGUAGE_CONFIGURATION);
    assert_eq!(language_configuration["comments"]["lineComment"], "//");
    let brackets = language_configuration["brackets"].to_string();
    for pair in [r#"["{","}"]"#, r#"["[","]"]"#, r#"["(",")"]"#] {
        assert!(brackets.contains(pair), "brackets lack {pair}");
    }
}
