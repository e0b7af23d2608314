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

/// Every problem, rendered without colours.
impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(&|d| check::render_plain(d)))
    }
}

impl std::error::Error for ScenarioError {}

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
) -> Result<Vec<(ScenarioResult, usize)>, ScenarioError> {
    let sf = syntax::parse_scenarios(scen_name, scen_text).map_err(ScenarioError::Syntax)?;
    let (loaded, scenarios, diags) =
        check::scenario::load_with_scenarios(rules_name, rules_text, scen_name, scen_text, &sf);
    let Some(g) = loaded.game else {
        return Err(ScenarioError::Diagnostics(loaded.diagnostics));
    };
    if diags.has_errors() {
        return Err(ScenarioError::Diagnostics(diags));
    }
    let line_of = |off: usize| scen_text[..off.min(scen_text.len())].matches('\n').count() + 1;
    Ok(scenarios
        .iter()
        .map(|s| {
            let r = g.run_scenario(s);
            let line = r
                .failure
                .as_ref()
                .map_or(line_of(s.span.start), |(sp, _)| line_of(sp.start));
            (r, line)
        })
        .collect())
}
