//! Running checked scenarios: set up a position, apply actions, check what must hold.

use super::vm::with_machine;
use super::{Action, Actor, Blame, ChanceMode, Config, RunError, State};
use crate::ir::scenario::{Scenario, Seen, Step};
use crate::ir::{Game, ProcId, Value, Visibility};
use crate::source::Span;

/// The result of one scenario.
#[derive(Clone, Debug)]
pub struct ScenarioResult {
    /// The scenario's name, as written after `scenario`.
    pub name: String,
    /// `None` when it passed; otherwise the failing step's span and what went wrong.
    pub failure: Option<(Span, String)>,
}

impl Game {
    /// Runs a procedure now, on top of the paused game, then waits at the same decision again.
    pub fn exec_proc(&self, st: &mut State, proc: ProcId) -> Result<(), RunError> {
        if st.is_over() {
            return Err(RunError::Finished);
        }
        // While a simultaneous block waits, its parts start again afterwards (the game is at
        // the block's start: dropping the parts is all it takes).
        st.block = None;
        let me = match self.actor(st) {
            Actor::Player(p) => p,
            _ => st.current.unwrap_or(0),
        };
        self.push_frame(st, proc, me, &[])?;
        st.wait = super::Wait::Running;
        // A scenario may change what `setup` wrote: like `setup`, it runs with no fingerprint
        // of those variables (0), so that nothing remembered per fingerprint is served while it
        // runs nor to the options listed when the game waits again (they are listed for the
        // values it leaves, not those of the old fingerprint); the fingerprint is taken after.
        st.frozen = 0;
        let r = self.run(st);
        if st.phase == super::Phase::Flow {
            st.freeze(self);
        }
        r
    }

    /// Evaluates compiled code on a state with `locals` fresh local slots, `me` being the
    /// acting player (else the current player, else seat 0).
    pub fn eval_on(
        &self,
        st: &State,
        e: crate::ir::vm::Code,
        locals: u16,
    ) -> Result<Value, RunError> {
        let mut l = vec![Value::None; locals.max(1) as usize];
        let me = match self.actor(st) {
            Actor::Player(p) => p,
            _ => st.current.unwrap_or(0),
        };
        with_machine(st.fuel, |m| m.eval(self, st, e, &mut l, me).blame(None))
    }

    /// Runs one scenario: configuration steps apply until the first other step starts the
    /// match, then each step runs in order; the first failing step ends it.
    pub fn run_scenario(&self, sc: &Scenario) -> ScenarioResult {
        let fail = |span: Span, msg: String| ScenarioResult {
            name: sc.name.clone(),
            failure: Some((span, msg)),
        };
        let mut cfg = Config {
            players: self.min_players,
            variant: None,
            seed: 0,
            chance: ChanceMode::Seeded,
            fuel: None,
            set: Vec::new(),
        };
        let mut st: Option<State> = None;
        for (step, span) in &sc.steps {
            let span = *span;
            match step {
                Step::Players(n) => cfg.players = *n,
                Step::Seed(s) => cfg.seed = *s,
                Step::Variant(v) => cfg.variant = Some(v.clone()),
                Step::Set(name, value) => cfg.set.push((name.clone(), value.clone())),
                Step::ExternalChance => cfg.chance = ChanceMode::External,
                _ => {
                    if st.is_none() {
                        match self.start(&cfg) {
                            Ok(s) => st = Some(s),
                            Err(e) => {
                                return fail(
                                    e.span().unwrap_or(span),
                                    format!("the game could not start: {e}"),
                                )
                            }
                        }
                    }
                    let s = st.as_mut().expect("started");
                    if let Err(msg) = self.scenario_step(s, step) {
                        return fail(span, msg);
                    }
                }
            }
        }
        ScenarioResult {
            name: sc.name.clone(),
            failure: None,
        }
    }

