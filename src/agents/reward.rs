//! Rewards: what a finished game is worth to each seat, in [0, 1].
//!
//! A reward blends the result with the score: `(1 - w) * result + w * margin`, where `w` is
//! [`super::MctsConfig::score_weight`].
//!
//! - **result**: a win 1, a loss 0, a draw 1/2. Several winners (a tie under `ties shared`)
//!   each get 1. When every seat wins together (`win all`) or loses together (`end lose`),
//!   as in a cooperative game, all get the same.
//! - **margin**: the seat's score against the best of the others, `1/2 + (s - best other) /
//!   (2 S)`, so that winning by more is worth more and losing by less costs less. `S` is the
//!   largest such difference the search has seen so far (at least 1): scores are put on one
//!   scale per search without knowing the game's range. When the seats share their result
//!   (a cooperative game, or one seat), the margin is the mean score on the same kind of
//!   scale, `1/2 + mean / (2 S)`, one shared reward.
//!
//! A game that a playout had to stop before its end counts as a draw.

use crate::engine::{Outcome, OutcomeKind};

/// Turns outcomes into rewards, keeping the scales of the scores seen so far.
pub(crate) struct Rewards {
    weight: f64,
    /// The largest score difference between a seat and the best other seat seen so far.
    margin_scale: f64,
    /// The largest mean score (in absolute value) of a shared result seen so far.
    shared_scale: f64,
}

impl Rewards {
    pub fn new(weight: f64) -> Self {
        Rewards {
            weight: weight.clamp(0.0, 1.0),
            margin_scale: 1.0,
            shared_scale: 1.0,
        }
    }

    /// Each seat's reward for a finished game, into `out` (one per seat).
    pub fn finished(&mut self, o: &Outcome, out: &mut [f64]) {
        let n = out.len();
        let all_won = o.kind == OutcomeKind::Won && o.winners.len() == n;
        let shared = n == 1 || all_won || o.kind == OutcomeKind::Lost;
        if shared {
            let result = if all_won || o.kind != OutcomeKind::Lost && !o.winners.is_empty() {
                1.0
            } else if o.kind == OutcomeKind::Draw {
                0.5
            } else {
                0.0
            };
            let mean = o.scores.iter().sum::<i64>() as f64 / n.max(1) as f64;
            self.shared_scale = self.shared_scale.max(mean.abs());
            let margin = 0.5 + mean / (2.0 * self.shared_scale);
            out.fill(self.blend(result, margin));
            return;
        }
        for (p, r) in out.iter_mut().enumerate() {
            let result = if o.kind == OutcomeKind::Draw {
                0.5
            } else if o.winners.contains(&(p as u8)) {
                1.0
            } else {
                0.0
            };
            let mine = o.scores.get(p).copied().unwrap_or(0);
            let best_other = o
                .scores
                .iter()
                .enumerate()
                .filter(|(q, _)| *q != p)
                .map(|(_, s)| *s)
                .max()
                .unwrap_or(0);
            let diff = (mine - best_other) as f64;
            self.margin_scale = self.margin_scale.max(diff.abs());
            *r = self.blend(result, 0.5 + diff / (2.0 * self.margin_scale));
        }
    }

    /// The rewards of a game stopped before its end: a draw.
    pub fn unfinished(&mut self, out: &mut [f64]) {
        out.fill(0.5);
    }

    fn blend(&self, result: f64, margin: f64) -> f64 {
        (1.0 - self.weight) * result + self.weight * margin.clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(scores: &[i64], winners: &[u8], kind: OutcomeKind) -> Outcome {
        Outcome {
            scores: scores.to_vec(),
            winners: winners.to_vec(),
            kind,
        }
    }

    fn rewards(weight: f64, o: &Outcome) -> Vec<f64> {
        let mut out = vec![0.0; o.scores.len()];
        Rewards::new(weight).finished(o, &mut out);
        out
    }

    #[test]
    fn results_without_scores() {
        let won = outcome(&[0, 0], &[1], OutcomeKind::Won);
        assert_eq!(rewards(0.0, &won), [0.0, 1.0]);
        let draw = outcome(&[0, 0], &[], OutcomeKind::Draw);
        assert_eq!(rewards(0.0, &draw), [0.5, 0.5]);
        let all = outcome(&[0, 0, 0], &[0, 1, 2], OutcomeKind::Won);
        assert_eq!(rewards(0.0, &all), [1.0, 1.0, 1.0]);
        let lost = outcome(&[0, 0, 0], &[], OutcomeKind::Lost);
        assert_eq!(rewards(0.0, &lost), [0.0, 0.0, 0.0]);
        let shared_win = outcome(&[3, 3, 1], &[0, 1], OutcomeKind::Scored);
        assert_eq!(rewards(0.0, &shared_win), [1.0, 1.0, 0.0]);
    }

    #[test]
    fn margins_on_the_scale_seen_so_far() {
        let mut r = Rewards::new(0.5);
        let mut out = [0.0; 2];
        r.finished(&outcome(&[10, 6], &[0], OutcomeKind::Scored), &mut out);
        // Scale 4: the winner's margin is 1, the loser's 0.
        assert_eq!(out, [1.0, 0.0]);
        r.finished(&outcome(&[7, 5], &[0], OutcomeKind::Scored), &mut out);
        // Still scale 4: a win by 2 is worth less than a win by 4.
        assert_eq!(out, [0.5 + 0.5 * 0.75, 0.5 * 0.25]);
        // Cooperative: one reward, the mean score on its own scale.
        let mut coop = [0.0; 2];
        r.finished(&outcome(&[2, 4], &[], OutcomeKind::Lost), &mut coop);
        assert_eq!(coop, [0.5, 0.5]);
    }
}
