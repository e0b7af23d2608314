//! Why an action is, or is not, legal now.
use super::vm::with_machine;
use super::*;
use crate::ir::*;

/// Why an action is or is not legal now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhyNot {
    /// Whether the action is legal now.
    pub legal: bool,
    /// The explanation, in words (`it is legal now` when it is).
    pub reason: String,
    /// The guard, collection or choice in the rules file that decides it.
    pub span: Option<Span>,
}

impl Game {
    /// Explains whether the action with this canonical text is legal now, naming the choice,
    /// parameter collection or guard that rules it out, with its span in the rules file.
    ///
    /// ```
    /// use rulebook::Config;
    /// let text = std::fs::read_to_string("rules/classic/tic_tac_toe.rules").unwrap();
    /// let game = rulebook::load("tic_tac_toe.rules", &text).game.expect("valid rules");
    /// let mut st = game.start(&Config { players: 2, ..Default::default() }).unwrap();
    /// let a = game.parse_action(&st, "place cell=b2").unwrap();
    /// game.apply(&mut st, &a).unwrap();
    ///
    /// // b2 is marked now: the guard of `place` rules it out, and the span points at it.
    /// let why = game.why_not(&st, "place cell=b2").unwrap();
    /// assert!(!why.legal);
    /// assert_eq!(why.reason, "its condition does not hold now");
    /// let span = why.span.unwrap();
    /// assert_eq!(game.source(span).snippet(span), "mark[cell] == none");
    ///
    /// // A value the parameter cannot take is blamed on the parameter's collection.
    /// let why = game.why_not(&st, "place cell=z9").unwrap();
    /// assert_eq!(why.reason, "`cell=z9` is not one of the values `cell` can take now");
    /// assert!(game.why_not(&st, "place cell=a1").unwrap().legal);
    /// ```
    pub fn why_not(&self, st: &State, text: &str) -> Result<WhyNot, RunError> {
        self.why_not_for(st, None, text)
    }

    /// [`Game::why_not`] asked by one seat (`None`: whoever must act). In a `choose each`
    /// every seat still to choose is asked about its own options; otherwise a seat that is not
    /// to act is told so. Nothing is evaluated with bindings left from an earlier decision.
    pub fn why_not_for(
        &self,
        st: &State,
        seat: Option<u8>,
        text: &str,
    ) -> Result<WhyNot, RunError> {
        let main = st
            .block
            .as_deref()
            .filter(|b| matches!(b.mode, super::simul::Mode::Main));
        if let (Some(b), Wait::Decision { actor, .. }) = (main, st.wait) {
            return self.why_not_simul(st, b, seat.unwrap_or(actor), text);
        }
        let (choice, actor) = match self.asked_actor(st, seat) {
            Ok(asked) => asked,
            Err(w) => return Ok(w),
        };
        let ch = &self.choices[choice];
        let parsed = ActionText::parse(text);
        let label = parsed.label.map(str::to_string);
        let pairs = parsed.args;
        let arm = match self.asked_arm(ch, label.as_deref(), &pairs, text) {
            Ok(arm) => arm,
            Err(w) => return Ok(w),
        };
        let Some(frame) = st.frames.last() else {
            return Ok(illegal("nothing waits for a decision".into(), None));
        };
        let ai = ch
            .arms
            .iter()
            .position(|a| std::ptr::eq(a, arm))
            .expect("the arm is one of the choice's");
        // Bindings from an earlier decision are never read: the frame's own locals only, and
        // the seat asking bound in a simultaneous choice.
        let mut locals = [Value::None; MAX_LOCALS];
        let (opts, binds, guard_span, me) = match arm {
            Arm::Action(a) => (
                &self.program.actions[*a],
                &self.actions[*a].params,
                self.actions[*a].guard_span,
                actor,
            ),
            Arm::Inline {
                binds, guard_span, ..
            } => {
                locals = super::options::frame_locals(self, st, frame);
                let me = match self.program.choices[choice].each {
                    Some((_, slot)) => {
                        locals[slot as usize] = Value::Player(actor);
                        actor
                    }
                    None => frame.me,
                };
                (
                    self.program.choices[choice].arms[ai]
                        .as_ref()
                        .expect("an inline option is compiled"),
                    binds,
                    *guard_span,
                    me,
                )
            }
        };
        let asked = Asked {
            opts,
            binds,
            guard_span,
            pairs: &pairs,
            me,
        };
        if let Some(w) = self.why_not_values(st, &asked, &mut locals)? {
            return Ok(w);
        }
        if let Arm::Action(ai) = arm {
            let act = &self.actions[*ai];
            let want = ActionText::parse(text).canonical();
            if act.sequence && !st.cache.iter().any(|a| self.action_text(st, a) == want) {
                return Ok(illegal(
                    format!(
                        "`{}` is not one of the moves of `{}` now",
                        crate::source::quote(&want, 60),
                        act.name
                    ),
                    act.guard_span.or(Some(act.span)),
                ));
            }
        }
        Ok(WhyNot {
            legal: true,
            reason: "it is legal now".into(),
            span: None,
        })
    }

    /// [`Game::why_not_for`] in a simultaneous block: each seat `p` is answered from its own
    /// part only (a part is itself marked as inside the block, and is answered as a plain
    /// choice).
    fn why_not_simul(
        &self,
        st: &State,
        b: &super::simul::Block,
        p: u8,
        text: &str,
    ) -> Result<WhyNot, RunError> {
        match b.runs.get(p as usize).and_then(Option::as_ref) {
            Some(run) if self.simul_pending(st).contains(&p) => {
                self.why_not_for(run, Some(p), text)
            }
            Some(_) => Ok(illegal(
                format!(
                    "{} has made every choice of the simultaneous block; others are still \
                     choosing",
                    player_name(p)
                ),
                None,
            )),
            None => Ok(illegal(
                format!("{} takes no part in the simultaneous block", player_name(p)),
                None,
            )),
        }
    }

