//! Lines: `line(s in board, n [, through] where ...)` walked over the board's shape, a
//! condition of one comparison of `var[s]` read in place (`SpaceCmp`).

use super::*;

impl Machine {
    /// `line(s in board, n [, at] where cond)`: `n` consecutive spaces in a straight line all
    /// meet the condition (through `at` when given).
    #[inline(never)]
    pub(in crate::engine::vm) fn line(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<bool> {
        // The condition's variable is bound to each space tested and given back its value
        // once, at the end.
        let slot = g.program.lines[id as usize].slot;
        let saved = local(locals, slot);
        let r = self.line_walk(g, s, id, locals, me);
        if let Some(l) = locals.get_mut(slot as usize) {
            *l = saved;
        }
        r
    }

    /// [`Machine::line`], leaving the condition's variable bound to the last space tested.
    #[inline(always)]
    pub(super) fn line_walk(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        locals: &mut [Value],
        me: u8,
    ) -> Eval<bool> {
        let op = &g.program.lines[id as usize];
        let through = if op.through {
            match self.pop() {
                Value::Space(_, sp) => Some(sp as i64),
                _ => {
                    self.pop();
                    return Ok(false);
                }
            }
        } else {
            None
        };
        let board = &g.boards[op.board];
        // No line is longer than the board has spaces (on a ring, a length past its size
        // is its size): a length past them is cut to one more, so that the walk's arithmetic
        // stays small whatever number the rules give.
        let n = match self.pop() {
            Value::Int(n) => n.clamp(1, board.len() as i64 + 1),
            other => return Err(expected(g, s, "a number", other, None)),
        };
        let (cond, slot) = (op.cond, op.slot);
        let closing = board.closing(&s.consts);
        // A condition that is one comparison of `var[s]` with `me`, `none` or a number is
        // resolved once and read at each space in place; each space still costs its unit
        // of work, charged together when the walk is over or before the condition goes
        // through the machine (the walk itself only reads, so the budget runs out on the
        // same walks as when it was charged space by space).
        let d = cond.and_then(|c| SpaceCmp::of(g, c, slot, me, locals));
        // On an open board whose every space the comparison reads and always decides, the
        // walk reads the variable's slots and nothing else.
        let len = board.len();
        if let Some(SpaceCmp { base, size, pred }) = d {
            let cells = s.vars.get(base as usize..(base + len) as usize);
            let fits = size >= len && !closing && through.is_none_or(|t| (t as u64) < len as u64);
            let walked = match (cells, pred) {
                (Some(cells), SpacePred::Player(p, ne)) if fits => {
                    Some(cells_walk(board, through, n, cells, move |v: &Value| {
                        ne ^ matches!(*v, Value::Player(q) if q == p)
                    }))
                }
                (Some(cells), SpacePred::None(ne)) if fits => {
                    Some(cells_walk(board, through, n, cells, move |v: &Value| {
                        ne ^ matches!(*v, Value::None)
                    }))
                }
                _ => None,
            };
            if let Some((r, count)) = walked {
                self.spend_n(count)?;
                return r;
            }
        }
        let mut walk = LineWalk {
            d,
            m: self,
            g,
            s,
            id,
            locals,
            me,
            board,
            closing,
            pending: 0,
        };
        let r = line_shape(board, through, n, &mut walk);
        let pending = walk.pending;
        self.spend_n(pending)?;
        r
    }

    /// A space of a line whose condition did not read in place: the work charged so far,
    /// then the condition through the machine.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn line_slow(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        sp: i64,
        locals: &mut [Value],
        me: u8,
        pending: &mut u64,
    ) -> Eval<bool> {
        self.spend_n(std::mem::take(pending))?;
        let op = &g.program.lines[id as usize];
        let Some(c) = op.cond else { return Ok(true) };
        if let Some(l) = locals.get_mut(op.slot as usize) {
            *l = Value::Space(op.board, sp as u32);
        }
        self.test(g, s, c, locals, me)
    }

