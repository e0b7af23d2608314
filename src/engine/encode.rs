//! Numbers for a game's actions and a fixed-length encoding of a seat's view, for programs
//! that need them: learning libraries (OpenSpiel's games, PettingZoo's environments) number
//! every action a game can offer and read observations as arrays of numbers.
//!
//! **Action codes** ([`ActionCodes`]). Every option a choice can offer gets one integer, the
//! same in every state of every match of the same configuration: the declared actions in
//! declaration order, then the inline options of the choices (`choose { pass { .. } }`,
//! `choose x in C { .. }`) in the order of the choices, each a block of consecutive codes.
//! Within a block an option's code is the mixed-radix number of its bound values, the first
//! parameter most significant, each value numbered in its parameter's finite domain: a
//! seat, an enum value, a component among those of its type, a space of its board, a zone
//! instance, an action, `false`/`true`, a number within the bounds of its range (`1..7`,
//! `1..N` with `N` a constant, read from the match's start state). A game some of whose
//! options cannot be numbered so (a `sequence action`, whose option goes on with the choices
//! its effect makes; a number whose range depends on the state) is refused with the reason
//! ([`ActionCodes::refused`]); so is one of more than [`MAX_ACTION_CODES`] codes.
//!
//! **View codes** ([`ViewCodes`]). A seat's [`View`] as numbers in a layout fixed by the
//! game's declarations and the number of players: who acts and who observes (one-hot), each
//! zone instance (its count, then how many of each component name of its type it shows),
//! each variable entry (one-hot over the values of its type, `none` and hidden; a number of
//! no small range as its value). It reads the view only, so it holds nothing the seat may
//! not see.

use super::{show_value, Action, State, View};
use crate::ir::{BoardId, ChoiceId, Coll, CompId, EnumId, Expr, Game, Type, TypeId, Value};
use crate::ops::BinOp;
use std::collections::HashMap;

/// The most action codes a game may have (2^24).
pub const MAX_ACTION_CODES: u64 = 1 << 24;

/// The largest range of numbers a variable's entry is encoded one-hot over; a larger one is
/// encoded as its value.
pub const MAX_ONE_HOT: i64 = 64;

/// The finite domain of one bound value.
#[derive(Clone, Debug, PartialEq)]
enum Domain {
    Bool,
    Player(u32),
    Enum(EnumId, u32),
    /// Components of a type: how many.
    Comp(TypeId, u32),
    Space(BoardId, u32),
    Zone(u32),
    Action(u32),
    Int {
        lo: i64,
        size: u32,
    },
}

impl Domain {
    fn size(&self) -> u64 {
        match *self {
            Domain::Bool => 2,
            Domain::Player(n)
            | Domain::Enum(_, n)
            | Domain::Comp(_, n)
            | Domain::Space(_, n)
            | Domain::Zone(n)
            | Domain::Action(n)
            | Domain::Int { size: n, .. } => n as u64,
        }
    }
}

/// One block of codes: an option's label, its bound names and their domains.
#[derive(Clone, Debug)]
struct Block {
    offset: u64,
    label: Option<String>,
    names: Vec<String>,
    domains: Vec<Domain>,
}

/// The numbering of every option of a game's choices (see the module's documentation).
#[derive(Clone, Debug)]
pub struct ActionCodes {
    blocks: Vec<Block>,
    /// The block of each declared action.
    by_action: Vec<usize>,
    /// The block of each inline option: (choice, arm).
    by_arm: HashMap<(usize, u16), usize>,
    /// Each component's position among the components of its type.
    comp_pos: Vec<u32>,
    size: u64,
    refused: Option<String>,
}

