//! Views: the state as one seat may see it, derived from the visibility the rules declare.

use super::{show_value, Actor, State};
use crate::ir::{Game, Visibility};
use serde::Serialize;

/// One zone instance as a seat sees it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ZoneView {
    pub zone: String,
    /// Number of components, always visible.
    pub count: usize,
    /// Names of the components the seat may see, bottom to top; hidden ones are absent.
    pub visible: Vec<String>,
    /// True when every component is visible.
    pub open: bool,
}

/// Everything one seat may know about a state.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct View {
    pub seat: Option<u8>,
    pub current: Option<u8>,
    /// `pN`, `chance` or `nobody`.
    pub actor: String,
    pub zones: Vec<ZoneView>,
    /// Variables, as `name[index] = value`.
    pub vars: Vec<(String, String)>,
    pub over: bool,
    pub scores: Option<Vec<i64>>,
    pub winners: Option<Vec<u8>>,
}

impl Game {
    /// The state as `seat` may see it (`None`: a spectator, who sees only public things).
    pub fn view(&self, st: &State, seat: Option<u8>) -> View {
        let mut zones = Vec::new();
        for inst in 0..self.zone_instances {
            let info = self.instances[inst as usize];
            if info.owner.is_some_and(|o| o >= st.players) {
                continue;
            }
            let z = &self.zones[info.zone as usize];
            let items = &st.zones[inst as usize];
            let sees_all = match z.visibility {
                Visibility::Public => true,
                Visibility::Owner => seat.is_some() && info.owner == seat,
                Visibility::Hidden | Visibility::Top => st.is_over(),
            };
            let visible: Vec<String> = if sees_all {
                items
                    .iter()
                    .map(|&c| show_value(self, st, crate::ir::Value::Comp(c)))
                    .collect()
            } else if z.visibility == Visibility::Top {
                items
                    .last()
                    .map(|&c| show_value(self, st, crate::ir::Value::Comp(c)))
                    .into_iter()
                    .collect()
            } else {
                Vec::new()
            };
            zones.push(ZoneView {
                zone: self.zone_instance_name(inst),
                count: items.len(),
                open: sees_all || items.is_empty(),
                visible,
            });
        }
        let mut vars = Vec::new();
        for v in &self.vars {
            for k in 0..v.count {
                let mut rest = k;
                let mut parts = Vec::new();
                let mut skip = false;
                for i in (0..v.dims.len()).rev() {
                    let x = rest % v.sizes[i];
                    rest /= v.sizes[i];
                    parts.push(match v.dims[i] {
                        crate::ir::Dim::Player => {
                            skip |= x >= st.players as u32;
                            format!("p{}", x + 1)
                        }
                        crate::ir::Dim::Enum(e) => {
                            self.enums[e as usize].values[x as usize].clone()
                        }
                        crate::ir::Dim::Board(b) => {
                            self.boards[b as usize].space_names[x as usize].clone()
                        }
                    });
                }
                if skip {
                    continue;
                }
                parts.reverse();
                let name = if parts.is_empty() {
                    v.name.clone()
                } else {
                    format!("{}[{}]", v.name, parts.join(","))
                };
                vars.push((name, show_value(self, st, st.vars[(v.base + k) as usize])));
            }
        }
        let actor = match self.actor(st) {
            Actor::Player(p) => format!("p{}", p + 1),
            Actor::Chance => "chance".into(),
            Actor::Nobody => "nobody".into(),
        };
        View {
            seat,
            current: st.current,
            actor,
            zones,
            vars,
            over: st.is_over(),
            scores: st.outcome().map(|o| o.scores.clone()),
            winners: st.outcome().map(|o| o.winners.clone()),
        }
    }
}
