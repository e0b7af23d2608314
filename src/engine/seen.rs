//! What a seat learns of a decision: the one rule every surface (the page's log, `play`, the
//! protocol's `log`, a spectator) reads a decision through.
//!
//! A seat learns of another seat's decision exactly what the views it is shown tell it. The
//! decision is compared with every other option its maker had at that moment: each one is
//! played instead, followed by the decisions that came after it until the game was
//! **settled** again (no simultaneous block waiting, no hidden commitment of a `choose each`
//! held back), and the observer's view of the result is compared with its view of what
//! really happened. The options it cannot tell apart from the real one form its **class**: a
//! word of the decision's text (the action's name, each `name=value`) is shown only when
//! every option of the class has the same word there, and a value that names a component is
//! shown only when the observer sees that component before or after the decision.
//!
//! So a value written into a secret field or an `owner` variable, a card laid face down, a
//! bid, a choice inside a `simultaneous` block or a `choose each` (until the block or the
//! choice is played out) are shown as hidden (`arrange (hidden)`, `play card=? slot=b2`),
//! while a move on an open board reads in full. The maker of a decision reads it in full.
//!
//! The other options must be ones the observer could imagine: when they may depend on what
//! it cannot see ([`Game::options_read_hidden`]: a bid below a secret value has one option
//! exactly when the value is lowest), a value is shown only when it names a component the
//! observer sees after the decision. The action's name is then still shown by the class (a
//! choice between actions whose guards read a secret can tell which one was taken: a residue
//! this rule does not close).
//!
//! Limits: at most [`MAX_ALTERNATIVES`] other options are played; past that, in a game that
//! hides nothing (every zone, field and variable public: [`Game::hides_nothing`], so every
//! view is the whole state) the decision reads in full, and otherwise the words shared by
//! every option are shown and the rest hidden (the same answer as if every option looked
//! alike, so never more than the view tells). An option whose replay fails (a later
//! decision of the group no longer legal) counts as looking alike. A line is derived once,
//! when its decision is settled; a field revealed later shows in the views, not in the line.

use super::*;
use crate::ir::{Arm, Coll, DefId, Expr, Game, Visibility};

/// The most other options played to tell a decision apart (see the module documentation).
pub const MAX_ALTERNATIVES: usize = 256;

/// What a line shows of a decision whose every word is hidden.
pub const HIDDEN: &str = "(hidden)";

/// One decision of a match's log as one observer may read it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeenLine {
    /// Who decided: `pN`, or `chance`.
    pub who: String,
    /// The decision's text as the observer may read it.
    pub text: String,
}

/// One decision to derive: who made it (`Some(seat)` for a commitment made with
/// [`Game::apply_for`]), the option, its full text, and the state it was made in.
pub(crate) struct Made<'a> {
    pub seat: Option<u8>,
    pub action: Action,
    pub text: &'a str,
    pub before: &'a State,
}

impl Game {
    /// Whether a state holds no decision still hidden from the others: no player of a
    /// waiting simultaneous block has made a choice in it yet, and no commitment of a
    /// `choose each` is held back.
    pub(crate) fn settled(&self, st: &State) -> bool {
        let block_clear = st.block.as_deref().is_none_or(|b| {
            b.runs
                .iter()
                .flatten()
                .all(|run| run.block.as_deref().is_none_or(|r| r.log.is_empty()))
        });
        block_clear && st.commits.iter().all(|c| c.is_none())
    }

    /// The seat that made a decision in `before`, or `None` for chance.
    pub(crate) fn maker(&self, seat: Option<u8>, before: &State) -> Option<u8> {
        seat.or(match self.actor(before) {
            Actor::Player(p) => Some(p),
            _ => None,
        })
    }

