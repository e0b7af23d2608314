//! Scenario files run against their rules: the caller reads both texts (the scenario file's
//! `rules "path"` line, from [`rules_path`], names the rules file relative to the scenario
//! file's folder) and [`run_text`] checks and runs them.
//!
//! ```
//! let rules = r#"
//!     game "Counter"
//!     players 1
//!     var n: int
//!     action add() { n += 1  if n == 2 { end } }
//!     flow { repeat { turn seat(0) { choose { add } } } }
//! "#;
//! let scenarios = r#"
//!     rules "counter.rules"
//!     scenario "two adds end the game" {
//!         apply "add"
//!         expect not finished
//!         apply "add"
//!         expect finished
//!     }
//! "#;
//! let path = rulebook::run::scenarios::rules_path("counter.scenarios", scenarios).unwrap();
//! assert_eq!(path, "counter.rules");
//! let results =
//!     rulebook::run::scenarios::run_text("counter.scenarios", scenarios, &path, rules).unwrap();
//! assert_eq!(results.len(), 1);
//! assert!(results[0].0.failure.is_none());
//! ```

use crate::check::{self, Diagnostics};
use crate::engine::scenario::ScenarioResult;
use crate::source::Source;
use crate::syntax::{self, SyntaxError};
use miette::Diagnostic;
use std::fmt;

/// Why a scenario file could not be run.
#[derive(Debug)]
pub enum ScenarioError {
    /// The scenario file does not parse.
    Syntax(Box<SyntaxError>),
    /// The rules file has errors, or the scenarios do not check against it: every problem.
    Diagnostics(Diagnostics),
}

impl ScenarioError {
    /// Every problem, each rendered by `render` (e.g. with colours for a terminal).
    pub fn render(&self, render: &dyn Fn(&dyn Diagnostic) -> String) -> String {
        match self {
            ScenarioError::Syntax(e) => render(e.as_ref()),
            ScenarioError::Diagnostics(d) => d.problems.iter().map(|p| render(p)).collect(),
        }
    }
}

/// Every problem, one line each: what it is and its code.
impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScenarioError::Syntax(e) => write!(f, "{e}"),
            ScenarioError::Diagnostics(d) => {
                for p in &d.problems {
                    writeln!(f, "{}: {}", p.code, p.message)?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Where a scenario's result points: the failing step (in the scenario file), the rule that
/// stopped the game from starting (in the rules file), or the scenario when it passed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The file's name, as given.
    pub file: String,
    /// The line, from 1.
    pub line: usize,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// The rules file a scenario file names (`rules "path"`), relative to its folder.
pub fn rules_path(scen_name: &str, scen_text: &str) -> Result<String, ScenarioError> {
    syntax::parse_scenarios(scen_name, scen_text)
        .map(|sf| sf.rules)
        .map_err(ScenarioError::Syntax)
}

/// Checks the rules and the scenarios against them, and runs every scenario. Each result
/// comes with the line (in the scenario file) of the failing step, or of the scenario when it
/// passed.
pub fn run_text(
    scen_name: &str,
    scen_text: &str,
    rules_name: &str,
    rules_text: &str,
) -> Result<Vec<(ScenarioResult, Place)>, ScenarioError> {
    run_text_with(scen_name, scen_text, rules_name, rules_text, false)
}

/// [`run_text`], in check mode when `check_caches` (every remembered answer computed again
/// and compared: [`crate::ir::Game::set_check_caches`]).
pub fn run_text_with(
    scen_name: &str,
    scen_text: &str,
    rules_name: &str,
    rules_text: &str,
    check_caches: bool,
) -> Result<Vec<(ScenarioResult, Place)>, ScenarioError> {
    let sf = syntax::parse_scenarios(scen_name, scen_text).map_err(ScenarioError::Syntax)?;
    let loaded = check::load(rules_name, rules_text);
    let (Some(g), Some(symbols)) = (loaded.game, loaded.symbols) else {
        return Err(ScenarioError::Diagnostics(loaded.diagnostics));
    };
    let source = Source {
        name: scen_name.to_string(),
        text: scen_text.to_string(),
    };
    let (mut g, scenarios, diags) = check::scenario::lower(g, symbols, source, &sf);
    g.set_check_caches(check_caches);
    if diags.has_errors() {
        return Err(ScenarioError::Diagnostics(diags));
    }
    Ok(scenarios
        .iter()
        .map(|s| {
            let r = g.run_scenario(s);
            // A failure may point into the rules file (a game that cannot start) or into the
            // scenario file (a step).
            let at = r.failure.as_ref().map_or(s.span, |(sp, _)| *sp);
            let src = g.source(at);
            let place = Place {
                file: src.name.clone(),
                line: src.line_col(at.start).0,
            };
            (r, place)
        })
        .collect())
}