    /// Spends `k` units of work at once: the error of [`Machine::spend`] when fewer are
    /// left (the budget then empty, as `k` single spends would have left it).
    #[inline(always)]
    pub(super) fn spend_n(&mut self, k: u64) -> Eval<()> {
        if self.fuel < k {
            self.fuel = 0;
            return Err(self.out_of_fuel(None));
        }
        self.fuel -= k;
        Ok(())
    }
}

/// A comparison of `var[s]` (`s` a walked space, the variable of one dimension) with a value
/// fixed for the walk, resolved once: the variable's slots and what they are compared with.
#[derive(Clone, Copy, Debug)]
pub(super) struct SpaceCmp {
    /// The variable's first slot.
    pub(super) base: u32,
    /// The size of its dimension.
    pub(super) size: u32,
    pub(super) pred: SpacePred,
}

/// What a [`SpaceCmp`] asks of a variable's value.
#[derive(Clone, Copy, Debug)]
pub(super) enum SpacePred {
    /// Holds this seat (does not, when the flag is set).
    Player(u8, bool),
    /// Holds `none` (does not, when the flag is set).
    None(bool),
    /// Holds a number that compares so with this one (undecided when not a number).
    Int(i64, BinOp),
}

impl SpacePred {
    #[inline(always)]
    pub(super) fn on(self, v: &Value) -> Option<bool> {
        match self {
            SpacePred::Player(p, ne) => Some(ne ^ matches!(*v, Value::Player(q) if q == p)),
            SpacePred::None(ne) => Some(ne ^ matches!(*v, Value::None)),
            SpacePred::Int(n, op) => match *v {
                Value::Int(x) => super::compare::int_cmp(op, x, n),
                _ => None,
            },
        }
    }
}

impl SpaceCmp {
    /// The fast form of `code` when it is one comparison of `var[slot]` with a value fixed
    /// for the walk ([`SpaceCmp::of_cmp`]), `me` being the seat it runs for.
    #[inline]
    pub(super) fn of(
        g: &Game,
        code: Code,
        slot: u16,
        me: u8,
        locals: &[Value],
    ) -> Option<SpaceCmp> {
        let Some(&[Op::Cmp(i)]) = g.program.ops.get(code.start as usize..code.end as usize) else {
            return None;
        };
        SpaceCmp::of_cmp(g, i, slot, me, locals)
    }

    /// The fast form of comparison `i` when it compares `var[slot]` with `me`, `none`, a
    /// small number, or another local that holds a player or `none` (a walk binds `slot`
    /// only, so the other local keeps its value for the whole walk).
    #[inline]
    pub(super) fn of_cmp(
        g: &Game,
        i: u32,
        slot: u16,
        me: u8,
        locals: &[Value],
    ) -> Option<SpaceCmp> {
        use crate::ir::vm::FastCmp;
        let (at, pred) = match *g.program.fast.get(i as usize)? {
            FastCmp::AtMe { at, ne } => (at, SpacePred::Player(me, ne)),
            FastCmp::AtNone { at, ne } => (at, SpacePred::None(ne)),
            FastCmp::AtInt { at, n, op } => (at, SpacePred::Int(n as i64, op)),
            _ => return SpaceCmp::against_local(g, i, slot, locals),
        };
        (at.slot == slot).then_some(SpaceCmp {
            base: at.base,
            size: at.size as u32,
            pred,
        })
    }

    /// `var[slot] == l` or `!=` (either side), `l` another local holding a player or `none`.
    fn against_local(g: &Game, i: u32, slot: u16, locals: &[Value]) -> Option<SpaceCmp> {
        use crate::ir::vm::Operand;
        let c = g.program.cmps.get(i as usize)?;
        let ne = match c.op {
            BinOp::Eq => false,
            BinOp::Ne => true,
            _ => return None,
        };
        let (base, size, l) = match (c.a, c.b) {
            (
                Operand::VarAt {
                    base,
                    size,
                    slot: at,
                },
                Operand::Local(l),
            )
            | (
                Operand::Local(l),
                Operand::VarAt {
                    base,
                    size,
                    slot: at,
                },
            ) if at == slot && l != slot => (base, size, l),
            _ => return None,
        };
        let pred = match *locals.get(l as usize)? {
            Value::Player(p) => SpacePred::Player(p, ne),
            Value::None => SpacePred::None(ne),
            _ => return None,
        };
        Some(SpaceCmp {
            base,
            size: size as u32,
            pred,
        })
    }