    /// Runs one step of a scenario on `st`: a setup, an action applied, or an expectation
    /// checked; `Err` says what went wrong.
    fn scenario_step(&self, st: &mut State, step: &Step) -> Result<(), String> {
        match step {
            Step::Setup(p) => self
                .exec_proc(st, *p)
                .map_err(|e| format!("setup failed: {e}")),
            Step::Apply(t) => {
                self.pass_window(st, t)?;
                let a = self.parse_action(st, t).map_err(|e| e.to_string())?;
                self.apply(st, &a)
                    .map_err(|e| format!("applying `{t}` failed: {e}"))
            }
            Step::ExpectLegal(t) => {
                self.pass_window(st, t)?;
                let l = self.legal_texts(st)?;
                if l.iter().any(|x| norm(x) == norm(t)) {
                    Ok(())
                } else {
                    Err(format!(
                        "expected `{t}` to be legal; legal: {}",
                        l.join(", ")
                    ))
                }
            }
            Step::ExpectNotLegal(t) => {
                let mut copy = st.clone();
                self.pass_window(&mut copy, t)?;
                let l = self.legal_texts(&copy)?;
                if l.iter().any(|x| norm(x) == norm(t)) {
                    Err(format!("expected `{t}` not to be legal, but it is"))
                } else {
                    Ok(())
                }
            }
            Step::ExpectIllegal(t) => self.expect_illegal(st, t),
            Step::ExpectNotFinished => {
                if st.is_over() {
                    Err("expected the game to go on, but it is over".into())
                } else {
                    Ok(())
                }
            }
            Step::ExpectFinished => {
                if st.is_over() {
                    Ok(())
                } else {
                    Err(format!(
                        "expected the game to be over; {} is to act",
                        self.view(st, None).actor
                    ))
                }
            }
            Step::ExpectWinners(coll, n) => self.expect_winners(st, *coll, *n),
            Step::ExpectActor(e, n) => self.expect_actor(st, *e, *n),
            Step::Expect(e, n) => match self.eval_on(st, *e, *n) {
                Ok(Value::Bool(true)) => Ok(()),
                Ok(_) => Err("expectation does not hold".into()),
                Err(e) => Err(format!("expectation could not be evaluated: {e}")),
            },
            Step::ExpectSees {
                seat,
                target,
                sees,
                locals,
            } => self.expect_sees(st, *seat, target, *sees, *locals),
            Step::Players(_)
            | Step::Seed(_)
            | Step::Variant(_)
            | Step::Set(..)
            | Step::ExternalChance => Ok(()),
        }
    }

    /// The texts of the actions legal in `st`.
    fn legal_texts(&self, st: &State) -> Result<Vec<String>, String> {
        let mut buf = Vec::new();
        self.legal(st, &mut buf).map_err(|e| e.to_string())?;
        Ok(buf.iter().map(|a| self.action_text(st, a)).collect())
    }

    /// While a window waits and `t` is not one of its options, everyone asked passes: an
    /// `apply` or `expect legal` of a turn's option needs no `pass` steps. (`expect not
    /// legal` passes them on a copy: it is exactly the negation of `expect legal`. What a
    /// window leaves out is tested with `expect illegal`.)
    fn pass_window(&self, st: &mut State, t: &str) -> Result<(), String> {
        while self.window_waits(st) && !self.legal_texts(st)?.iter().any(|x| norm(x) == norm(t)) {
            let pass = self.parse_action(st, "pass").map_err(|e| e.to_string())?;
            self.apply(st, &pass)
                .map_err(|e| format!("passing a window failed: {e}"))?;
        }
        Ok(())
    }

    /// `expect illegal "t"`: the action is refused (it does not parse, or applying it on a
    /// copy fails), and the game is left as it was.
    fn expect_illegal(&self, st: &State, t: &str) -> Result<(), String> {
        let before = format!("{:?}", self.view(st, None));
        let refused = match self.parse_action(st, t) {
            Err(_) => true,
            Ok(a) => {
                let mut copy = st.clone();
                self.apply(&mut copy, &a).is_err()
            }
        };
        if !refused {
            return Err(format!("expected `{t}` to be refused, but it was applied"));
        }
        if format!("{:?}", self.view(st, None)) != before {
            return Err("a refused action changed the game".into());
        }
        Ok(())
    }

