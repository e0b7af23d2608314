//! What is known of each register before its native code is built: never none, or below a
//! bound.

use super::*;

/// What is known of each register before the code is built: whether it never holds none
/// (comparisons, checked arithmetic, indexes, constants other than none, and a block's
/// parameter whose every argument is such), and a bound its number is below (a flat index:
/// the product of its sizes).
pub(super) fn facts(f: &Func) -> (Vec<bool>, Vec<Option<u64>>) {
    let n = f.regs.len();
    let (mut sure, mut below) = (vec![false; n], vec![None::<u64>; n]);
    for b in &f.blocks {
        for inst in &b.insts {
            let d = inst.dst().0 as usize;
            sure[d] = match *inst {
                Inst::Const { dst, value } => value != f.ty(dst).none(),
                Inst::Arith { op, .. } => op != Arith::Pow,
                Inst::Cmp { .. }
                | Inst::Not { .. }
                | Inst::Neg { .. }
                | Inst::Index { .. }
                | Inst::Twin { .. }
                | Inst::Class { .. }
                | Inst::Closed { .. }
                | Inst::Seek { .. }
                | Inst::NextMarked { .. }
                | Inst::Held {
                    what: Held::Empty | Held::Count,
                    ..
                } => true,
                _ => false,
            };
            if let Inst::Index { acc, size, .. } = *inst {
                below[d] = match acc {
                    None => Some(size as u64),
                    Some(a) => below[a.0 as usize].and_then(|k| k.checked_mul(size as u64)),
                };
            }
        }
    }
    // A parameter is sure when every argument passed to it is: grown to a fixed point.
    loop {
        let mut changed = false;
        let mut all = vec![true; n];
        let mut seen = vec![false; n];
        for b in &f.blocks {
            let targets = match &b.term {
                Term::Jump(t) => vec![t],
                Term::Branch { yes, no, .. } => vec![yes, no],
                Term::Return(_) | Term::Fail(_) => vec![],
            };
            for t in targets {
                let params = &f.blocks[t.block.0 as usize].params;
                for (p, a) in params.iter().zip(&t.args) {
                    seen[p.0 as usize] = true;
                    all[p.0 as usize] &= sure[a.0 as usize];
                }
            }
        }
        for r in 0..n {
            if seen[r] && all[r] && !sure[r] {
                sure[r] = true;
                changed = true;
            }
        }
        if !changed {
            return (sure, below);
        }
    }
}
