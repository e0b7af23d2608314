//! The end of a game: `end when`, scores, tie-breakers and winners.

use super::vm::{with_machine, Machine};
use super::*;
use crate::ir::vm::Code;
use crate::ir::*;

impl Game {
    /// Evaluates `end when` conditions; ends the game when one holds.
    pub(crate) fn check_end_m(&self, m: &mut Machine, st: &mut State) -> Result<bool, RunError> {
        let me = st.current.unwrap_or(0);
        for (cond, span) in &self.program.end_when {
            let mut locals = [Value::None; MAX_LOCALS];
            if m.eval_bool(self, st, *cond, &mut locals, me)
                .blame(Some(*span))?
            {
                self.finish_m(m, st, EndKind::Score, None)?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Every seat's `score` evaluated on this state, in seat order (all 0 when the game
    /// declares no `score`).
    pub fn scores(&self, st: &State) -> Result<Vec<i64>, RunError> {
        with_machine(st.fuel, |m| self.scores_m(m, st))
    }

    fn scores_m(&self, m: &mut Machine, st: &State) -> Result<Vec<i64>, RunError> {
        let Some(score) = self.program.score else {
            return Ok(vec![0; st.players as usize]);
        };
        (0..st.players)
            .map(|p| self.player_value(m, st, score, p))
            .collect()
    }

    /// Every seat's `heuristic` evaluated on this state, in seat order, or `None` when the
    /// game declares none. The author's estimate of progress, for agents: no rule reads it
    /// and it takes no part in an outcome.
    pub fn heuristics(&self, st: &State) -> Result<Option<Vec<i64>>, RunError> {
        let Some(h) = self.program.heuristic else {
            return Ok(None);
        };
        with_machine(st.fuel, |m| {
            (0..st.players)
                .map(|p| self.player_value(m, st, h, p))
                .collect::<Result<Vec<_>, _>>()
                .map(Some)
        })
    }

    /// `score(p)`, a `tiebreak(p)` or `heuristic(p)` of one player.
    fn player_value(&self, m: &mut Machine, st: &State, e: Code, p: u8) -> Result<i64, RunError> {
        let mut locals = [Value::None; MAX_LOCALS];
        locals[0] = Value::Player(p);
        m.eval_int(self, st, e, &mut locals, p).blame(None)
    }

    /// Ends the game: scores, then winners by how it ended.
    pub(crate) fn finish_m(
        &self,
        m: &mut Machine,
        st: &mut State,
        kind: EndKind,
        winner: Option<Value>,
    ) -> Result<(), RunError> {
        if m.stop_depth > 0 {
            // A sequence action being explored ends the game on this run: that is all the
            // exploration needs to know (the outcome is computed when the run is chosen).
            st.wait = Wait::Over;
            st.phase = Phase::Over;
            return Ok(());
        }
        let scores = self.scores_m(m, st)?;
        let (winners, kind) = match (kind, winner) {
            (_, Some(Value::Player(p))) => (vec![p], OutcomeKind::Won),
            (_, Some(_)) => ((0..st.players).collect(), OutcomeKind::Won),
            (EndKind::Draw, _) => (vec![], OutcomeKind::Draw),
            (EndKind::Lose, _) => (vec![], OutcomeKind::Lost),
            (EndKind::Score, None) => {
                let mut keys: Vec<(u8, Vec<i64>)> = Vec::new();
                for p in 0..st.players {
                    let mut k = vec![scores[p as usize]];
                    for t in &self.program.tiebreaks {
                        k.push(self.player_value(m, st, *t, p)?);
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