impl Game {
    /// The action codes of this game for matches configured as the one `st` belongs to (its
    /// number of players and constants).
    pub fn action_codes(&self, st: &State) -> ActionCodes {
        let mut per_type: HashMap<TypeId, u32> = HashMap::new();
        let comp_pos = self
            .comps
            .iter()
            .map(|c| {
                let n = per_type.entry(c.ty).or_insert(0);
                *n += 1;
                *n - 1
            })
            .collect();
        let mut codes = ActionCodes {
            blocks: Vec::new(),
            by_action: Vec::new(),
            by_arm: HashMap::new(),
            comp_pos,
            size: 0,
            refused: None,
        };
        let refuse = |why: String, codes: &mut ActionCodes| {
            codes.refused.get_or_insert(why);
        };
        for a in self.actions.iter() {
            if a.sequence && a.offered {
                refuse(
                    format!(
                        "`{}` is a sequence action: its options go on with the choices its \
                         effect makes, which have no fixed numbering",
                        a.name
                    ),
                    &mut codes,
                );
            }
            let domains = self.domains(st, &a.params, &per_type, &a.name, &mut codes.refused);
            codes.by_action.push(codes.blocks.len());
            codes.push(Some(a.name.clone()), &a.params, domains);
        }
        for (ci, c) in self.choices.enumerate() {
            for (k, arm) in c.arms.iter().enumerate() {
                if let crate::ir::Arm::Inline { label, binds, .. } = arm {
                    let what = label.clone().unwrap_or_else(|| {
                        binds.first().map(|b| b.name.clone()).unwrap_or_default()
                    });
                    let domains = self.domains(st, binds, &per_type, &what, &mut codes.refused);
                    codes
                        .by_arm
                        .insert((ci.0 as usize, k as u16), codes.blocks.len());
                    codes.push(label.clone(), binds, domains);
                }
            }
        }
        if codes.size > MAX_ACTION_CODES {
            let n = codes.size;
            refuse(
                format!("the game's options need {n} codes, more than {MAX_ACTION_CODES}"),
                &mut codes,
            );
        }
        codes
    }

    /// The domains of the values an option binds; a value with none is recorded in `refused`
    /// and counted as one value.
    fn domains(
        &self,
        st: &State,
        binds: &[crate::ir::Bind],
        per_type: &HashMap<TypeId, u32>,
        what: &str,
        refused: &mut Option<String>,
    ) -> Vec<Domain> {
        binds
            .iter()
            .map(|b| {
                let d = match b.ty {
                    Type::Bool => Some(Domain::Bool),
                    Type::Player => Some(Domain::Player(self.max_players as u32)),
                    Type::Enum(e) => Some(Domain::Enum(e, self.enums[e].values.len() as u32)),
                    Type::Comp(t) => Some(Domain::Comp(t, per_type.get(&t).copied().unwrap_or(0))),
                    Type::Space(bd) => Some(Domain::Space(bd, self.boards[bd].len())),
                    Type::Zone(_) => Some(Domain::Zone(self.zone_instances)),
                    Type::Action(_) => Some(Domain::Action(self.actions.len() as u32)),
                    Type::Int => int_domain(st, &b.coll),
                    Type::Any => None,
                };
                d.unwrap_or_else(|| {
                    refused.get_or_insert_with(|| {
                        format!(
                            "`{}` of `{what}` takes values from a collection whose bounds are \
                             not known before the game starts",
                            b.name
                        )
                    });
                    Domain::Int { lo: 0, size: 1 }
                })
            })
            .collect()
    }
}

/// The numbers of a range or a list whose ends are known from the constants alone.
fn int_domain(st: &State, coll: &Coll) -> Option<Domain> {
    let (lo, hi) = match coll {
        Coll::Range(a, b) => (fixed(st, a)?, fixed(st, b)?),
        Coll::List(items) => {
            let v: Option<Vec<i64>> = items.iter().map(|e| fixed(st, e)).collect();
            let v = v?;
            (*v.iter().min()?, *v.iter().max()?)
        }
        _ => return None,
    };
    let size = u32::try_from(hi.checked_sub(lo)?.checked_add(1)?.max(0)).ok()?;
    Some(Domain::Int { lo, size })
}

/// A number known from literals, constants and the number of players.
fn fixed(st: &State, e: &Expr) -> Option<i64> {
    match e {
        Expr::Lit(Value::Int(n)) => Some(*n),
        Expr::Const(c) => match st.consts.get(*c)? {
            Value::Int(n) => Some(*n),
            _ => None,
        },
        Expr::PlayerCount => Some(st.players as i64),
        Expr::Neg(x) => fixed(st, x)?.checked_neg(),
        Expr::Bin(op, a, b, _) => {
            let (a, b) = (fixed(st, a)?, fixed(st, b)?);
            match op {
                BinOp::Add => a.checked_add(b),
                BinOp::Sub => a.checked_sub(b),
                BinOp::Mul => a.checked_mul(b),
                _ => None,
            }
        }
        _ => None,
    }
}

impl ActionCodes {
    fn push(&mut self, label: Option<String>, binds: &[crate::ir::Bind], domains: Vec<Domain>) {
        let n: u64 = domains
            .iter()
            .map(Domain::size)
            .fold(1u64, |a, b| a.saturating_mul(b));
        self.blocks.push(Block {
            offset: self.size,
            label,
            names: binds.iter().map(|b| b.name.clone()).collect(),
            domains,
        });
        self.size = self.size.saturating_add(n);
    }

