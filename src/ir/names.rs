//! Names of things as players read them: spaces, components, values. Used by the checker
//! (`named("...")`), by messages and by canonical action texts.

use super::{CompId, Game, NamePart, Value};

impl Game {
    /// The name of a component from its initial field values (what `named("...")` matches).
    pub fn comp_static_name(&self, c: CompId) -> Option<String> {
        let comp = self.comps.get(c)?;
        let mut s = String::new();
        for p in &comp.name {
            match p {
                NamePart::Text(t) => s.push_str(t),
                NamePart::Field(f) => {
                    s.push_str(&self.show_static(comp.fields[*f as usize]));
                }
            }
        }
        Some(s)
    }

    /// A value as text, without a state (components named from their initial fields).
    pub fn show_static(&self, v: Value) -> String {
        match v {
            Value::None => "none".into(),
            Value::Int(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Player(p) => player_name(p),
            Value::Enum(e, i) => self.enums[e].values[i as usize].clone(),
            Value::Comp(c) => self.comp_static_name(c).unwrap_or_default(),
            Value::Space(b, s) => self.boards[b].space_names[s as usize].clone(),
            Value::Zone(z) => self.zone_instance_name(z),
            Value::Action(a) => self.actions[a].name.clone(),
        }
    }
}

/// The name of a seat counted from 0: `p1` is seat 0.
pub fn player_name(p: u8) -> String {
    format!("p{}", p as u16 + 1)
}

/// The name of grid column `x` (from 0): `a`..`z`, then `aa`, `ab`, ... (space `b3` is column
/// 1, row 3).
pub fn col_name(x: u32) -> String {
    let mut s = String::new();
    let mut n = x as u64 + 1;
    while n > 0 {
        let r = (n - 1) % 26;
        s.insert(0, (b'a' + r as u8) as char);
        n = (n - 1) / 26;
    }
    s
}

/// FNV-1a: a stable hash of the rules text, the same on every machine.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}
