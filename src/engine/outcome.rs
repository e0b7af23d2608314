//! The end of a game: `end when`, scores, tie-breakers and winners.
use super::eval::{Ctx, Env};
use super::*;
use crate::ir::*;

impl Game {
    /// Evaluates `end when` conditions; ends the game when one holds.
    pub(crate) fn check_end(&self, st: &mut State) -> Result<bool, RunError> {
        for (cond, span) in &self.end_when {
            let ctx = Ctx { g: self, s: st };
            let mut locals = [Value::None; MAX_LOCALS];
            let mut env = Env {
                locals: &mut locals,
                me: st.current.unwrap_or(0),
                depth: 0,
            };
            if ctx
                .bool(cond, &mut env)
                .map_err(|e| with_span(e, Some(*span)))?
            {
                self.finish(st, EndKind::Score, None)?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Every seat's `score` evaluated on this state, in seat order (all 0 when the game
    /// declares no `score`).
    pub fn scores(&self, st: &State) -> Result<Vec<i64>, RunError> {
        let Some(score) = &self.score else {
            return Ok(vec![0; st.players as usize]);
        };
        (0..st.players)
            .map(|p| self.player_value(st, score, p))
            .collect()
    }

    pub(crate) fn player_value(
        &self,
        st: &State,
        e: &crate::ir::Expr,
        p: u8,
    ) -> Result<i64, RunError> {
        let ctx = Ctx { g: self, s: st };
        let mut locals = vec![Value::None; self.score_locals.max(1) as usize];
        locals[0] = Value::Player(p);
        ctx.int(
            e,
            &mut Env {
                locals: &mut locals,
                me: p,
                depth: 0,
            },
        )
        .map_err(RunError::from)
    }

    pub(crate) fn finish(
        &self,
        st: &mut State,
        kind: EndKind,
        winner: Option<Value>,
    ) -> Result<(), RunError> {
        let scores = self.scores(st)?;
        let (winners, kind) = match (kind, winner) {
            (_, Some(Value::Player(p))) => (vec![p], OutcomeKind::Won),
            (_, Some(_)) => ((0..st.players).collect(), OutcomeKind::Won),
            (EndKind::Draw, _) => (vec![], OutcomeKind::Draw),
            (EndKind::Lose, _) => (vec![], OutcomeKind::Lost),
            (EndKind::Score, None) => {
                let mut keys: Vec<(u8, Vec<i64>)> = Vec::new();
                for p in 0..st.players {
                    let mut k = vec![scores[p as usize]];
                    for t in &self.tiebreaks {
                        k.push(self.player_value(st, t, p)?);
                    }
                    keys.push((p, k));
                }
                let best = keys.iter().map(|k| k.1.clone()).max().unwrap_or_default();
                let top: Vec<u8> = keys.iter().filter(|k| k.1 == best).map(|k| k.0).collect();
                if top.len() > 1 && !self.ties_shared {
                    (vec![], OutcomeKind::Draw)
                } else {
                    (top, OutcomeKind::Scored)
                }
            }
        };
        st.outcome = Some(Outcome {
            scores,
            winners,
            kind,
        });
        st.wait = Wait::Over;
        st.phase = Phase::Over;
        st.frames.clear();
        st.locals.clear();
        st.iters.clear();
        Ok(())
    }
}
