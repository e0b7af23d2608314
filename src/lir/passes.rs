//! Passes over the low-level IR, each keeping what a function computes (its result or its
//! failure) for every state it may run on:
//!
//! - [`specialise`]: the facts of one match folded in: the number of seats and the
//!   constants' values (variants applied) become constants;
//! - [`fold`]: instructions whose operands are all constants and that cannot fail become
//!   constants; a branch on a constant becomes a jump;
//! - [`dce`]: blocks no path reaches are removed, and instructions nothing reads that can
//!   neither fail nor read the state.

use super::*;

/// What is known of one match before it starts.
pub struct Facts<'a> {
    /// The number of seats.
    pub players: u8,
    /// Every constant's value in this match.
    pub consts: &'a [Value],
}

/// Folds the facts of a match into `f`. Returns the number of instructions changed.
pub fn specialise(f: &mut Func, facts: &Facts) -> usize {
    let mut changed = 0;
    let regs = f.regs.clone();
    for b in &mut f.blocks {
        for inst in &mut b.insts {
            let Inst::Read { dst, what } = *inst else {
                continue;
            };
            let value = match what {
                Read::PlayerCount => Some(facts.players as i64),
                Read::Const(c) => facts
                    .consts
                    .get(c.0 as usize)
                    .and_then(|v| regs[dst.0 as usize].encode(*v)),
                Read::Me | Read::Current => None,
            };
            if let Some(value) = value {
                *inst = Inst::Const { dst, value };
                changed += 1;
            }
        }
    }
    changed
}

/// An environment for instructions that read nothing of the state.
struct NoState;

impl interp::Env for NoState {
    fn var(&self, _: u32) -> Value {
        Value::None
    }
    fn field(&self, _: crate::ir::CompId, _: u16) -> Value {
        Value::None
    }
    fn me(&self) -> u8 {
        0
    }
    fn current(&self) -> Option<u8> {
        None
    }
    fn players(&self) -> u8 {
        0
    }
    fn constant(&self, _: ConstId) -> Value {
        Value::None
    }
    fn zone_len(&self, _: crate::ir::InstId) -> u32 {
        0
    }
    fn twin_below(&self, _: crate::ir::CompId) -> bool {
        false
    }
    fn zone_end(&self, _: crate::ir::InstId, _: bool) -> Option<crate::ir::CompId> {
        None
    }
    fn place(&self, _: crate::ir::CompId) -> crate::ir::InstId {
        crate::ir::InstId(0)
    }
    fn zone_at(&self, _: crate::ir::InstId, _: u32) -> Option<crate::ir::CompId> {
        None
    }
}

/// Constant folding within blocks. Returns the number of instructions and ends changed.
pub fn fold(f: &mut Func, g: &crate::ir::Game) -> usize {
    let mut changed = 0;
    let mut known: Vec<Option<i64>> = vec![None; f.regs.len()];
    let mut regs = vec![0i64; f.regs.len()];
    let snapshot = f.clone();
    for b in &mut f.blocks {
        for inst in &mut b.insts {
            if let Inst::Const { dst, value } = *inst {
                known[dst.0 as usize] = Some(value);
                regs[dst.0 as usize] = value;
                continue;
            }
            let pure = matches!(
                inst,
                Inst::Arith { .. }
                    | Inst::Neg { .. }
                    | Inst::Cmp { .. }
                    | Inst::Not { .. }
                    | Inst::Index { .. }
            );
            let mut all = true;
            inst.uses(&mut |r| all &= known[r.0 as usize].is_some());
            if !(pure && all) {
                continue;
            }
            // A folded instruction must not fail: one that would is left to fail when run.
            if let Ok(value) =
                interp::step(&snapshot, g, &mut rt::Rt::new(g, &NoState, 0), &regs, inst)
            {
                let dst = inst.dst();
                *inst = Inst::Const { dst, value };
                known[dst.0 as usize] = Some(value);
                regs[dst.0 as usize] = value;
                changed += 1;
            }
        }
        if let Term::Branch { cond, yes, no } = &b.term {
            match known[cond.0 as usize] {
                Some(1) => {
                    b.term = Term::Jump(yes.clone());
                    changed += 1;
                }
                Some(0) => {
                    b.term = Term::Jump(no.clone());
                    changed += 1;
                }
                _ => {}
            }
        }
    }
    changed
}

/// Removes blocks no path from the entry reaches, and instructions whose result nothing
/// reads and that can neither fail nor read the state. Returns the number removed.
pub fn dce(f: &mut Func) -> usize {
    let mut removed = 0;
    // Reachable blocks, renumbered in their order.
    let mut seen = vec![false; f.blocks.len()];
    let mut stack = vec![0usize];
    while let Some(b) = stack.pop() {
        if std::mem::replace(&mut seen[b], true) {
            continue;
        }
        stack.extend(f.blocks[b].term.targets().iter().map(|t| t.0 as usize));
    }
    let mut map = vec![u32::MAX; f.blocks.len()];
    let mut kept = vec![];
    for (i, b) in std::mem::take(&mut f.blocks).into_iter().enumerate() {
        if seen[i] {
            map[i] = kept.len() as u32;
            kept.push(b);
        } else {
            removed += 1;
        }
    }
    let renumber = |t: &mut Target| t.block = BlockId(map[t.block.0 as usize]);
    for b in &mut kept {
        match &mut b.term {
            Term::Jump(t) => renumber(t),
            Term::Branch { yes, no, .. } => {
                renumber(yes);
                renumber(no);
            }
            Term::Return(_) | Term::Fail(_) => {}
        }
    }
    f.blocks = kept;
    // Unread instructions, until none is left (removing one may leave its operands unread).
    loop {
        let mut read = vec![false; f.regs.len()];
        for b in &f.blocks {
            for inst in &b.insts {
                inst.uses(&mut |r| read[r.0 as usize] = true);
            }
            b.term.uses(&mut |r| read[r.0 as usize] = true);
        }
        let before = removed;
        for b in &mut f.blocks {
            b.insts.retain(|inst| {
                let keep = read[inst.dst().0 as usize] || inst.may_fail();
                if !keep {
                    removed += 1;
                }
                keep
            });
        }
        if removed == before {
            return removed;
        }
    }
}