    /// How many codes there are: every code is below it.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Why the game's options cannot be numbered, if they cannot; then no code means anything.
    pub fn refused(&self) -> Option<&str> {
        self.refused.as_deref()
    }

    /// The code of a legal option of the choice `st` waits at (`None` for a chance outcome,
    /// or when the game is refused).
    pub fn encode(&self, g: &Game, st: &State, a: &Action) -> Option<u64> {
        if self.refused.is_some() || a.arm == Action::CHANCE {
            return None;
        }
        let choice = g.waiting_choice(st)?;
        let block = self.block_of(g, choice, a.arm)?;
        let b = &self.blocks[block];
        let mut code = 0u64;
        for (d, v) in b.domains.iter().zip(a.args) {
            code = code * d.size() + self.value_pos(d, v)?;
        }
        Some(b.offset + code)
    }

    /// The canonical text of the option a code stands for, its values named as in `st`
    /// (the same text [`Game::action_text`] writes when that option is legal).
    pub fn text(&self, g: &Game, st: &State, code: u64) -> Option<String> {
        if self.refused.is_some() || code >= self.size {
            return None;
        }
        let i = self.blocks.partition_point(|b| b.offset <= code) - 1;
        let b = &self.blocks[i];
        let mut rest = code - b.offset;
        let mut values = vec![Value::None; b.domains.len()];
        for (k, d) in b.domains.iter().enumerate().rev() {
            values[k] = self.value_at(g, d, rest % d.size())?;
            rest /= d.size();
        }
        let mut s = b.label.clone().unwrap_or_default();
        for (name, v) in b.names.iter().zip(values) {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(name);
            s.push('=');
            s.push_str(&show_value(g, st, v));
        }
        Some(s)
    }

    fn block_of(&self, g: &Game, choice: ChoiceId, arm: u16) -> Option<usize> {
        match g.choices.get(choice)?.arms.get(arm as usize)? {
            crate::ir::Arm::Action(ai) => self.by_action.get(ai.0 as usize).copied(),
            crate::ir::Arm::Inline { .. } => self.by_arm.get(&(choice.0 as usize, arm)).copied(),
        }
    }

    fn value_pos(&self, d: &Domain, v: Value) -> Option<u64> {
        let pos = match (d, v) {
            (Domain::Bool, Value::Bool(b)) => b as u64,
            (Domain::Player(_), Value::Player(p)) => p as u64,
            (Domain::Enum(..), Value::Enum(_, i)) => i as u64,
            (Domain::Comp(..), Value::Comp(c)) => *self.comp_pos.get(c.0 as usize)? as u64,
            (Domain::Space(..), Value::Space(_, i)) => i as u64,
            (Domain::Zone(_), Value::Zone(z)) => z.0 as u64,
            (Domain::Action(_), Value::Action(a)) => a.0 as u64,
            (Domain::Int { lo, .. }, Value::Int(n)) => u64::try_from(n.checked_sub(*lo)?).ok()?,
            _ => return None,
        };
        (pos < d.size()).then_some(pos)
    }

    fn value_at(&self, g: &Game, d: &Domain, pos: u64) -> Option<Value> {
        Some(match *d {
            Domain::Bool => Value::Bool(pos == 1),
            Domain::Player(_) => Value::Player(pos as u8),
            Domain::Enum(e, _) => Value::Enum(e, pos as u16),
            Domain::Comp(t, _) => {
                let c = (0..g.comps.len())
                    .filter(|&c| g.comps[CompId(c as _)].ty == t)
                    .nth(pos as usize)?;
                Value::Comp(CompId(c as _))
            }
            Domain::Space(b, _) => Value::Space(b, pos as u32),
            Domain::Zone(_) => Value::Zone(crate::ir::InstId(pos as _)),
            Domain::Action(_) => Value::Action(crate::ir::ActionId(pos as _)),
            Domain::Int { lo, .. } => Value::Int(lo + pos as i64),
        })
    }
}

/// What a variable entry's slots hold.
#[derive(Clone, Debug)]
enum VarSlot {
    /// One-hot over these texts, then `none`, then hidden (`?`).
    OneHot(HashMap<String, usize>),
    /// The number, then whether it is hidden.
    Number,
}

/// The layout of a seat's view as numbers (see the module's documentation).
#[derive(Clone, Debug)]
pub struct ViewCodes {
    players: usize,
    /// Per zone instance of the view: its first slot and the positions of its names.
    zones: Vec<(usize, HashMap<String, usize>)>,
    /// Per variable entry of the view: its first slot and its kind.
    vars: Vec<(usize, VarSlot)>,
    size: usize,
}