    /// The choice waiting now and the seat it is asked for (`seat`, or whoever must act), or
    /// why no seat, or not that one, can choose now.
    fn asked_actor(&self, st: &State, seat: Option<u8>) -> Result<(ChoiceId, u8), WhyNot> {
        let (choice, actor) = match st.wait {
            Wait::Decision { choice, actor } => (choice, actor),
            Wait::Chance => return Err(illegal("chance must act now, not a player".into(), None)),
            _ => return Err(illegal("the game is over".into(), None)),
        };
        let actor = match seat {
            None => actor,
            Some(p) if p == actor || self.pending(st).contains(&p) => p,
            Some(p) => {
                return Err(illegal(
                    format!(
                        "{} must act now, not {}",
                        player_name(actor),
                        player_name(p)
                    ),
                    None,
                ))
            }
        };
        Ok((choice, actor))
    }

    /// The option of the choice `ch` that the text names (by its `label`, or for an option
    /// of values by the names its `pairs` give), or why the choice offers none such.
    fn asked_arm<'c>(
        &self,
        ch: &'c Choice,
        label: Option<&str>,
        pairs: &[(&str, &str)],
        text: &str,
    ) -> Result<&'c Arm, WhyNot> {
        let offered: Vec<String> = ch
            .arms
            .iter()
            .map(|a| match a {
                Arm::Action(ai) => self.actions[*ai].name.clone(),
                Arm::Inline { label: Some(l), .. } => l.clone(),
                Arm::Inline { binds, .. } => binds
                    .iter()
                    .map(|b| format!("{}=...", b.name))
                    .collect::<Vec<_>>()
                    .join(" "),
            })
            .collect();
        let found = ch.arms.iter().find(|a| match (a, label) {
            (Arm::Action(ai), Some(l)) => self.actions[*ai].name == l,
            (Arm::Inline { label: Some(x), .. }, Some(l)) => x == l,
            (
                Arm::Inline {
                    label: None, binds, ..
                },
                None,
            ) => binds
                .iter()
                .all(|b| pairs.iter().any(|(k, _)| *k == b.name)),
            _ => false,
        });
        let Some(arm) = found else {
            let what = crate::source::quote(label.unwrap_or(text), 40);
            return Err(
                if label.is_some_and(|l| self.actions.iter().any(|a| a.name == l)) {
                    illegal(
                        format!(
                            "`{what}` is not offered by the choice waiting now, which offers: {}",
                            offered.join(", ")
                        ),
                        Some(ch.span),
                    )
                } else {
                    illegal(
                        format!(
                            "nothing called `{what}` can be chosen now; the choice offers: {}",
                            offered.join(", ")
                        ),
                        Some(ch.span),
                    )
                },
            );
        };
        Ok(arm)
    }

    /// The values the text gives each parameter, looked for in the parameter's collection now,
    /// then the guard: `Some` with the first that rules the option out, `None` when all pass.
    fn why_not_values(
        &self,
        st: &State,
        asked: &Asked,
        locals: &mut [Value; MAX_LOCALS],
    ) -> Result<Option<WhyNot>, RunError> {
        let Asked {
            opts,
            binds,
            guard_span,
            pairs,
            me,
        } = *asked;
        with_machine(st.fuel, |m| -> Result<Option<WhyNot>, RunError> {
            for (b, cb) in binds.iter().zip(&opts.binds) {
                let Some((_, want)) = pairs.iter().find(|(k, _)| *k == b.name) else {
                    return Ok(Some(WhyNot {
                        legal: false,
                        reason: format!("`{}` needs a value: write `{}=...`", b.name, b.name),
                        span: Some(b.span),
                    }));
                };
                let mut hit = None;
                m.start(self, st, cb.coll, locals, me).blame(Some(b.span))?;
                while let Some(v) = m.next(self, st, Some(b.span)).blame(Some(b.span))? {
                    if show_value(self, st, v) == *want {
                        hit = Some(v);
                        m.stop();
                        break;
                    }
                }
                match hit {
                    Some(v) => locals[cb.slot as usize] = v,
                    None => {
                        return Ok(Some(WhyNot {
                            legal: false,
                            reason: format!(
                                "`{}={}` is not one of the values `{}` can take now",
                                b.name,
                                crate::source::quote(want, 40),
                                b.name
                            ),
                            span: Some(b.span),
                        }))
                    }
                }
            }
            if let Some(g) = opts.guard {
                if !m.eval_bool(self, st, g, locals, me).blame(guard_span)? {
                    return Ok(Some(WhyNot {
                        legal: false,
                        reason: "its condition does not hold now".into(),
                        span: guard_span,
                    }));
                }
            }
            Ok(None)
        })
    }
}

/// What [`Game::why_not_values`] tests: the option's compiled bindings and guard, the
/// parameters as declared, the guard's span, the `name=value` pairs of the text, and the
/// seat read as `me`.
#[derive(Clone, Copy)]
struct Asked<'a> {
    opts: &'a crate::ir::vm::COptions,
    binds: &'a [Bind],
    guard_span: Option<Span>,
    pairs: &'a [(&'a str, &'a str)],
    me: u8,
}

/// A `WhyNot` that says the action is not legal now, and why.
fn illegal(reason: String, span: Option<Span>) -> WhyNot {
    WhyNot {
        legal: false,
        reason,
        span,
    }
}
