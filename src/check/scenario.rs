//! Lowering of scenario files against a checked game.

use super::{compile, Checker, Code, Diagnostics, NameUse, Symbols};
use crate::ir::scenario::{Scenario, Seen, Step};
use crate::ir::{Game, Type};
use crate::source::Source;
use crate::syntax::ast::{self, StepKind};
use miette::Severity;

/// Checks the scenarios of a scenario file (parsed from `source`) against a checked game and
/// its names, and lowers them. The game gets the scenario file as its second source (scenario
/// setups become procedures of it, their spans point into that file); problems are reported
/// against the scenario file. With any error, no scenario is returned.
pub fn lower(
    game: Game,
    symbols: Symbols,
    source: Source,
    file: &ast::ScenarioFile,
) -> (Game, Vec<Scenario>, Diagnostics) {
    let (game, scenarios, diagnostics, _) = lower_with_uses(game, symbols, source, file);
    (game, scenarios, diagnostics)
}

/// [`lower`], and every name the scenario file uses with its declaration (in the rules file,
/// or a local of the scenario file): for editors.
pub fn lower_with_uses(
    game: Game,
    symbols: Symbols,
    source: Source,
    file: &ast::ScenarioFile,
) -> (Game, Vec<Scenario>, Diagnostics, Vec<NameUse>) {
    let mut c = Checker::resume(game, symbols, source);
    let mut out = vec![];
    for s in &file.scenarios {
        let mut steps = vec![];
        for st in &s.steps {
            let step = match &st.kind {
                StepKind::Players(n) => Step::Players((*n).clamp(0, 255) as u8),
                StepKind::Seed(n) => Step::Seed(*n),
                StepKind::Variant(vs) => Step::Variant(
                    vs.iter()
                        .map(|v| v.name.as_str())
                        .collect::<Vec<_>>()
                        .join(","),
                ),
                StepKind::Set(name, value) => match c.scenario_set(name, value) {
                    Some(text) => Step::Set(name.name.clone(), text),
                    None => continue,
                },
                StepKind::Chance(m) => {
                    if m.name != "external" && m.name != "seeded" {
                        let p = c.error(
                            Code::ScenarioChance,
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
                    let id = c.game.procs.next_id();
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
                    let code = compile::extend(&mut c.game, |k| k.coll(&coll));
                    Step::ExpectWinners(code, c.end_locals())
                }
                StepKind::ExpectActor(e) => {
                    c.begin_locals();
                    let (x, t) = c.expr(e);
                    c.expect_type(t, Type::Player, e.span, "the actor");
                    let code = compile::extend(&mut c.game, |k| k.expr(&x));
                    Step::ExpectActor(code, c.end_locals())
                }
                StepKind::ExpectSees { seat, target, sees } => {
                    match c.expect_sees(seat, target, *sees) {
                        Some(step) => step,
                        None => continue,
                    }
                }
                StepKind::Expect(e) => {
                    c.begin_locals();
                    let (x, t) = c.expr(e);
                    c.expect_type(t, Type::Bool, e.span, "an expectation");
                    let code = compile::extend(&mut c.game, |k| k.expr(&x));
                    Step::Expect(code, c.end_locals())
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
    compile::compile_procs(&mut c.game);
    let uses = c.name_uses();
    // Only errors: what the scenarios leave unused is no warning of theirs.
    let mut d = c.diagnostics();
    let note = match d.omitted_errors + d.omitted_warnings {
        0 => None,
        _ => d.problems.pop(),
    };
    d.problems.retain(|p| p.severity == Severity::Error);
    d.omitted_warnings = 0;
    if d.omitted_errors > 0 {
        d.problems.extend(note);
    }
    (c.game, out, d, uses)
}

impl Checker {
    /// `set NAME = value` in a scenario: a constant, and a constant value of its type, as
    /// text for [`crate::Config::set`].
    fn scenario_set(&mut self, name: &ast::Ident, value: &ast::Expr) -> Option<String> {
        let Some((super::Global::Const(c), _)) = self.globals.get(&name.name).copied() else {
            let p = self.error(
                Code::UnknownConst,
                name.span,
                format!("`{}` is not a constant", name.name),
                "not a `const`",
            );
            p.help = Some("`set` gives a value to a `const` of the rules for this match".into());
            return None;
        };
        let v = self.const_eval(value, &[])?;
        let want = self.value_type(self.game.consts[c].value);
        let got = self.value_type(v);
        self.expect_type(got, want, value.span, "the value of a constant");
        Some(self.game.show_static(v))
    }

    /// `expect p sees x`: a seat, and a component's field, a zone or a variable.
    fn expect_sees(&mut self, seat: &ast::Expr, target: &ast::Expr, sees: bool) -> Option<Step> {
        self.begin_locals();
        let (p, t) = self.expr(seat);
        self.expect_type(t, Type::Player, seat.span, "the seat that sees");
        let (x, t) = self.expr(target);
        let seen = match (x, t) {
            (crate::ir::Expr::Field(comp, f), _) => Some(compile::extend(&mut self.game, |k| {
                Seen::Field(k.expr(&comp), f)
            })),
            (crate::ir::Expr::Var(v, ix), _) => Some(compile::extend(&mut self.game, |k| {
                Seen::Var(v, k.exprs(&ix))
            })),
            (z, Type::Zone(_)) => Some(compile::extend(&mut self.game, |k| Seen::Zone(k.expr(&z)))),
            (crate::ir::Expr::Lit(crate::ir::Value::None), Type::Any) => None,
            _ => {
                let e = self.error(
                    Code::ScenarioSees,
                    target.span,
                    "a seat sees a component's field, a zone or a variable",
                    "none of these",
                );
                e.help = Some(
                    "write `expect seat(1) sees c.value`, `expect seat(1) not sees hand[seat(0)]` \
                     or `expect seat(1) sees bid[seat(0)]`"
                        .into(),
                );
                None
            }
        };
        let seat = compile::extend(&mut self.game, |k| k.expr(&p));
        let locals = self.end_locals();
        Some(Step::ExpectSees {
            seat,
            target: seen?,
            sees,
            locals,
        })
    }
}