    /// `expect winners C`: the game is over and its winners are exactly the players of the
    /// collection `coll` (compiled with `n` locals), in any order.
    fn expect_winners(&self, st: &State, coll: crate::ir::vm::Code, n: u16) -> Result<(), String> {
        let Some(o) = st.outcome() else {
            return Err("expected winners, but the game is not over".into());
        };
        let mut l = vec![Value::None; n.max(1) as usize];
        let mut want = Vec::new();
        with_machine(st.fuel, |m| -> Result<(), RunError> {
            m.start(self, st, coll, &mut l, 0).blame(None)?;
            while let Some(v) = m.next(self, st, None).blame(None)? {
                if let Value::Player(p) = v {
                    want.push(p);
                }
            }
            Ok(())
        })
        .map_err(|e| e.to_string())?;
        want.sort_unstable();
        let mut got = o.winners.clone();
        got.sort_unstable();
        if want == got {
            Ok(())
        } else {
            Err(format!(
                "expected winners {:?}, got {:?} (scores {:?})",
                seats(&want),
                seats(&got),
                o.scores
            ))
        }
    }

    /// `expect actor p`: the player `e` (compiled with `n` locals) is the one to act.
    fn expect_actor(&self, st: &State, e: crate::ir::vm::Code, n: u16) -> Result<(), String> {
        let want = self.eval_on(st, e, n).map_err(|e| e.to_string())?;
        let got = match self.actor(st) {
            Actor::Player(p) => Value::Player(p),
            _ => Value::None,
        };
        if want == got {
            Ok(())
        } else {
            Err(format!(
                "expected {} to act, but {} is to act",
                super::show_value(self, st, want),
                self.view(st, None).actor
            ))
        }
    }

    /// `expect p sees x` (`sees` true) or `expect p not sees x`: what the seat `seat` (none:
    /// a spectator) sees of `target`.
    fn expect_sees(
        &self,
        st: &State,
        seat: crate::ir::vm::Code,
        target: &Seen,
        sees: bool,
        locals: u16,
    ) -> Result<(), String> {
        let who = match self.eval_on(st, seat, locals).map_err(|e| e.to_string())? {
            Value::Player(p) => Some(p),
            _ => None,
        };
        let seen = self
            .seen_by(st, who, target, locals)
            .map_err(|e| format!("what is seen could not be evaluated: {e}"))?;
        let name = who.map_or("a spectator".to_string(), crate::ir::player_name);
        match (seen, sees) {
            (true, true) | (false, false) => Ok(()),
            (false, true) => Err(format!("{name} does not see it")),
            (true, false) => Err(format!("{name} sees it")),
        }
    }
}

/// An action's text with its words separated by single spaces, for comparing texts.
fn norm(t: &str) -> String {
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl Game {
    /// Whether `seat`'s view shows a field's value (the component is shown and the field
    /// visible), a zone's whole contents or a variable's value.
    fn seen_by(
        &self,
        st: &State,
        seat: Option<u8>,
        target: &Seen,
        locals: u16,
    ) -> Result<bool, RunError> {
        match target {
            Seen::Field(comp, f) => {
                let Value::Comp(c) = self.eval_on(st, *comp, locals)? else {
                    return Err(RunError::rule("not a component", None));
                };
                let inst = st.zones.loc(c);
                let shown = self.zone_open_to(st, inst, seat)
                    || (self.zones[self.instances[inst].zone].visibility == Visibility::Top
                        && st.zones.top(inst) == Some(c));
                Ok(shown && super::field_visible(self, st, c, *f, seat))
            }
            Seen::Zone(z) => match self.eval_on(st, *z, locals)? {
                Value::Zone(inst) => Ok(self.zone_open_to(st, inst, seat)),
                _ => Err(RunError::rule("not a zone", None)),
            },
            Seen::Var(v, index) => {
                let var = &self.vars[*v];
                let mut l = vec![Value::None; locals.max(1) as usize];
                let slot = with_machine(st.fuel, |m| {
                    m.run_code(self, st, *index, &mut l, 0).blame(None)?;
                    m.target_slot(self, st, *v).blame(None)
                })?;
                let _ = var;
                Ok(super::var_visible(self, st, *v, slot, seat))
            }
        }
    }
}

fn seats(v: &[u8]) -> Vec<String> {
    v.iter().map(|p| format!("p{}", p + 1)).collect()
}

/// A convenience for tests: apply a sequence of canonical texts.
pub fn apply_texts(g: &Game, st: &mut State, texts: &[&str]) -> Result<(), RunError> {
    for t in texts {
        let a: Action = g.parse_action(st, t)?;
        g.apply(st, &a)?;
    }
    Ok(())
}
