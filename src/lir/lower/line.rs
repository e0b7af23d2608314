//! `line(s in board, n [, at] where c)` on a grid or a graph board, its length written as a
//! number: the runs of `n` spaces walked in the reference's order (every run by its first
//! space, then by axis: north, northeast, east, northwest on a grid; a graph's declared lines
//! in order, then by position), each run's spaces tested in order up to the first that fails
//! the condition. A space tested twice gives the same answer (the state does not change while
//! a function runs), so the first failure, and the answer, are the reference's.
//!
//! Through a space `at`, the runs holding it are the runs starting `k` steps back from it
//! (`k < n`) along each axis: on a grid their first spaces lie at fixed offsets from `at`'s
//! index, so they are sorted once, here, by offset and axis, and each is tested only when it
//! fits on the board (bounds on `at`'s column and row).

use super::*;
use crate::ir::{BoardShape, Coll, Value};

/// The most spaces a lowered `line` may test written out (runs times length; a graph's
/// runs are written out one by one): past it, the engine walks the board its own way.
const MAX_LINE_TESTS: i64 = 4096;

/// A grid's axes as the reference walks them (north, northeast, east, northwest): the
/// column and row steps.
const AXES: [(i64, i64); 4] = [(0, 1), (1, 1), (1, 0), (-1, 1)];