    /// For each decision of a group (every decision made since the game was last settled, the
    /// last of which settled it again, in `settled`), the text each observer reads: seats from
    /// 0, then the spectator.
    pub(crate) fn derive_seen(&self, group: &[Made], settled: &State) -> Vec<Box<[String]>> {
        let players = settled.players;
        let observers: Vec<Option<u8>> = (0..players).map(Some).chain([None]).collect();

        let targets: Vec<View> = observers.iter().map(|&o| self.view(settled, o)).collect();
        let mut out = Vec::with_capacity(group.len());
        for (i, d) in group.iter().enumerate() {
            let maker = self.maker(d.seat, d.before);
            // Every component's name, and the ones each observer sees around the decision.
            let all: Vec<String> = comp_names(&self.view_all(d.before))
                .chain(comp_names(&self.view_all(settled)))
                .collect();
            let mut alts = Vec::new();
            let listed = match d.seat {
                Some(s) => self.legal_for(d.before, s, &mut alts),
                None => self.legal(d.before, &mut alts),
            };
            alts.retain(|a| *a != d.action);
            let texts: Vec<String> = alts
                .iter()
                .map(|a| match d.seat {
                    Some(s) => self.action_text_for(d.before, s, a),
                    None => self.action_text(d.before, a),
                })
                .collect();
            // Each other option's result, as each observer sees it (`None`: not known).
            if listed.is_ok() && alts.len() > MAX_ALTERNATIVES && self.hides_nothing() {
                // Every view is the whole state: a settled decision is public.
                out.push(observers.iter().map(|_| d.text.to_string()).collect());
                continue;
            }
            let played: Vec<Option<Vec<View>>> = if listed.is_ok() && alts.len() <= MAX_ALTERNATIVES
            {
                alts.iter()
                    .map(|a| {
                        self.play_instead(d, a, &group[i + 1..])
                            .map(|st| observers.iter().map(|&o| self.view(&st, o)).collect())
                    })
                    .collect()
            } else {
                vec![None; alts.len()]
            };
            // Options that may depend on what an observer cannot see: their number and
            // kind would tell it something, so only what its view shows is named.
            let blind = maker.is_some() && self.options_read_hidden(d.before, maker, d.action.arm);
            let line: Box<[String]> = observers
                .iter()
                .enumerate()
                .map(|(k, &o)| {
                    if o.is_some() && o == maker {
                        return d.text.to_string();
                    }
                    let class: Vec<&str> = texts
                        .iter()
                        .zip(&played)
                        .filter(|(_, p)| p.as_ref().is_none_or(|v| v[k] == targets[k]))
                        .map(|(t, _)| t.as_str())
                        .collect();
                    let seen: Vec<String> = comp_names(&self.view(d.before, o))
                        .chain(comp_names(&targets[k]))
                        .collect();
                    let hidden: Vec<&str> = all
                        .iter()
                        .filter(|n| !seen.contains(n))
                        .map(String::as_str)
                        .collect();
                    let all_names: Vec<&str> = all.iter().map(String::as_str).collect();
                    let after: Vec<String> = comp_names(&targets[k]).collect();
                    let after: Vec<&str> = after.iter().map(String::as_str).collect();
                    let only = blind.then_some(after.as_slice());
                    shown_text(d.text, &class, &hidden, &all_names, only)
                })
                .collect();
            out.push(line);
        }
        out
    }

