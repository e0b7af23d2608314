//! The canonical text of actions and values: written in one place, parsed in one place.
//!
//! An action's text is its label (an action's name or an inline option's label, absent for a
//! value choice) followed by `name=value` for each bound name: `play card=red-7`, `pass`,
//! `from=row2`; a chance outcome is `chance 4`. A commitment made out of seat order in a
//! simultaneous choice is logged with its seat in front: `p2: keep card=red-7`.

use super::*;
use crate::ir::*;

/// An action text taken apart (see the module documentation). Parsing never fails: words
/// that fit no part are kept in `rest`, and a text is compared with the legal actions' texts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionText<'a> {
    /// The seat of a `pN: ` prefix, counted from 0.
    pub seat: Option<u8>,
    /// The first word when it has no `=`: the action or option name (`chance` for chance).
    pub label: Option<&'a str>,
    /// The `name=value` words, in order.
    pub args: Vec<(&'a str, &'a str)>,
    /// Words after the label that are not `name=value` (a chance outcome's value).
    pub rest: Vec<&'a str>,
    /// The text after the seat prefix.
    pub body: &'a str,
}

impl<'a> ActionText<'a> {
    /// Takes a text apart; spaces between words do not matter.
    pub fn parse(text: &'a str) -> Self {
        let (seat, body) = match text.trim_start().split_once(": ") {
            Some((p, t)) => match p.strip_prefix('p').and_then(|n| n.parse::<u8>().ok()) {
                Some(n) if n >= 1 => (Some(n - 1), t),
                _ => (None, text),
            },
            None => (None, text),
        };
        let mut words = body.split_whitespace().peekable();
        let label = match words.peek() {
            Some(w) if !w.contains('=') => words.next(),
            _ => None,
        };
        let mut args = Vec::new();
        let mut rest = Vec::new();
        for w in words {
            match w.split_once('=') {
                Some(kv) => args.push(kv),
                None => rest.push(w),
            }
        }
        ActionText {
            seat,
            label,
            args,
            rest,
            body,
        }
    }

