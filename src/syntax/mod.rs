//! Syntax: rules text to an [`ast::File`] with spans. pest types never leave this module.

pub mod ast;
mod error;
mod lower;

use error::syntax_error;
pub use error::SyntaxError;
use lower::{decl, span, step, string, FILE};

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

/// Parses a rules file (`name` is used in diagnostics only); the first syntax error stops it.
pub fn parse_file(name: &str, text: &str) -> Result<File, Box<SyntaxError>> {
    FILE.with(|f| f.set(FileId::RULES));
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
    Ok(File { decls })
}

/// Parses a scenario file (`name` is used in diagnostics only); the first syntax error stops
/// it. Its spans point into [`FileId::SCENARIO`].
pub fn parse_scenarios(name: &str, text: &str) -> Result<ScenarioFile, Box<SyntaxError>> {
    FILE.with(|f| f.set(FileId::SCENARIO));
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
    Ok(ScenarioFile {
        rules,
        rules_span,
        scenarios,
    })
}