    /// The comparison at space `sp` (`None`: a space past the variable, or a slot that is
    /// not a number for a comparison of numbers: left to the general comparison).
    #[inline(always)]
    pub(super) fn at(&self, vars: &[Value], sp: u32) -> Option<bool> {
        if sp >= self.size {
            return None;
        }
        self.pred.on(vars.get((self.base + sp) as usize)?)
    }
}

/// How a `line` walk tests a space (inlined into each walk).
pub(super) trait LineTest {
    fn test(&mut self, sp: i64) -> Eval<bool>;
}

/// The test of a line whose condition always reads in place on an open board: the
/// variable's slots for the board's spaces, the question asked of each, and the count of
/// spaces tested (the units of work the caller charges).
pub(super) struct CellsTest<'a, F> {
    pub(super) cells: &'a [Value],
    pub(super) f: F,
    pub(super) count: u64,
}

impl<F: Fn(&Value) -> bool> LineTest for CellsTest<'_, F> {
    #[inline(always)]
    fn test(&mut self, sp: i64) -> Eval<bool> {
        self.count += 1;
        Ok(self.cells.get(sp as usize).is_some_and(&self.f))
    }
}

/// A `line` walk's test of a space: its fast form read in place when it has one, else the
/// condition through the machine; the units of work of the spaces tested are counted in
/// `pending` and charged by the caller.
pub(super) struct LineWalk<'a> {
    pub(super) d: Option<SpaceCmp>,
    pub(super) m: &'a mut Machine,
    pub(super) g: &'a Game,
    pub(super) s: &'a State,
    pub(super) id: u32,
    pub(super) locals: &'a mut [Value],
    pub(super) me: u8,
    pub(super) board: &'a crate::ir::Board,
    pub(super) closing: bool,
    pub(super) pending: u64,
}

impl LineTest for LineWalk<'_> {
    #[inline(always)]
    fn test(&mut self, sp: i64) -> Eval<bool> {
        self.pending += 1;
        if self.board.is_closed(sp as u32, self.closing) {
            return Ok(false);
        }
        if let Some(b) = self.d.and_then(|d| d.at(&self.s.vars, sp as u32)) {
            return Ok(b);
        }
        let (g, s, id, me) = (self.g, self.s, self.id, self.me);
        self.m
            .line_slow(g, s, id, sp, self.locals, me, &mut self.pending)
    }
}

/// A line walk over `cells` (a variable's slots for every space of the board) asking `f`
/// of each space: the answer and the number of spaces tested.
#[inline(always)]
pub(super) fn cells_walk(
    board: &crate::ir::Board,
    through: Option<i64>,
    n: i64,
    cells: &[Value],
    f: impl Fn(&Value) -> bool,
) -> (Eval<bool>, u64) {
    let mut t = CellsTest { cells, f, count: 0 };
    let r = line_shape(board, through, n, &mut t);
    (r, t.count)
}