impl Game {
    /// The layout of the views of matches configured as the one `st` belongs to.
    pub fn view_codes(&self, st: &State) -> ViewCodes {
        let players = st.players as usize;
        let all = self.view_all(st);
        let mut size = 2 * players + 3;
        let mut zones = Vec::new();
        // The zone instances in the order of the view, which leaves out seats not in play.
        for inst in self.instances.ids() {
            let info = self.instances[inst];
            if info.owner.is_some_and(|o| o >= st.players) {
                continue;
            }
            let t = self.zones[info.zone].ty;
            let mut names = HashMap::new();
            for (c, comp) in self.comps.enumerate() {
                if comp.ty == t {
                    let n = names.len();
                    names
                        .entry(show_value(self, st, Value::Comp(c)))
                        .or_insert(n);
                }
            }
            let n = names.len();
            zones.push((size, names));
            size += 1 + n;
        }
        let by_name: HashMap<&str, &crate::ir::VarDef> =
            self.vars.iter().map(|v| (v.name.as_str(), v)).collect();
        let mut vars = Vec::new();
        for (name, _) in &all.vars {
            let base = name.split('[').next().unwrap_or(name);
            let slot = match by_name.get(base) {
                Some(v) => self.var_slot(st, v),
                None => VarSlot::OneHot(HashMap::new()),
            };
            let n = match &slot {
                VarSlot::OneHot(m) => m.len() + 2,
                VarSlot::Number => 2,
            };
            vars.push((size, slot));
            size += n;
        }
        ViewCodes {
            players,
            zones,
            vars,
            size,
        }
    }

    fn var_slot(&self, st: &State, v: &crate::ir::VarDef) -> VarSlot {
        let texts: Vec<String> = match v.ty {
            Type::Bool => vec!["false".into(), "true".into()],
            Type::Player => (0..self.max_players).map(crate::ir::player_name).collect(),
            Type::Enum(e) => self.enums[e].values.clone(),
            Type::Space(b) => self.boards[b].space_names.clone(),
            Type::Comp(t) => self
                .comps
                .enumerate()
                .filter(|(_, c)| c.ty == t)
                .map(|(c, _)| show_value(self, st, Value::Comp(c)))
                .collect(),
            Type::Int => match v.range {
                Some((lo, hi)) if hi >= lo && hi - lo < MAX_ONE_HOT => {
                    (lo..=hi).map(|n| n.to_string()).collect()
                }
                _ => return VarSlot::Number,
            },
            _ => Vec::new(),
        };
        let mut m = HashMap::new();
        for t in texts {
            let n = m.len();
            m.entry(t).or_insert(n);
        }
        VarSlot::OneHot(m)
    }
}

impl ViewCodes {
    /// The number of values of an encoded view.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Writes `view` into `out` (of [`ViewCodes::size`] values, zeroed first): the actor
    /// one-hot (seats, chance, nobody), the observing seat one-hot (seats, spectator), then
    /// the zones and variables in the view's order. Names and values the layout does not
    /// know are left out.
    pub fn encode(&self, view: &View, out: &mut [f32]) {
        out.iter_mut().for_each(|x| *x = 0.0);
        if out.len() < self.size {
            return;
        }
        let p = self.players;
        let actor = match view.actor.as_str() {
            "chance" => p,
            "nobody" => p + 1,
            a => a
                .strip_prefix('p')
                .and_then(|n| n.parse::<usize>().ok())
                .map_or(p + 1, |n| n.saturating_sub(1).min(p + 1)),
        };
        out[actor] = 1.0;
        out[p + 2 + view.seat.map_or(p, |s| (s as usize).min(p))] = 1.0;
        for ((start, names), z) in self.zones.iter().zip(&view.zones) {
            out[*start] = z.count as f32;
            for name in &z.visible {
                if let Some(k) = names.get(name) {
                    out[start + 1 + k] += 1.0;
                }
            }
        }
        for ((start, slot), (_, value)) in self.vars.iter().zip(&view.vars) {
            match slot {
                VarSlot::OneHot(m) => {
                    let k = match value.as_str() {
                        "?" => Some(m.len() + 1),
                        "none" => Some(m.len()),
                        v => m.get(v).copied(),
                    };
                    if let Some(k) = k {
                        out[start + k] = 1.0;
                    }
                }
                VarSlot::Number => match value.parse::<f64>() {
                    Ok(n) => out[*start] = n as f32,
                    Err(_) if value == "?" => out[start + 1] = 1.0,
                    Err(_) => {}
                },
            }
        }
    }
}
