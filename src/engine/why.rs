//! Why an action is, or is not, legal now.
use super::eval::{Ctx, Env};
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
        let no = |reason: String, span: Option<Span>| {
            Ok(WhyNot {
                legal: false,
                reason,
                span,
            })
        };
        let (choice, actor) = match st.wait {
            Wait::Decision { choice, actor } => (choice, actor),
            Wait::Chance => return no("chance must act now, not a player".into(), None),
            _ => return no("the game is over".into(), None),
        };
        let ch = &self.choices[choice];
        let mut words = text.split_whitespace().peekable();
        let label = match words.peek() {
            Some(w) if !w.contains('=') => words.next().map(str::to_string),
            _ => None,
        };
        let pairs: Vec<(&str, &str)> = words.filter_map(|w| w.split_once('=')).collect();
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
        let found = ch.arms.iter().find(|a| match (a, &label) {
            (Arm::Action(ai), Some(l)) => &self.actions[*ai].name == l,
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
            let what = label.clone().unwrap_or_else(|| text.to_string());
            return if label
                .as_ref()
                .is_some_and(|l| self.actions.iter().any(|a| &a.name == l))
            {
                no(
                    format!(
                        "`{what}` is not offered by the choice waiting now, which offers: {}",
                        offered.join(", ")
                    ),
                    Some(ch.span),
                )
            } else {
                no(
                    format!(
                        "nothing called `{what}` can be chosen now; the choice offers: {}",
                        offered.join(", ")
                    ),
                    Some(ch.span),
                )
            };
        };
        let frame = st.frames.last().expect("a waiting choice has a frame");
        let ctx = Ctx { g: self, s: st };
        let mut locals = [Value::None; MAX_LOCALS];
        let (binds, guard, guard_span, me) = match arm {
            Arm::Action(ai) => {
                let a = &self.actions[*ai];
                (&a.params, a.guard.as_ref(), a.guard_span, actor)
            }
            Arm::Inline {
                binds,
                guard,
                guard_span,
                ..
            } => {
                let n = self.procs[frame.proc].locals as usize;
                locals[..n]
                    .copy_from_slice(&st.locals[frame.base as usize..frame.base as usize + n]);
                (binds, guard.as_ref(), *guard_span, frame.me)
            }
        };
        let mut env = Env {
            locals: &mut locals[..],
            me,
            depth: 0,
        };
        for b in binds {
            let Some((_, want)) = pairs.iter().find(|(k, _)| *k == b.name) else {
                return no(
                    format!("`{}` needs a value: write `{}=...`", b.name, b.name),
                    Some(b.span),
                );
            };
            let mut hit = None;
            ctx.each(&b.coll, &mut env, false, &mut |v, _| {
                if show_value(self, st, v) == *want {
                    hit = Some(v);
                    return Ok(false);
                }
                Ok(true)
            })?;
            match hit {
                Some(v) => env.locals[b.slot as usize] = v,
                None => {
                    return no(
                        format!(
                            "`{}={want}` is not one of the values `{}` can take now",
                            b.name, b.name
                        ),
                        Some(b.span),
                    )
                }
            }
        }
        if let Some(g) = guard {
            if !ctx.bool(g, &mut env)? {
                return no("its condition does not hold now".into(), guard_span);
            }
        }
        Ok(WhyNot {
            legal: true,
            reason: "it is legal now".into(),
            span: None,
        })
    }
}