impl Lower<'_> {
    /// `line`: a truth value, or `Err` for a board or length not lowered.
    pub(super) fn line(&mut self, a: &crate::ir::Agg) -> Result<Reg, String> {
        let (Some(bind), Some(n)) = (a.binds.first(), a.args.first()) else {
            return Err("a line without a binding or a length".into());
        };
        let Coll::Board(b) = bind.coll else {
            return Err("a line over something that is not a board".into());
        };
        let board = &self.g.boards[b];
        if board.geo.closed.iter().any(|&c| c) {
            return Err("a line on a board with closed spaces".into());
        }
        if Ty::of(bind.ty) != Some(Ty::Space(b)) {
            return Err("a line's spaces bound as another type".into());
        }
        let Expr::Lit(Value::Int(n)) = n else {
            return Err("a line whose length is not written as a number".into());
        };
        let n = (*n).max(1);
        if n > MAX_LINE_TESTS {
            return Err("a line longer than native code writes out".into());
        }
        // Refused before anything is written; a grid's width and height, or none for a graph.
        let grid = match board.shape {
            BoardShape::Grid { width, height, .. } => Some((width as i64, height as i64)),
            BoardShape::Graph => None,
            _ => return Err("a line on a ring or a hex board".into()),
        };
        let at = match a.args.get(1) {
            Some(x) => {
                let r = self.expr(x)?;
                if self.f.ty(r) != Ty::Space(b) {
                    return Err("a line through something that is not a space of its board".into());
                }
                Some(r)
            }
            None => None,
        };
        let walk = Walk {
            board: b,
            slot: bind.slot,
            filter: a.filter.as_ref(),
            n,
        };
        let found = self.f.reg(Ty::Bool);
        let done = self.block(vec![found]);
        let mark = self.hoist(a)?;
        // Through none: no line (as the reference says).
        if let Some(t) = at {
            let none = self.konst(Ty::Space(b), ID_NONE);
            let is_none = self.cmp(Cmp::Eq, t, none);
            let go = self.block(vec![]);
            let no = self.konst(Ty::Bool, 0);
            self.branch(is_none, (done, vec![no]), (go, vec![]));
            self.cur = go;
        }
        let r = match (grid, at) {
            (Some(size), None) => self.grid_line(&walk, size, done),
            (Some(size), Some(t)) => self.grid_line_through(&walk, size, t, done),
            (None, _) => self.graph_line(&walk, at, done),
        };
        self.unhoist(mark);
        r?;
        self.cur = done;
        Ok(found)
    }

    /// Every run of a grid, by first space then axis: a loop over the spaces, the four axes
    /// written out in it.
    fn grid_line(&mut self, w: &Walk, size: (i64, i64), done: usize) -> Result<(), String> {
        let (width, height) = size;
        let len = width * height;
        let zero = self.konst(Ty::Int, 0);
        let s = self.f.reg(Ty::Int);
        let head = self.block(vec![s]);
        self.goto(head, vec![zero]);
        self.cur = head;
        self.while_below(s, len, done, 0);
        let wr = self.konst(Ty::Int, width);
        let (x, y) = (self.num(Arith::Mod, s, wr), self.num(Arith::Div, s, wr));
        for axis in AXES {
            self.grid_run(w, (x, y), size, (axis, 0), (s, 0), done)?;
        }
        let one = self.konst(Ty::Int, 1);
        let s1 = self.num(Arith::Add, s, one);
        self.goto(head, vec![s1]);
        Ok(())
    }

    /// The runs of a grid through space `t`, sorted by first space then axis; each tested
    /// when it fits on the board.
    fn grid_line_through(
        &mut self,
        w: &Walk,
        size: (i64, i64),
        t: Reg,
        done: usize,
    ) -> Result<(), String> {
        let width = size.0;
        if 4 * w.n * w.n > MAX_LINE_TESTS {
            return Err("a line longer than native code writes out".into());
        }
        let mut runs: Vec<(i64, usize, i64)> = vec![];
        for k in 0..w.n {
            for (axis, (dx, dy)) in AXES.iter().enumerate() {
                runs.push((-k * (dy * width + dx), axis, k));
            }
        }
        runs.sort();
        let ti = self.f.reg(Ty::Int);
        self.push(Inst::Cast { dst: ti, a: t });
        let wr = self.konst(Ty::Int, width);
        let (x, y) = (self.num(Arith::Mod, ti, wr), self.num(Arith::Div, ti, wr));
        for (offset, axis, k) in runs {
            self.grid_run(w, (x, y), size, (AXES[axis], k), (ti, offset), done)?;
        }
        let no = self.konst(Ty::Bool, 0);
        self.goto(done, vec![no]);
        Ok(())
    }

    /// A graph's runs: each window of `n` spaces of each declared line, in order, written
    /// out (through `t`: only the windows holding it).
    fn graph_line(&mut self, w: &Walk, at: Option<Reg>, done: usize) -> Result<(), String> {
        let lines = &self.g.boards[w.board].geo.lines;
        let windows: i64 = (lines.iter())
            .map(|l| (l.len() as i64 - w.n + 1).max(0) * w.n)
            .sum();
        if windows > MAX_LINE_TESTS {
            return Err("a line over more runs than native code writes out".into());
        }
        let runs: Vec<Vec<u32>> = (lines.iter())
            .filter(|l| l.len() as i64 >= w.n)
            .flat_map(|l| l.windows(w.n as usize).map(|x| x.to_vec()))
            .collect();
        for run in runs {
            let next = self.block(vec![]);
            if let Some(t) = at {
                // Whether the run holds `t`: a test of each of its spaces.
                let holds = self.block(vec![]);
                for &sp in &run {
                    let c = self.konst(Ty::Space(w.board), sp as i64);
                    let same = self.cmp(Cmp::Eq, t, c);
                    let other = self.block(vec![]);
                    self.branch(same, (holds, vec![]), (other, vec![]));
                    self.cur = other;
                }
                self.goto(next, vec![]);
                self.cur = holds;
            }
            for &sp in &run {
                let s = self.konst(Ty::Space(w.board), sp as i64);
                self.space_test(w, s, next)?;
            }
            let yes = self.konst(Ty::Bool, 1);
            self.goto(done, vec![yes]);
            self.cur = next;
        }
        let no = self.konst(Ty::Bool, 0);
        self.goto(done, vec![no]);
        Ok(())
    }

    /// The run along `axis` whose first space lies `k` steps back from the space at column
    /// `x`, row `y` (index `base`), at index `base + offset`: tested when it fits on the board
    /// (to `done` with true when every space passes); the lowering goes on after it.
    fn grid_run(
        &mut self,
        w: &Walk,
        (x, y): (Reg, Reg),
        (width, height): (i64, i64),
        ((dx, dy), k): ((i64, i64), i64),
        (base, offset): (Reg, i64),
        done: usize,
    ) -> Result<(), String> {
        let (bx, by) = (bounds(dx, k, w.n, width), bounds(dy, k, w.n, height));
        if bx.0 > bx.1 || by.0 > by.1 {
            return Ok(());
        }
        let next = self.block(vec![]);
        self.fits(x, bx, width, next);
        self.fits(y, by, height, next);
        let start = if offset == 0 {
            base
        } else {
            let off = self.konst(Ty::Int, offset);
            self.num(Arith::Add, base, off)
        };
        self.run_test(w, start, dy * width + dx, next, done)?;
        self.cur = next;
        Ok(())
    }

    /// Goes on where `lo <= x <= hi` (`x` a coordinate below `size`); to `next` where not.
    fn fits(&mut self, x: Reg, (lo, hi): (i64, i64), size: i64, next: usize) {
        for (op, bound, needed) in [(Cmp::Ge, lo, lo > 0), (Cmp::Le, hi, hi < size - 1)] {
            if !needed {
                continue;
            }
            let c = self.cmp_const(op, x, bound);
            let go = self.block(vec![]);
            self.branch(c, (go, vec![]), (next, vec![]));
            self.cur = go;
        }
    }

    /// The run of `n` spaces from index `start`, `delta` apart: each tested in order (to
    /// `next` at the first that fails); all passing, a line (to `done` with true).
    fn run_test(
        &mut self,
        w: &Walk,
        start: Reg,
        delta: i64,
        next: usize,
        done: usize,
    ) -> Result<(), String> {
        let zero = self.konst(Ty::Int, 0);
        let (j, sp) = (self.f.reg(Ty::Int), self.f.reg(Ty::Int));
        let head = self.block(vec![j, sp]);
        self.goto(head, vec![zero, start]);
        self.cur = head;
        self.while_below(j, w.n, done, 1);
        let s = self.f.reg(Ty::Space(w.board));
        self.push(Inst::Cast { dst: s, a: sp });
        self.space_test(w, s, next)?;
        let one = self.konst(Ty::Int, 1);
        let d = self.konst(Ty::Int, delta);
        let (j1, sp1) = (self.num(Arith::Add, j, one), self.num(Arith::Add, sp, d));
        self.goto(head, vec![j1, sp1]);
        Ok(())
    }

    /// The condition at space `s` (bound to the walk's local): goes on where it holds, to
    /// `next` where not.
    fn space_test(&mut self, w: &Walk, s: Reg, next: usize) -> Result<(), String> {
        let Some(c) = w.filter else {
            return Ok(());
        };
        let skip = self.with_local(w.slot, s, |l| {
            l.test(c, "a line's condition that is not a truth value")
        })?;
        let here = self.cur;
        self.cur = skip;
        self.goto(next, vec![]);
        self.cur = here;
        Ok(())
    }

    /// At a loop's head: into its body while `i < bound`; past it, to `done` with the truth
    /// value `result`.
    fn while_below(&mut self, i: Reg, bound: i64, done: usize, result: i64) {
        let more = self.cmp_const(Cmp::Lt, i, bound);
        let body = self.block(vec![]);
        let over = self.block(vec![]);
        self.branch(more, (body, vec![]), (over, vec![]));
        self.cur = over;
        let r = self.konst(Ty::Bool, result);
        self.goto(done, vec![r]);
        self.cur = body;
    }

    /// `x op value`, a truth value.
    fn cmp_const(&mut self, op: Cmp, x: Reg, value: i64) -> Reg {
        let c = self.konst(Ty::Int, value);
        self.cmp(op, x, c)
    }
}

/// What a `line` walks: its board, the local its condition binds, the condition, the length.
struct Walk<'a> {
    board: crate::ir::BoardId,
    slot: u16,
    filter: Option<&'a Expr>,
    n: i64,
}

/// The bounds of a coordinate (of `size`) of the space a run starting `k` steps back along
/// a step of `d` in it passes through, for the run's `n` spaces to lie on the board.
fn bounds(d: i64, k: i64, n: i64, size: i64) -> (i64, i64) {
    match d {
        1 => (k, size - n + k),
        -1 => (n - 1 - k, size - 1 - k),
        _ => (0, size - 1),
    }
}