    /// Whether the options of option `arm` of the decision waiting in `st` (for `seat`) may
    /// depend on something some seat cannot see: their collections, guard or the functions
    /// they call read a zone or variable that is not public or a field seen by one seat only
    /// (a `sequence action` or a decision outside a `choose` counts as reading it). Then the
    /// other options a seat compares with are not the ones it could imagine: a bid whose
    /// options stop at a secret value would read in full exactly when there is one option.
    pub(crate) fn options_read_hidden(&self, st: &State, seat: Option<u8>, arm: u16) -> bool {
        if self.hides_nothing() {
            return false;
        }
        let st = self.block_run(st, seat).unwrap_or(st);
        let Some(c) = self.waiting_choice(st) else {
            return true;
        };
        let ch = &self.choices[c];
        let mut exprs: Vec<&Expr> = ch.by.iter().collect();
        let mut colls: Vec<&Coll> = ch.each.iter().map(|(b, _)| &b.coll).collect();
        let Some(arm) = ch.arms.get(arm as usize) else {
            return true;
        };
        match arm {
            Arm::Action(a) => {
                let a = &self.actions[*a];
                if a.sequence {
                    return true;
                }
                colls.extend(a.params.iter().map(|b| &b.coll));
                exprs.extend(a.guard.iter());
            }
            Arm::Inline { binds, guard, .. } => {
                colls.extend(binds.iter().map(|b| &b.coll));
                exprs.extend(guard.iter());
            }
        }
        let mut seen_defs = Vec::new();
        let mut hidden = false;
        let mut look = |e: &Expr| hidden |= self.reads_hidden(e, &mut seen_defs);
        exprs.iter().for_each(|e| e.visit(&mut |x| look(x)));
        colls.iter().for_each(|c| c.visit(&mut |e| look(e)));
        hidden
    }

    /// Whether `e` (without its sub-expressions: the caller visits them) reads something not
    /// every seat sees, following the functions it calls (`defs`: those already followed).
    fn reads_hidden(&self, e: &Expr, defs: &mut Vec<DefId>) -> bool {
        match e {
            Expr::Var(v, _) => self.vars[*v].visibility != Visibility::Public,
            Expr::Zone(z, _) => self.zones[*z].visibility != Visibility::Public,
            Expr::Field(_, f) => self.types.iter().any(|t| {
                t.fields
                    .get(*f as usize)
                    .is_some_and(|x| x.seen_by.is_some())
            }),
            Expr::CallDef(d, _) if !defs.contains(d) => {
                defs.push(*d);
                let mut hidden = false;
                self.defs[*d]
                    .body
                    .visit(&mut |x| hidden = hidden || self.reads_hidden(x, defs));
                hidden
            }
            _ => false,
        }
    }

    /// The state reached by playing `alt` in place of `d`'s option, then the decisions
    /// `after` it as they were made; `None` when one of them is refused.
    fn play_instead(&self, d: &Made, alt: &Action, after: &[Made]) -> Option<State> {
        let mut st = d.before.clone();
        let step = |st: &mut State, seat: Option<u8>, a: &Action| match seat {
            Some(s) => self.apply_for(st, s, a),
            None => self.apply(st, a),
        };
        step(&mut st, d.seat, alt).ok()?;
        for m in after {
            // Later decisions are matched by their text: an option's numbering may differ.
            let a = self.find_option(&st, m).ok()??;
            step(&mut st, m.seat, &a).ok()?;
        }
        Some(st)
    }

    /// The option of `st` whose text is `m`'s, if it is legal there.
    fn find_option(&self, st: &State, m: &Made) -> Result<Option<Action>, RunError> {
        let mut buf = Vec::new();
        match m.seat {
            Some(s) => self.legal_for(st, s, &mut buf)?,
            None => self.legal(st, &mut buf)?,
        }
        Ok(buf.into_iter().find(|a| {
            let t = match m.seat {
                Some(s) => self.action_text_for(st, s, a),
                None => self.action_text(st, a),
            };
            t == m.text
        }))
    }
}

/// The names of the components a view shows.
fn comp_names(v: &View) -> impl Iterator<Item = String> + '_ {
    v.zones.iter().flat_map(|z| z.visible.iter().cloned())
}

