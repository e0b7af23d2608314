//! Collections (section 6 of the reference), each listed whole, in its documented order.

use super::{limit, rule, Ref};
use crate::engine::RunError;
use crate::ir::*;

/// The most elements one collection may list here (a larger range is a limit error, as the
/// engine's work budget would stop it).
const MAX_ELEMENTS: i64 = 10_000_000;

impl Ref<'_> {
    /// The elements of a collection, in order.
    pub(super) fn elements(
        &self,
        c: &Coll,
        l: &mut [Value],
        me: u8,
    ) -> Result<Vec<Value>, RunError> {
        let out = self.listed(c, l, me)?;
        self.spend(out.len() as u64 + 1)?;
        Ok(out)
    }

    /// [`Ref::elements`] before their work is counted.
    fn listed(&self, c: &Coll, l: &mut [Value], me: u8) -> Result<Vec<Value>, RunError> {
        let g = self.g;
        Ok(match c {
            Coll::Zone(z) => {
                let inst = self.zone(z, l, me)?;
                self.s.zone(inst).into_iter().map(Value::Comp).collect()
            }
            Coll::Board(b) => self.open_spaces(*b).map(|s| Value::Space(*b, s)).collect(),
            Coll::Enum(e) => (0..g.enums[*e].values.len() as u16)
                .map(|v| Value::Enum(*e, v))
                .collect(),
            Coll::Type(t) => g
                .comps
                .ids()
                .filter(|c| g.comps[*c].ty == *t)
                .map(Value::Comp)
                .collect(),
            Coll::Players => (0..self.s.players).map(Value::Player).collect(),
            Coll::Range(a, b) => {
                let (a, b) = (self.int(a, l, me)?, self.int(b, l, me)?);
                if b >= a && (b as i128 - a as i128) >= MAX_ELEMENTS as i128 {
                    return Err(limit(format!("the range {a}..{b} is too long to list")));
                }
                (a..=b).map(Value::Int).collect()
            }
            Coll::List(xs) => {
                let mut out = Vec::with_capacity(xs.len());
                for x in xs {
                    out.push(self.eval(x, l, me)?);
                }
                out
            }
            Coll::Adjacent(x) => match self.eval(x, l, me)? {
                Value::Space(b, s) => self
                    .neighbours(b, s)
                    .into_iter()
                    .map(|t| Value::Space(b, t))
                    .collect(),
                Value::None => Vec::new(),
                other => return Err(rule(format!("expected a space, got {}", self.show(other)))),
            },
            Coll::Ray(x, d) => match self.eval(x, l, me)? {
                Value::Space(b, s) => {
                    let d = self.eval(d, l, me)?;
                    self.ray_from(b, s, d, None, l, me)?
                }
                Value::None => Vec::new(),
                other => return Err(rule(format!("expected a space, got {}", self.show(other)))),
            },
            Coll::Rays(r) => match self.eval(&r.from, l, me)? {
                Value::Space(b, s) => {
                    let mut out: Vec<Value> = Vec::new();
                    for d in &r.dirs {
                        let d = self.eval(d, l, me)?;
                        for v in self.ray_from(b, s, d, r.stop.as_ref(), l, me)? {
                            // on a ring the two ways meet: a space is listed once
                            if !out.contains(&v) {
                                out.push(v);
                            }
                        }
                    }
                    out
                }
                Value::None => Vec::new(),
                other => return Err(rule(format!("expected a space, got {}", self.show(other)))),
            },
            Coll::Paths {
                board,
                slot,
                from,
                steps,
                cond,
            } => {
                let from = self.eval(from, l, me)?;
                let n = self.int(steps, l, me)?;
                let Value::Space(_, start) = from else {
                    return Ok(Vec::new());
                };
                let walk = (*board, *slot, cond.as_ref());
                self.paths(walk, start, n, l, me)?
            }
            Coll::Group {
                board,
                slot,
                start,
                cond,
            } => match self.eval(start, l, me)? {
                Value::Space(_, s) => {
                    let members = self.group((*board, *slot, cond.as_ref()), s, l, me)?;
                    in_board_order(*board, &members)
                }
                _ => Vec::new(),
            },
            Coll::Groups { board, slot, cond } => {
                self.groups((*board, *slot, cond.as_ref()), l, me)?
            }
        })
    }

    /// The spaces of a board that are in play, in board order.
    pub(super) fn open_spaces(&self, b: BoardId) -> impl Iterator<Item = u32> + '_ {
        (0..self.g.boards[b].len()).filter(move |s| !self.closed(b, *s))
    }

    /// The neighbours of a space in play: none for a closed space, and no closed one.
    pub(super) fn neighbours(&self, b: BoardId, s: u32) -> Vec<u32> {
        let board = &self.g.boards[b];
        if s >= board.len() || self.closed(b, s) {
            return Vec::new();
        }
        (board.neighbours(s).iter().copied())
            .filter(|t| !self.closed(b, *t))
            .collect()
    }

    /// One ray from space `s` of board `b` in direction `d` (`none`: no ray): the spaces
    /// stepped onto, nearest first, until the edge, a closed space, `s` again (a ring) or
    /// its stop: `where` ends it before the first space failing the condition, `until`
    /// after the first meeting it.
    fn ray_from(
        &self,
        b: BoardId,
        s: u32,
        d: Value,
        stop: Option<&RayStop>,
        l: &mut [Value],
        me: u8,
    ) -> Result<Vec<Value>, RunError> {
        let dir = match d {
            Value::Enum(_, dir) => dir,
            Value::None => return Ok(Vec::new()),
            other => {
                return Err(rule(format!(
                    "expected a direction, got {}",
                    self.show(other)
                )))
            }
        };
        let mut out = Vec::new();
        let mut at = s;
        while let Some(t) = self.step(b, at, dir) {
            if t == s {
                break;
            }
            at = t;
            let Some(stop) = stop else {
                out.push(Value::Space(b, t));
                continue;
            };
            let met = self.meets((b, stop.slot, Some(&stop.cond)), t, l, me)?;
            if stop.until {
                out.push(Value::Space(b, t));
                if met {
                    break;
                }
            } else if met {
                out.push(Value::Space(b, t));
            } else {
                break;
            }
        }
        Ok(out)
    }

    /// Whether space `s` meets a walk's condition, with `s` bound to the walk's slot.
    pub(super) fn meets(
        &self,
        (board, slot, cond): Walk,
        s: u32,
        l: &mut [Value],
        me: u8,
    ) -> Result<bool, RunError> {
        let Some(c) = cond else { return Ok(true) };
        let Some(saved) = l.get(slot as usize).copied() else {
            return Err(rule(format!("local slot {slot} out of the frame")));
        };
        l[slot as usize] = Value::Space(board, s);
        let r = self.bool(c, l, me);
        l[slot as usize] = saved;
        r
    }

    /// `paths(s in board, from, n where c)`: the ends of the paths of exactly `n` steps
    /// from `start` between neighbours, each entered space meeting `c`, none visited
    /// twice (the start counts as visited), in board order; `n <= 0` gives the start.
    fn paths(
        &self,
        walk: Walk,
        start: u32,
        n: i64,
        l: &mut [Value],
        me: u8,
    ) -> Result<Vec<Value>, RunError> {
        let len = self.g.boards[walk.0].len() as usize;
        if n <= 0 {
            return Ok(vec![Value::Space(walk.0, start)]);
        }
        if n >= len as i64 {
            return Ok(Vec::new()); // a path visits no space twice: at most len - 1 steps
        }
        let mut ends = vec![false; len];
        let mut on_path = vec![false; len];
        let mut ok: Vec<Option<bool>> = vec![None; len];
        if let Some(v) = on_path.get_mut(start as usize) {
            *v = true;
        }
        let mut p = Paths {
            walk,
            ends: &mut ends,
            on_path: &mut on_path,
            ok: &mut ok,
        };
        self.extend_path(&mut p, start, n, l, me)?;
        Ok(in_board_order(walk.0, &ends))
    }

    /// Every simple path from `at` of `left` more steps: their ends marked.
    fn extend_path(
        &self,
        p: &mut Paths,
        at: u32,
        left: i64,
        l: &mut [Value],
        me: u8,
    ) -> Result<(), RunError> {
        if left == 0 {
            p.ends[at as usize] = true;
            return Ok(());
        }
        for t in self.neighbours(p.walk.0, at) {
            self.spend(1)?;
            let i = t as usize;
            if p.on_path[i] {
                continue;
            }
            let meets = match p.ok[i] {
                Some(b) => b,
                None => {
                    let b = self.meets(p.walk, t, l, me)?;
                    p.ok[i] = Some(b);
                    b
                }
            };
            if meets {
                p.on_path[i] = true;
                self.extend_path(p, t, left - 1, l, me)?;
                p.on_path[i] = false;
            }
        }
        Ok(())
    }

    /// `group(s in board, start where c)`: the spaces meeting `c` connected to `start`
    /// through spaces meeting it, as a flag per space (none when `start` is closed or fails
    /// `c`).
    pub(super) fn group(
        &self,
        walk: Walk,
        start: u32,
        l: &mut [Value],
        me: u8,
    ) -> Result<Vec<bool>, RunError> {
        let len = self.g.boards[walk.0].len() as usize;
        let mut member = vec![false; len];
        if start as usize >= len || self.closed(walk.0, start) || !self.meets(walk, start, l, me)? {
            return Ok(member);
        }
        let mut looked = vec![false; len];
        looked[start as usize] = true;
        member[start as usize] = true;
        let mut todo = vec![start];
        while let Some(s) = todo.pop() {
            for t in self.neighbours(walk.0, s) {
                if !looked[t as usize] {
                    looked[t as usize] = true;
                    if self.meets(walk, t, l, me)? {
                        member[t as usize] = true;
                        todo.push(t);
                    }
                }
            }
        }
        Ok(member)
    }

    /// `groups(s in board where c)`: the first space (in board order) of every maximal
    /// group of connected spaces meeting `c`, in board order.
    fn groups(&self, walk: Walk, l: &mut [Value], me: u8) -> Result<Vec<Value>, RunError> {
        let len = self.g.boards[walk.0].len() as usize;
        let mut taken = vec![false; len];
        let mut out = Vec::new();
        for s in self.open_spaces(walk.0).collect::<Vec<_>>() {
            if taken[s as usize] || !self.meets(walk, s, l, me)? {
                continue;
            }
            out.push(Value::Space(walk.0, s));
            for (t, m) in self.group(walk, s, l, me)?.into_iter().enumerate() {
                taken[t] |= m;
            }
        }
        Ok(out)
    }
}

/// A walk over a board: the board, the local slot its condition reads the space from, and
/// the condition (`None`: every space).
pub(super) type Walk<'e> = (BoardId, u16, Option<&'e Expr>);

/// The state of a walk of paths.
struct Paths<'w, 'e> {
    walk: Walk<'e>,
    ends: &'w mut [bool],
    on_path: &'w mut [bool],
    ok: &'w mut [Option<bool>],
}

/// The spaces flagged, in board order.
fn in_board_order(b: BoardId, flags: &[bool]) -> Vec<Value> {
    (flags.iter().enumerate())
        .filter(|(_, f)| **f)
        .map(|(s, _)| Value::Space(b, s as u32))
        .collect()
}