    /// The text without its seat prefix, with single spaces: the form [`Game::action_text`]
    /// writes (a component name with spaces in it stays whole).
    pub fn canonical(&self) -> String {
        self.body.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// A text as a seat writes it in a log: `p2: keep card=red-7`.
pub fn with_seat(seat: u8, text: &str) -> String {
    format!("{}: {text}", player_name(seat))
}

impl Game {
    /// The canonical text of an action: `play card=red-7`, `pass`, `n=row2`, `chance 4`.
    pub fn action_text(&self, st: &State, a: &Action) -> String {
        if a.arm == Action::CHANCE {
            return format!("chance {}", show_value(self, st, a.args[0]));
        }
        let Wait::Decision { choice, .. } = st.wait else {
            return "?".into();
        };
        let mut s = self.option_text(st, choice, a);
        // A sequence action's option goes on with the choices made inside it.
        let from = a.steps.start as usize;
        if let Some(steps) = st.runs.get(from..from + a.steps.len as usize) {
            for (c, inner) in steps {
                s.push(' ');
                s.push_str(&self.option_text(st, *c, inner));
            }
        }
        s
    }

    /// The text of one option of `choice`: its label and `name=value` per bound name.
    fn option_text(&self, st: &State, choice: ChoiceId, a: &Action) -> String {
        let mut s = String::new();
        let (label, binds) = match self.arm_of(choice, a.arm) {
            Some(arm) => self.arm_parts(arm),
            None => return "?".into(),
        };
        if let Some(l) = label {
            s.push_str(l);
        }
        for (b, v) in binds.iter().zip(a.args) {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(&b.name);
            s.push('=');
            s.push_str(&show_value(self, st, v));
        }
        s
    }

    /// An option of a choice, if the choice has it.
    pub(crate) fn arm_of(&self, choice: ChoiceId, arm: u16) -> Option<&Arm> {
        self.choices.get(choice)?.arms.get(arm as usize)
    }

    /// An option's label (the action's name, or an inline option's label) and the names it
    /// binds.
    pub(crate) fn arm_parts<'s>(&'s self, arm: &'s Arm) -> (Option<&'s str>, &'s [Bind]) {
        match arm {
            Arm::Action(ai) => (Some(&self.actions[*ai].name), &self.actions[*ai].params),
            Arm::Inline { label, binds, .. } => (label.as_deref(), binds),
        }
    }

    /// Finds the legal action with this canonical text (a `pN: ` prefix is ignored here).
    pub fn parse_action(&self, st: &State, text: &str) -> Result<Action, RunError> {
        let mut buf = Vec::new();
        self.legal(st, &mut buf)?;
        let want = ActionText::parse(text).canonical();
        if let Some(a) = buf.iter().find(|a| self.action_text(st, a) == want) {
            return Ok(*a);
        }
        Err(self.not_legal(st, text, &buf))
    }

    /// The error for a text that names no legal action: it quotes the text (cut short) and
    /// lists some legal actions.
    pub(crate) fn not_legal(&self, st: &State, text: &str, legal: &[Action]) -> RunError {
        let list: Vec<String> = legal
            .iter()
            .take(12)
            .map(|a| self.action_text(st, a))
            .collect();
        RunError::illegal(format!(
            "`{}` is not a legal action now; legal: {}{}",
            crate::source::quote(text, 80),
            if list.is_empty() {
                "none".to_string()
            } else {
                list.join(", ")
            },
            if legal.len() > 12 { ", ..." } else { "" }
        ))
    }
}

/// Whether `seat` (`None`: a spectator) may see field `f` of component `c` now.
pub fn field_visible(g: &Game, s: &State, c: CompId, f: u16, seat: Option<u8>) -> bool {
    let comp = &g.comps[c];
    let def = &g.types[comp.ty].fields[f as usize];
    let Some(by) = def.seen_by else {
        return true;
    };
    let slot = g.field_slot(c, f);
    if s.revealed[slot] || (s.is_over() && !def.kept && !in_secret_zone(g, s, c)) {
        return true;
    }
    match (seat, s.fields[g.field_slot(c, by)]) {
        (Some(p), _) if s.grants[slot] & (1 << p) != 0 => true,
        (Some(p), Value::Player(o)) => p == o,
        _ => false,
    }
}

/// Whether a component lies in a `secret` zone (whose secrets outlive the game).
fn in_secret_zone(g: &Game, s: &State, c: CompId) -> bool {
    let inst = s.zones.loc(c);
    g.zones[g.instances[inst].zone].visibility == Visibility::Secret
}

/// Whether `seat` (`None`: a spectator) may see the value of variable slot `slot` now.
pub fn var_visible(g: &Game, s: &State, var: VarId, slot: usize, seat: Option<u8>) -> bool {
    let v = &g.vars[var];
    match v.visibility {
        Visibility::Public | Visibility::Top => true,
        Visibility::Hidden => s.is_over(),
        Visibility::Secret => false,
        Visibility::Owner => {
            let Some(dim) = v.owner_dim else { return false };
            let mut rest = slot.saturating_sub(v.base as usize) as u32;
            for i in (dim + 1..v.dims.len()).rev() {
                rest /= v.sizes[i];
            }
            seat.is_some_and(|p| rest % v.sizes[dim] == p as u32)
        }
    }
}

/// A component's name as `seat` may see it: secret fields it may not see show as `?`.
pub fn show_comp_for(g: &Game, s: &State, c: CompId, seat: Option<u8>) -> String {
    comp_name(g, s, c, &mut |f| {
        if field_visible(g, s, c, f, seat) {
            None
        } else {
            Some("?")
        }
    })
}

/// A value as text, with components named from their current fields.
pub fn show_value(g: &Game, s: &State, v: Value) -> String {
    match v {
        Value::Comp(c) => comp_name(g, s, c, &mut |_| None),
        other => g.show_static(other),
    }
}

/// A component's name from its template and current fields; `mask` may replace a field.
fn comp_name(
    g: &Game,
    s: &State,
    c: CompId,
    mask: &mut dyn FnMut(u16) -> Option<&'static str>,
) -> String {
    let mut out = String::new();
    for p in &g.comps[c].name {
        match p {
            NamePart::Text(t) => out.push_str(t),
            NamePart::Field(f) => match mask(*f) {
                Some(m) => out.push_str(m),
                None => out.push_str(&show_value(g, s, s.fields[g.field_slot(c, *f)])),
            },
        }
    }
    out
}