/// A decision's text split in words, a component's name with spaces in it kept whole.
fn words<'t>(text: &'t str, names: &[&str]) -> Vec<&'t str> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        // After `name=` (or at a word's start), a component's name may hold spaces.
        let head = rest.find('=').map_or(0, |i| {
            if rest[..i].contains(char::is_whitespace) {
                0
            } else {
                i + 1
            }
        });
        let long = names
            .iter()
            .filter(|n| n.contains(char::is_whitespace))
            .filter(|n| {
                rest[head..].starts_with(**n)
                    && rest[head + n.len()..]
                        .chars()
                        .next()
                        .is_none_or(char::is_whitespace)
            })
            .map(|n| head + n.len())
            .max();
        let end = long.unwrap_or_else(|| rest.find(char::is_whitespace).unwrap_or(rest.len()));
        out.push(&rest[..end]);
        rest = rest[end..].trim_start();
    }
    out
}

/// The words of `text` that every option of `class` shares and that name no component of
/// `hidden`; the others as `name=?` (or `?`), the whole as [`HIDDEN`] when its first word
/// (the action's name) is hidden, and `name (hidden)` when every word after it is. With
/// `only`, a value (`name=value`) is shown only when it is one of those (the components the
/// observer sees): the class cannot be trusted then ([`Game::options_read_hidden`]).
pub(crate) fn shown_text(
    text: &str,
    class: &[&str],
    hidden: &[&str],
    names: &[&str],
    only: Option<&[&str]>,
) -> String {
    let own = words(text, names);
    let others: Vec<Vec<&str>> = class.iter().map(|t| words(t, names)).collect();
    let mut out: Vec<String> = Vec::with_capacity(own.len());
    let mut hid = 0;
    for (k, w) in own.iter().enumerate() {
        let (name, value) = match w.split_once('=') {
            Some((n, v)) => (Some(n), v),
            None => (None, *w),
        };
        let agree = others.iter().all(|o| o.get(k) == Some(w));
        let seen = match only {
            Some(only) => name.is_none() || only.contains(&value),
            None => true,
        };
        if agree && seen && !hidden.contains(&value) {
            out.push(w.to_string());
            continue;
        }
        if k == 0 && name.is_none() {
            return HIDDEN.to_string();
        }
        hid += 1;
        let same_name =
            |o: &Vec<&str>| o.get(k).and_then(|x| x.split_once('=')).map(|x| x.0) == name;
        match name {
            Some(n) if others.iter().all(same_name) => out.push(format!("{n}=?")),
            _ => out.push("?".into()),
        }
    }
    let label = own.first().filter(|w| !w.contains('=')).is_some();
    let args = own.len() - usize::from(label);
    if hid > 0 && hid == args {
        return match label {
            true => format!("{} {HIDDEN}", own[0]),
            false => HIDDEN.to_string(),
        };
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_shared_by_the_class_are_shown_the_others_hidden() {
        let t = shown_text(
            "play card=red-7 at=b2",
            &["play card=blue-1 at=b2"],
            &[],
            &[],
            None,
        );
        assert_eq!(t, "play card=? at=b2");
        let t = shown_text(
            "arrange a=fire b=void",
            &["arrange a=void b=fire"],
            &[],
            &[],
            None,
        );
        assert_eq!(t, "arrange (hidden)");
        assert_eq!(shown_text("rock", &["paper"], &[], &[], None), HIDDEN);
        assert_eq!(
            shown_text("place cell=a1", &[], &[], &[], None),
            "place cell=a1"
        );
        // A component the observer does not see is hidden even when no other option exists.
        assert_eq!(
            shown_text("discard c=x-1", &[], &["x-1"], &[], None),
            "discard (hidden)"
        );
        assert_eq!(
            shown_text("chance x-1", &[], &["x-1"], &[], None),
            "chance (hidden)"
        );
        assert_eq!(
            shown_text("from=row2", &["from=row3"], &[], &[], None),
            HIDDEN
        );
    }

    #[test]
    fn a_component_name_with_spaces_is_one_word() {
        let names = ["red seven", "blue one"];
        assert_eq!(
            words("play card=red seven at=b2", &names),
            ["play", "card=red seven", "at=b2"]
        );
        let t = shown_text("play card=red seven", &[], &["red seven"], &names, None);
        assert_eq!(t, "play (hidden)");
    }
}
