//! Rewards: what a finished game is worth to each seat, in [0, 1].
//!
//! A reward blends the result with the score: `(1 - w) * result + w * margin`, where `w` is
//! [`super::MctsConfig::score_weight`].
//!
//! - **result**: a win 1, a loss 0, a draw 1/2. A win shared by `k` seats (a tie for first
//!   under `ties shared`) is worth `1/k` to each of them, so that a tie is worth less than
//!   winning alone and a tie of everybody is a draw (two seats at 0-0 get 1/2 each). When
//!   every seat wins together (`win all`) or loses together (`end lose`), as in a cooperative
//!   game, all get the same, 1 or 0.
//! - **margin**: the seat's score against the best of the others, `1/2 + (s - best other) /
//!   (2 S)`, so that winning by more is worth more and losing by less costs less. `S` is the
//!   largest such difference the search has seen so far (at least 1): scores are put on one
//!   scale per search without knowing the game's range. When the seats share their result
//!   (a cooperative game, or one seat), the margin is the seats' mean **progress** placed
//!   between the lowest and the highest mean seen so far in the search (`1/2` until two
//!   differ), one shared reward. Progress is the game's `heuristic` when it declares one (the
//!   author's estimate, for agents only), else its `score`.
//!
//! A playout stopped before the game's end (see [`super::MctsConfig::max_rollout`]) is
//! judged by the progress at that point ([`Rewards::cut`]): in a competitive game as if the
//! game ended there by it (the leaders share the win); in a cooperative game its result
//! is unknown, so its reward lies halfway between a loss and a win, moved by the progress
//! (`1/4 + margin / 2`). A game without `heuristic` or `score` stopped early counts as a
//! draw.

use crate::engine::{Outcome, OutcomeKind};

/// Turns outcomes into rewards, keeping the scales of the scores seen so far.
pub(crate) struct Rewards {
    weight: f64,
    /// The largest score difference between a seat and the best other seat seen so far.
    margin_scale: f64,
    /// The lowest and highest mean progress of a shared result seen so far.
    shared_range: Option<(f64, f64)>,
}

impl Rewards {
    pub fn new(weight: f64) -> Self {
        Rewards {
            weight: weight.clamp(0.0, 1.0),
            margin_scale: 1.0,
            shared_range: None,
        }
    }

    /// The mean of `values` placed in the range of means seen so far, in [0, 1].
    fn shared_margin(&mut self, values: &[i64]) -> f64 {
        let mean = values.iter().sum::<i64>() as f64 / values.len().max(1) as f64;
        let (lo, hi) = self.shared_range.get_or_insert((mean, mean));
        *lo = lo.min(mean);
        *hi = hi.max(mean);
        if hi > lo {
            (mean - *lo) / (*hi - *lo)
        } else {
            0.5
        }
    }

