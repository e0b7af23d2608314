//! Rays in several directions, and rays that stop: `ray(s, [d, ...])`,
//! `ray(t in board, s, d where c)`, `ray(t in board, s, d until c)` ([`crate::ir::Rays`]).

use super::*;

impl Machine {
    /// Pops the directions and the start space of [`Program::rays`]`[id]` and pushes an
    /// iterator over the spaces of its rays, in order: each ray from the start (excluded)
    /// stepping in its direction until the edge, a closed space or the start again (on a
    /// ring), or its condition stops it. One unit of work per space stepped onto.
    pub(super) fn rays(
        &mut self,
        g: &Game,
        s: &State,
        id: u32,
        locals: &mut [Value],
        me: u8,
        span: Option<Span>,
    ) -> Eval<()> {
        let op = &g.program.rays[id as usize];
        let n = op.dirs as usize;
        let base = self.stack.len().saturating_sub(n);
        let from = base.checked_sub(1).map_or(Value::None, |i| self.stack[i]);
        let start_buf = self.buf.len();
        let result = match from {
            Value::Space(b, start) => (base..base + n).try_for_each(|i| {
                let d = self.stack.get(i).copied().unwrap_or_default();
                self.ray(g, s, (id, b, start), (d, start_buf), locals, me, span)
            }),
            Value::None => Ok(()),
            other => Err(expected(g, s, "a space", other, span)),
        };
        self.stack.truncate(base.saturating_sub(1));
        if let Err(e) = result {
            self.buf.truncate(start_buf);
            return Err(e);
        }
        self.iters.push(Iter::Buf {
            start: start_buf as u32,
            pos: start_buf as u32,
            end: self.buf.len() as u32,
        });
        Ok(())
    }

    /// One ray of [`Machine::rays`], from space `start` of board `b`, its spaces pushed on
    /// the buffer (on a ring, a space listed since `listed` is not listed again).
    #[allow(clippy::too_many_arguments)]
    fn ray(
        &mut self,
        g: &Game,
        s: &State,
        (id, b, start): (u32, BoardId, u32),
        (d, listed): (Value, usize),
        locals: &mut [Value],
        me: u8,
        span: Option<Span>,
    ) -> Eval<()> {
        let dir = match d {
            Value::Enum(_, dir) => dir,
            Value::None => return Ok(()),
            other => return Err(expected(g, s, "a direction", other, span)),
        };
        let op = &g.program.rays[id as usize];
        let board = &g.boards[b];
        let closing = board.closing(&s.consts);
        let ring = matches!(board.shape, BoardShape::Ring { .. });
        let first = self.buf.len();
        let mut at = start;
        while let Some(t) = board.step(at, dir, closing) {
            if t == start {
                break;
            }
            self.spend(span)?;
            at = t;
            let v = Value::Space(b, t);
            let (take, go_on) = match op.cond {
                None => (true, true),
                Some(code) => {
                    if let Some(l) = locals.get_mut(op.slot as usize) {
                        *l = v;
                    }
                    let met = self.test(g, s, code, locals, me)?;
                    if op.until {
                        (true, !met)
                    } else {
                        (met, met)
                    }
                }
            };
            if take && !(ring && self.buf[listed..first].contains(&v)) {
                self.buf.push(v);
            }
            if !go_on {
                break;
            }
        }
        Ok(())
    }
}
