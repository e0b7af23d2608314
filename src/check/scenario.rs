//! Lowering of scenario files against a checked game.

use super::{Checker, Diagnostics, Loaded};
use crate::ir::{Coll, Expr, Type};
use crate::syntax::ast::{self, Span, StepKind};
use miette::{NamedSource, Severity};
use std::sync::Arc;

/// A scenario ready to run.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The name written after `scenario`.
    pub name: String,
    /// The whole scenario in the scenario file.
    pub span: Span,
    /// The steps in order, each with its span in the scenario file.
    pub steps: Vec<(Step, Span)>,
}

/// One step of a scenario. The configuration steps (`players`, `seed`, `variant`, `chance`)
/// apply until the first other step starts the match.
#[derive(Clone, Debug)]
pub enum Step {
    /// `players N`: the number of seats (the game's minimum when not given).
    Players(u8),
    /// `seed N`: the seed of the match's random generator (0 when not given).
    Seed(u64),
    /// `variant name`: the variant to play.
    Variant(String),
    /// `chance external`: chance events wait for `apply "chance ..."` (`chance seeded`, the
    /// default, adds no step).
    ExternalChance,
    /// A procedure (appended to the game) run on the current position.
    Setup(u32),
    /// `apply "text"`: applies the legal action with this canonical text; failing if illegal.
    Apply(String),
    /// `expect legal "text"`: the action with this canonical text is legal now.
    ExpectLegal(String),
    /// `expect not legal "text"`: the action with this canonical text is not legal now.
    ExpectNotLegal(String),
    /// `expect illegal "text"`: applying this action is refused and changes nothing.
    ExpectIllegal(String),
    /// `expect finished`: the game is over.
    ExpectFinished,
    /// `expect not finished`: the game is not over.
    ExpectNotFinished,
    /// `expect winners C`: the winners are exactly the players of collection `C`; with the
    /// number of local slots it needs.
    ExpectWinners(Coll, u16),
    /// `expect actor p`: player `p` must act now; with the number of local slots it needs.
    ExpectActor(Expr, u16),
    /// `expect cond`: a boolean that must hold now; with the number of local slots it needs.
    Expect(Expr, u16),
}

/// Checks a rules file and lowers the scenarios of a scenario file against it.
/// Problems in the scenarios are reported against the scenario file.
pub fn load_with_scenarios(
    rules_name: &str,
    rules_text: &str,
    scen_name: &str,
    scen_text: &str,
    file: &ast::ScenarioFile,
) -> (Loaded, Vec<Scenario>, Diagnostics) {
    let loaded = super::load(rules_name, rules_text);
    if loaded.game.is_none() {
        return (loaded, vec![], Diagnostics::default());
    }
    // Re-run the checker to keep its symbol table, then lower the scenarios with it.
    let parsed = crate::syntax::parse_file(rules_name, rules_text).expect("parsed once already");
    let src = Arc::new(NamedSource::new(rules_name, rules_text.to_string()));
    let mut c = Checker::new(rules_name, rules_text, src);
    c.run(&parsed);
    c.problems.clear();
    c.src = Arc::new(NamedSource::new(scen_name, scen_text.to_string()));
    let mut out = vec![];
    for s in &file.scenarios {
        let mut steps = vec![];
        for st in &s.steps {
            let step = match &st.kind {
                StepKind::Players(n) => Step::Players((*n).clamp(0, 255) as u8),
                StepKind::Seed(n) => Step::Seed(*n),
                StepKind::Variant(v) => Step::Variant(v.name.clone()),
                StepKind::Chance(m) => {
                    if m.name != "external" && m.name != "seeded" {
                        let p = c.error(
                            "scenario::chance",
                            m.span,
                            format!("unknown chance mode `{}`", m.name),
                            "expected `external` or `seeded`",
                        );
                        p.help = Some("`chance external` makes every roll and shuffle wait for `apply \"chance ...\"`".into());
                    }
                    if m.name == "external" {
                        Step::ExternalChance
                    } else {
                        continue;
                    }
                }
                StepKind::Setup(b) => {
                    c.begin_locals();
                    let mut code = vec![];
                    c.block(b, &mut code, &mut vec![]);
                    let locals = c.end_locals();
                    let id = c.game.procs.len() as u32;
                    c.game.procs.push(crate::ir::Proc {
                        name: format!("scenario `{}`", s.name),
                        code,
                        locals,
                    });
                    Step::Setup(id)
                }
                StepKind::Apply(t) => Step::Apply(t.clone()),
                StepKind::ExpectLegal(t) => Step::ExpectLegal(t.clone()),
                StepKind::ExpectNotLegal(t) => Step::ExpectNotLegal(t.clone()),
                StepKind::ExpectIllegal(t) => Step::ExpectIllegal(t.clone()),
                StepKind::ExpectFinished => Step::ExpectFinished,
                StepKind::ExpectNotFinished => Step::ExpectNotFinished,
                StepKind::ExpectWinners(e) => {
                    c.begin_locals();
                    let (coll, _) = c.coll(e);
                    Step::ExpectWinners(coll, c.end_locals())
                }
                StepKind::ExpectActor(e) => {
                    c.begin_locals();
                    let (x, t) = c.expr(e);
                    c.expect_type(t, Type::Player, e.span, "the actor");
                    Step::ExpectActor(x, c.end_locals())
                }
                StepKind::Expect(e) => {
                    c.begin_locals();
                    let (x, t) = c.expr(e);
                    c.expect_type(t, Type::Bool, e.span, "an expectation");
                    Step::Expect(x, c.end_locals())
                }
            };
            steps.push((step, st.span));
        }
        out.push(Scenario {
            name: s.name.clone(),
            span: s.span,
            steps,
        });
    }
    let problems: Vec<_> = c
        .problems
        .drain(..)
        .filter(|p| p.severity == Severity::Error)
        .collect();
    let game = c.game;
    (
        Loaded {
            game: Some(game),
            diagnostics: loaded.diagnostics,
        },
        out,
        Diagnostics { problems },
    )
}