    /// Each seat's reward for a finished game, into `out` (one per seat); `progress`: the
    /// seats' `heuristic` at the end, when the game declares one (used when the seats share
    /// their result, in place of the scores).
    pub fn finished(&mut self, o: &Outcome, progress: Option<&[i64]>, out: &mut [f64]) {
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
            let values = progress.filter(|h| h.len() == n).unwrap_or(&o.scores);
            let margin = self.shared_margin(values);
            out.fill(self.blend(result, margin));
            return;
        }
        let share = 1.0 / o.winners.len().max(1) as f64;
        for (p, r) in out.iter_mut().enumerate() {
            let result = if o.kind == OutcomeKind::Draw {
                0.5
            } else if o.winners.contains(&(p as u8)) {
                share
            } else {
                0.0
            };
            let margin = self.margin(&o.scores, p);
            *r = self.blend(result, margin);
        }
    }

    /// The margin of seat `p` against the best other seat, on the scale seen so far.
    fn margin(&mut self, scores: &[i64], p: usize) -> f64 {
        let mine = scores.get(p).copied().unwrap_or(0);
        let best_other = scores
            .iter()
            .enumerate()
            .filter(|(q, _)| *q != p)
            .map(|(_, s)| *s)
            .max()
            .unwrap_or(0);
        let diff = (mine - best_other) as f64;
        self.margin_scale = self.margin_scale.max(diff.abs());
        0.5 + diff / (2.0 * self.margin_scale)
    }

    /// The rewards of a game stopped before its end, from the seats' progress at that point
    /// (their `heuristic`, else their `score`; `None` when the game declares neither: a
    /// draw); `cooperative` when the seats win or lose together.
    pub fn cut(&mut self, scores: Option<&[i64]>, cooperative: bool, out: &mut [f64]) {
        let Some(scores) = scores.filter(|s| s.len() == out.len()) else {
            out.fill(0.5);
            return;
        };
        let n = out.len();
        if cooperative || n == 1 {
            let margin = self.shared_margin(scores);
            out.fill(0.25 + 0.5 * margin);
            return;
        }
        let top = scores.iter().copied().max().unwrap_or(0);
        let leaders = scores.iter().filter(|&&s| s == top).count();
        for (p, r) in out.iter_mut().enumerate() {
            let result = if scores[p] == top {
                1.0 / leaders as f64
            } else {
                0.0
            };
            let margin = self.margin(scores, p);
            *r = self.blend(result, margin);
        }
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
        Rewards::new(weight).finished(o, None, &mut out);
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
        assert_eq!(rewards(0.0, &shared_win), [0.5, 0.5, 0.0]);
        // Everybody tied under `ties shared` (0-0): a draw, not a win.
        let all_tied = outcome(&[0, 0], &[0, 1], OutcomeKind::Scored);
        assert_eq!(rewards(0.0, &all_tied), [0.5, 0.5]);
    }

    #[test]
    fn margins_on_the_scale_seen_so_far() {
        let mut r = Rewards::new(0.5);
        let mut out = [0.0; 2];
        r.finished(
            &outcome(&[10, 6], &[0], OutcomeKind::Scored),
            None,
            &mut out,
        );
        // Scale 4: the winner's margin is 1, the loser's 0.
        assert_eq!(out, [1.0, 0.0]);
        r.finished(&outcome(&[7, 5], &[0], OutcomeKind::Scored), None, &mut out);
        // Still scale 4: a win by 2 is worth less than a win by 4.
        assert_eq!(out, [0.5 + 0.5 * 0.75, 0.5 * 0.25]);
        // Cooperative: one reward, the mean score placed in the range of means seen.
        let mut coop = [0.0; 2];
        let lost = outcome(&[2, 4], &[], OutcomeKind::Lost);
        r.finished(&lost, None, &mut coop);
        assert_eq!(coop, [0.25; 2], "the first mean seen is the middle");
        r.finished(&outcome(&[0, 0], &[], OutcomeKind::Lost), None, &mut coop);
        assert_eq!(coop, [0.0; 2]);
        r.finished(&lost, None, &mut coop);
        assert_eq!(coop, [0.5; 2], "the top of the range (0 to 3)");
        // A heuristic, when declared, stands for the score of a shared result.
        r.finished(&lost, Some(&[-6, -6]), &mut coop);
        assert_eq!(coop, [0.0; 2]);
        r.finished(&lost, Some(&[3, 3]), &mut coop);
        assert_eq!(coop, [0.5; 2]);
        // It takes no part in a competitive result: the scores decide.
        r.finished(
            &outcome(&[7, 5], &[0], OutcomeKind::Scored),
            Some(&[0, 9]),
            &mut out,
        );
        assert_eq!(out, [0.5 + 0.5 * 0.75, 0.5 * 0.25]);
    }

    #[test]
    fn cut_playouts_by_score() {
        let mut r = Rewards::new(0.0);
        let mut out = [0.0; 3];
        // Competitive: the leader wins, as if the game ended by score now.
        r.cut(Some(&[4, 1, 2]), false, &mut out);
        assert_eq!(out, [1.0, 0.0, 0.0]);
        r.cut(Some(&[4, 4, 2]), false, &mut out);
        assert_eq!(out, [0.5, 0.5, 0.0]);
        // Cooperative: between a loss and a win, moved by the mean progress.
        r.cut(Some(&[2, 2, 2]), true, &mut out);
        assert_eq!(out, [0.5; 3]);
        r.cut(Some(&[0, 0, 0]), true, &mut out);
        assert_eq!(out, [0.25; 3]);
        r.cut(Some(&[2, 2, 2]), true, &mut out);
        assert_eq!(out, [0.75; 3]);
        // Without a score: a draw.
        r.cut(None, false, &mut out);
        assert_eq!(out, [0.5; 3]);
    }
}
