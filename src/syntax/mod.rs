//! Syntax: rules text to an [`ast::File`] with spans. pest types never leave this module.

pub mod ast;
mod error;
pub mod limits;
mod lower;
mod scan;

use error::{fault_error, syntax_error};
pub use error::{SyntaxError, SyntaxKind};
use lower::{decl, span, step, string};

use crate::source::FileId;
use ast::*;
use pest::Parser as _;

/// The generated parser, in a private module so that its `Rule` enum stays out of the public
/// API.
mod grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "../grammar/rules.pest"]
    pub(super) struct RulesParser;
}
use grammar::{Rule, RulesParser};

/// What stops a file before its tree is built: a number too large, a file too large, a tree
/// too deep (the kind says which), with where and why.
pub(crate) struct Fault {
    kind: SyntaxKind,
    start: usize,
    end: usize,
    message: String,
    label: String,
    help: Option<String>,
}

/// Checks what must hold before a text is parsed: its size ([`limits::MAX_SOURCE_BYTES`])
/// and how deeply it nests ([`limits::MAX_NESTING`]).
fn before_parsing(name: &str, text: &str) -> Result<(), Box<SyntaxError>> {
    use limits::MAX_SOURCE_BYTES;
    if text.len() > MAX_SOURCE_BYTES {
        let mut at = MAX_SOURCE_BYTES;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let fault = Fault {
            kind: SyntaxKind::Limit,
            start: at,
            end: at,
            message: format!(
                "the file is larger than {} MiB ({} bytes)",
                MAX_SOURCE_BYTES >> 20,
                text.len()
            ),
            label: format!("the file goes on past {MAX_SOURCE_BYTES} bytes"),
            help: Some(
                "a rules or scenario file holds at most 1 MiB (see \"Limits\" in the language \
                 reference): split the scenarios into several files"
                    .into(),
            ),
        };
        return Err(fault_error(name, text, fault));
    }
    scan::nesting(text).map_err(|f| fault_error(name, text, f))
}

/// Parses a rules file (`name` is used in diagnostics only); the first syntax error stops it.
/// So does a file larger than [`limits::MAX_SOURCE_BYTES`], nested deeper than
/// [`limits::MAX_NESTING`] or [`limits::MAX_DEPTH`], or with a number too large.
pub fn parse_file(name: &str, text: &str) -> Result<File, Box<SyntaxError>> {
    before_parsing(name, text)?;
    lower::begin(FileId::RULES);
    let mut pairs =
        RulesParser::parse(Rule::file, text).map_err(|e| syntax_error(name, text, e))?;
    let file = pairs.next().expect("grammar: file");
    let mut decls = Vec::new();
    for p in file.into_inner() {
        if p.as_rule() == Rule::EOI {
            break;
        }
        decls.push(decl(p));
    }
    match lower::fault() {
        Some(f) => Err(fault_error(name, text, f)),
        None => Ok(File { decls }),
    }
}

/// Parses a scenario file (`name` is used in diagnostics only); the first syntax error stops
/// it, as do the limits [`parse_file`] checks. Its spans point into [`FileId::SCENARIO`].
pub fn parse_scenarios(name: &str, text: &str) -> Result<ScenarioFile, Box<SyntaxError>> {
    before_parsing(name, text)?;
    lower::begin(FileId::SCENARIO);
    let mut pairs =
        RulesParser::parse(Rule::scenario_file, text).map_err(|e| syntax_error(name, text, e))?;
    let file = pairs.next().expect("grammar: scenario_file");
    let mut inner = file.into_inner();
    inner.next(); // kw_rules
    let rules_pair = inner.next().expect("grammar: rules path");
    let rules_span = span(&rules_pair);
    let rules = string(rules_pair);
    let mut scenarios = Vec::new();
    for p in inner {
        if p.as_rule() != Rule::scenario {
            continue;
        }
        let sp = span(&p);
        let mut it = p.into_inner();
        it.next(); // kw_scenario
        let name = string(it.next().expect("grammar: scenario name"));
        let steps = it.map(step).collect();
        scenarios.push(Scenario {
            name,
            span: sp,
            steps,
        });
    }
    if let Some(f) = lower::fault() {
        return Err(fault_error(name, text, f));
    }
    Ok(ScenarioFile {
        rules,
        rules_span,
        scenarios,
    })
}
