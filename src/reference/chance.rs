//! Chance outcomes in external chance mode (section 4.2 of the reference).

use super::Ref;
use crate::engine::{RunError, State, Wait};
use crate::ir::*;
use std::collections::HashMap;

/// The outcomes of the chance event `st` waits for, each with its text (`chance 4`,
/// `chance red-7`) and weight, in the order each first appears: a roll's elements of its
/// domain, equal ones merged; the next component of a shuffle (its positions are filled
/// from the top down, so any of the components not placed yet), interchangeable ones (one
/// type, equal fields) merged. `None`: no chance event waits, or one the reference does not
/// read.
pub fn chance_outcomes(g: &Game, st: &State) -> Result<Option<Vec<(String, u32)>>, RunError> {
    let (Wait::Chance, Some(frame)) = (st.wait, st.frames.last()) else {
        return Ok(None);
    };
    let work = std::cell::Cell::new(0);
    let r = Ref::new(g, st, &work);
    let mut l = [Value::None; MAX_LOCALS];
    let n = (g.procs[frame.proc].locals as usize).min(MAX_LOCALS);
    let base = frame.base as usize;
    if let Some(src) = st.locals.get(base..base + n) {
        l[..n].copy_from_slice(src);
    }
    let values = match g.procs[frame.proc].code.get(frame.pc as usize) {
        Some(Instr::Roll { domain, .. }) => r.elements(domain, &mut l, frame.me)?,
        Some(Instr::Shuffle { zone, .. }) => {
            let items = st.zone(r.zone(zone, &mut l, frame.me)?);
            let open = items.len().saturating_sub(st.chance_step as usize);
            items[..open].iter().map(|c| Value::Comp(*c)).collect()
        }
        _ => return Ok(None),
    };
    let mut out: Vec<(Value, u32)> = Vec::new();
    let mut seen: HashMap<Value, usize> = HashMap::new();
    for v in values {
        let at = match v {
            Value::Comp(_) => out.iter().position(|(o, _)| r.same_outcome(*o, v)),
            _ => seen.get(&v).copied(),
        };
        match at {
            Some(i) => out[i].1 += 1,
            None => {
                seen.insert(v, out.len());
                out.push((v, 1));
            }
        }
    }
    Ok(Some(
        out.into_iter()
            .map(|(v, w)| (format!("chance {}", r.show(v)), w))
            .collect(),
    ))
}

impl Ref<'_> {
    /// Two outcomes of one chance event are one: equal values, or components of one type
    /// and place with equal fields.
    fn same_outcome(&self, a: Value, b: Value) -> bool {
        match (a, b) {
            (Value::Comp(x), Value::Comp(y)) => {
                let (g, s) = (self.g, self.s);
                let ty = g.comps[x].ty;
                ty == g.comps[y].ty
                    && self.place_of(x) == self.place_of(y)
                    && (0..g.types[ty].fields.len() as u16)
                        .all(|f| s.field(x, f, g) == s.field(y, f, g))
            }
            _ => a == b,
        }
    }
}