/// The walk of `line(s in board, n [, through] where ...)` over the board's shape, `test`
/// telling whether a space (on the board) meets the condition.
#[inline(always)]
pub(super) fn line_shape(
    board: &crate::ir::Board,
    through: Option<i64>,
    n: i64,
    walk: &mut impl LineTest,
) -> Eval<bool> {
    match board.shape {
        BoardShape::Hex { .. } => {
            // The three axes of a hex board: east, northeast, northwest.
            const AXES: [u16; 3] = [2, 1, 7];
            let starts: &mut dyn Iterator<Item = u32> = match through {
                Some(t) => &mut std::iter::once(t as u32),
                None => &mut (0..board.len()),
            };
            for t in starts {
                if !walk.test(t as i64)? {
                    continue;
                }
                for d in AXES {
                    let mut run = 1;
                    // Through `t`: both ways; otherwise lines starting at `t`.
                    let ways: &[u16] = if through.is_some() {
                        &[d, crate::ir::opposite(d)]
                    } else {
                        &[d]
                    };
                    for &way in ways {
                        let mut at = t;
                        while run < n {
                            match board.step(at, way, false) {
                                Some(next) if walk.test(next as i64)? => {
                                    run += 1;
                                    at = next;
                                }
                                _ => break,
                            }
                        }
                    }
                    if run >= n {
                        return Ok(true);
                    }
                }
            }
            Ok(false)
        }
        BoardShape::Graph => {
            let geo = &board.geo;
            let Some(t) = through else {
                for line in &geo.lines {
                    let mut run = 0;
                    for &x in line {
                        run = if walk.test(x as i64)? { run + 1 } else { 0 };
                        if run >= n {
                            return Ok(true);
                        }
                    }
                }
                return Ok(false);
            };
            // Through `t`: only the lines holding it, in order, each from where `t` first
            // stands in it (`Geometry::line_at`).
            let row = |k: i64| geo.line_at_start.get(usize::try_from(k).ok()?).copied();
            let holding = match (row(t), row(t + 1)) {
                (Some(a), Some(b)) => geo.line_at.get(a as usize..b as usize).unwrap_or(&[]),
                _ => &[],
            };
            for &(l, i) in holding {
                let (line, i) = (&geo.lines[l as usize], i as usize);
                if !walk.test(t)? {
                    return Ok(false);
                }
                let mut run = 1;
                let mut k = i;
                while run < n && k + 1 < line.len() && walk.test(line[k + 1] as i64)? {
                    run += 1;
                    k += 1;
                }
                let mut k = i;
                while run < n && k > 0 && walk.test(line[k - 1] as i64)? {
                    run += 1;
                    k -= 1;
                }
                if run >= n {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        BoardShape::Grid { width, height, .. } => {
            let (w, h) = (width as i64, height as i64);
            const DIRS: [(i64, i64); 4] = [(1, 0), (0, 1), (1, 1), (-1, 1)];
            if let Some(t) = through {
                let (tx, ty) = (t % w, t / w);
                if !walk.test(t)? {
                    return Ok(false);
                }
                for (dx, dy) in DIRS {
                    let mut run = 1;
                    for sign in [1i64, -1] {
                        let mut k = 1;
                        while run < n {
                            let (x, y) = (tx + sign * dx * k, ty + sign * dy * k);
                            if x < 0 || y < 0 || x >= w || y >= h || !walk.test(y * w + x)? {
                                break;
                            }
                            run += 1;
                            k += 1;
                        }
                    }
                    if run >= n {
                        return Ok(true);
                    }
                }
                return Ok(false);
            }
            for y in 0..h {
                for x in 0..w {
                    'dir: for (dx, dy) in DIRS {
                        let (ex, ey) = (x + dx * (n - 1), y + dy * (n - 1));
                        if ex < 0 || ex >= w || ey >= h {
                            continue;
                        }
                        for k in 0..n {
                            if !walk.test((y + dy * k) * w + x + dx * k)? {
                                continue 'dir;
                            }
                        }
                        return Ok(true);
                    }
                }
            }
            Ok(false)
        }
        BoardShape::Ring { size } => {
            let size = size as i64;
            let len = n.min(size);
            // Through `t`: the runs that start at t, t - 1, ..., t - n + 1.
            let count = if through.is_some() { len } else { size };
            'start: for i in 0..count {
                let s0 = match through {
                    Some(t) => (t - i).rem_euclid(size),
                    None => i,
                };
                for k in 0..len {
                    if !walk.test((s0 + k) % size)? {
                        continue 'start;
                    }
                }
                return Ok(true);
            }
            Ok(false)
        }
    }
}
