//! The winner's lines: the `line(s in board, n where v[s] == x)` tests the rules make, and the
//! runs of `n` spaces where the winner's value stands once the game is over.

use super::*;

/// The lines the rules test: each `line(s in board, n where v[s] == x)` written anywhere (an
/// `if`, a function, a guard, an `end when`) whose length is written as a number and whose condition is one comparison of a variable indexed by the board alone at the
/// bound space: (board, n, v). The page highlights, once the game is over, the runs of n
/// spaces where `v` holds the one winner, the lines that made the result in the games that
/// win by a line (a winner's mills on a mill board too, where the result came otherwise).
pub fn line_tests(g: &Game) -> Vec<(crate::ir::BoardId, u32, crate::ir::VarId)> {
    use crate::ir::{AggKind, BinOp, Coll, Expr, Instr, Value};
    let mut out = Vec::new();
    let mut look = |e: &Expr| {
        e.visit(&mut |x| {
            let Expr::Agg(a, _) = x else { return };
            let (AggKind::Line, [bind], Some(len), Some(filter)) = (
                a.kind,
                a.binds.as_slice(),
                a.args.first(),
                a.filter.as_ref(),
            ) else {
                return;
            };
            let Coll::Board(b) = bind.coll else { return };
            let Expr::Lit(Value::Int(n)) = *len else {
                return;
            };
            let Expr::Bin(BinOp::Eq, lhs, _, _) = filter else {
                return;
            };
            let Expr::Var(v, ix) = &**lhs else { return };
            let at_bound = matches!(ix.as_slice(), [Expr::Local(l)] if *l == bind.slot);
            if at_bound && g.vars[*v].dims == [Dim::Board(b)] && (2..=64).contains(&n) {
                out.push((b, n as u32, *v));
            }
        })
    };
    for (e, _) in &g.end_when {
        look(e);
    }
    for d in g.defs.iter() {
        look(&d.body);
    }
    for a in g.actions.iter() {
        if let Some(e) = &a.guard {
            look(e);
        }
    }
    for p in g.procs.iter() {
        for i in &p.code {
            match i {
                Instr::JumpIfNot(e, _, _) | Instr::Let(_, e, _) => look(e),
                Instr::Assign { value, .. } => look(value),
                _ => {}
            }
        }
    }
    out.sort_unstable_by_key(|&(b, n, v)| (b.0, n, v.0));
    out.dedup();
    out
}

/// The runs of `n` spaces in a straight line on a board, as the rules' `line` counts them: on
/// a grid along north, northeast, east and northwest; on a hex board along east, northeast and
/// northwest; around a ring; along a graph board's declared lines.
pub(super) fn runs(board: &crate::ir::Board, n: u32) -> Vec<Vec<u32>> {
    use crate::ir::{DIRECTION_COUNT, NO_SPACE};
    let along = |s: u32, d: usize| -> Option<Vec<u32>> {
        let mut run = vec![s];
        let mut at = s;
        while (run.len() as u32) < n {
            let t = *board.geo.steps.get(at as usize * DIRECTION_COUNT + d)?;
            if t == NO_SPACE {
                return None;
            }
            run.push(t);
            at = t;
        }
        Some(run)
    };
    let axes: &[usize] = match board.shape {
        BoardShape::Grid { .. } => &[0, 1, 2, 7],
        BoardShape::Hex { .. } => &[2, 1, 7],
        BoardShape::Ring { .. } | BoardShape::Graph => &[],
    };
    match board.shape {
        BoardShape::Grid { .. } | BoardShape::Hex { .. } => (0..board.len())
            .flat_map(|s| axes.iter().filter_map(move |&d| along(s, d)))
            .collect(),
        BoardShape::Ring { size } => (0..size)
            .map(|s| (0..n).map(|k| (s + k) % size).collect())
            .collect(),
        BoardShape::Graph => board
            .geo
            .lines
            .iter()
            .filter(|l| n as usize <= l.len())
            .flat_map(|l| l.windows(n as usize).map(|w| w.to_vec()))
            .collect(),
    }
}
