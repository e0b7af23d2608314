//! Measures of play (C. Browne's criteria for evaluating games and their successors), for
//! `simulate`: how many options a decision offers, how many decisions are forced, how often
//! the lead changes, how often the winner comes from behind, how early the winner takes
//! the lead for good, and how long the outcome stays uncertain. Counted per game while it is played ([`PlayTrace`]) and added up over
//! the completed games ([`PlayStats`]); the lead is read from the game's `heuristic(p)` when
//! it declares one, else its `score(p)`, before each player decision. Games with neither
//! have no lead: only the options and forced decisions are counted for them. Reading the lead
//! costs an evaluation of the formula per decision, so it is asked for ([`super::Options::lead`],
//! `simulate --lead`).

use super::stats::Moments;
use crate::engine::{RunError, State};
use crate::ir::Game;
use serde_json::{json, Value};

/// The quarters of a game at which [`PlayStats::leader_wins`] reads the leader.
pub const QUARTERS: [&str; 3] = ["a quarter", "half", "three quarters"];

/// In [`PlayTrace`]'s history of leaders: no sole leader (a tie).
const NOBODY: u8 = u8::MAX;

/// The measures of a run, as counts that add up exactly over threads and shards.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayStats {
    /// Player decisions of the completed games.
    pub decisions: u64,
    /// Options offered at those decisions, in all.
    pub options: u64,
    /// Those with exactly one option.
    pub forced: u64,
    /// Completed games whose lead was read (the game has a heuristic or a score).
    pub lead_games: u64,
    /// Changes of the sole leader in those games, in all (a tie is nobody's lead).
    pub lead_changes: u64,
    /// Of those games, the ones with one winner.
    pub won_games: u64,
    /// Of those, the games whose winner was behind the best other seat at some decision of
    /// the game's second half (a comeback).
    pub comebacks: u64,
    /// Of those, the sum over games of the share of the game (in thousandths) played before
    /// the winner took the sole lead for good.
    pub decided_permille: u64,
    /// Of those, the sum over games of the share of the game's decisions (in thousandths,
    /// rounded down) before which the winner was not the sole leader (the uncertainty).
    pub uncertain_permille: u64,
    /// Of those, the games whose sole leader after a quarter, half and three quarters of
    /// their decisions (read before decision `n * k / 4 + 1` of `n`) was the winner.
    pub leader_wins: [u64; 3],
    /// Sums over the completed games of squares and products of each game's decisions `d`,
    /// options `o` and forced decisions `f`: the spreads the tests between variants need.
    /// Sums of squares stop at `u64::MAX` (then the measure is not tested).
    pub decisions_sq: u64,
    /// `sum o * o`.
    pub options_sq: u64,
    /// `sum o * d`.
    pub options_decisions: u64,
    /// `sum f * f`.
    pub forced_sq: u64,
    /// `sum f * d`.
    pub forced_decisions: u64,
    /// Over the games whose lead was read, the sum of the squares of each game's lead changes.
    pub lead_changes_sq: u64,
    /// Over the won games, the sum of the squares of each game's `decided_permille`.
    pub decided_sq: u64,
    /// Over the won games, the sum of the squares of each game's `uncertain_permille`.
    pub uncertain_sq: u64,
    /// Read from the JSON of an earlier version, which had none of the counts above since
    /// `uncertain_permille`: the uncertainty is not shown and no measure of play is tested.
    pub older: bool,
}

impl PlayStats {
    /// Adds another run's counts.
    pub fn add(&mut self, o: &PlayStats) -> Result<(), String> {
        let add = |a: &mut u64, b: u64, what: &str| -> Result<(), String> {
            *a = a
                .checked_add(b)
                .ok_or_else(|| format!("play.{what}: the sum is too large"))?;
            Ok(())
        };
        add(&mut self.decisions, o.decisions, "decisions")?;
        add(&mut self.options, o.options, "options")?;
        add(&mut self.forced, o.forced, "forced")?;
        add(&mut self.lead_games, o.lead_games, "lead_games")?;
        add(&mut self.lead_changes, o.lead_changes, "lead_changes")?;
        add(&mut self.won_games, o.won_games, "won_games")?;
        add(&mut self.comebacks, o.comebacks, "comebacks")?;
        add(
            &mut self.decided_permille,
            o.decided_permille,
            "decided_permille",
        )?;
        add(
            &mut self.uncertain_permille,
            o.uncertain_permille,
            "uncertain_permille",
        )?;
        for (a, b) in self.leader_wins.iter_mut().zip(o.leader_wins) {
            add(a, b, "leader_wins")?;
        }
        // Sums of squares saturate (in any order of the additions, the same result).
        for (a, b) in [
            (&mut self.decisions_sq, o.decisions_sq),
            (&mut self.options_sq, o.options_sq),
            (&mut self.options_decisions, o.options_decisions),
            (&mut self.forced_sq, o.forced_sq),
            (&mut self.forced_decisions, o.forced_decisions),
            (&mut self.lead_changes_sq, o.lead_changes_sq),
            (&mut self.decided_sq, o.decided_sq),
            (&mut self.uncertain_sq, o.uncertain_sq),
        ] {
            *a = a.saturating_add(b);
        }
        self.older |= o.older;
        Ok(())
    }

    /// Mean options per decision (the branching factor a player faces).
    pub fn branching(&self) -> f64 {
        ratio(self.options, self.decisions)
    }

    /// The share of decisions with one option.
    pub fn forced_share(&self) -> f64 {
        ratio(self.forced, self.decisions)
    }

    /// Lead changes per game.
    pub fn lead_changes_per_game(&self) -> f64 {
        ratio(self.lead_changes, self.lead_games)
    }

    /// The share of won games whose winner was behind in the second half.
    pub fn comeback_share(&self) -> f64 {
        ratio(self.comebacks, self.won_games)
    }

    /// The mean share of a won game played before its winner led for good (low: decided
    /// early).
    pub fn decided_at(&self) -> f64 {
        ratio(self.decided_permille, self.won_games) / 1000.0
    }

    /// The mean share of a won game's decisions before which the winner was not the sole
    /// leader (high: the outcome stayed uncertain).
    pub fn uncertainty(&self) -> f64 {
        ratio(self.uncertain_permille, self.won_games) / 1000.0
    }

    /// The share of won games whose sole leader after a quarter (`k` 0), half (1) or three
    /// quarters (2) of the game was the winner.
    pub fn leader_wins_share(&self, k: usize) -> f64 {
        ratio(self.leader_wins[k], self.won_games)
    }

    /// Whether the spreads of the measures are known (the tests between variants need them).
    fn spread_known(&self) -> bool {
        !self.older
            && [
                self.decisions_sq,
                self.options_sq,
                self.options_decisions,
                self.forced_sq,
                self.forced_decisions,
                self.lead_changes_sq,
                self.decided_sq,
                self.uncertain_sq,
            ]
            .iter()
            .all(|&x| x < u64::MAX)
    }

    /// Options a decision as a ratio over `games` games (the completed games), for Welch's
    /// test: its mean, and the variance that makes `var / n` the delta method's variance of
    /// the ratio (games are the independent units, not decisions). `None` when unknown.
    pub fn options_moments(&self, games: u64) -> Option<Moments> {
        let (sq, by) = (self.options_sq, self.options_decisions);
        self.ratio_moments(games, self.options, sq, by)
    }

    /// The share of forced decisions as a ratio over games, as [`PlayStats::options_moments`].
    pub fn forced_moments(&self, games: u64) -> Option<Moments> {
        let (sq, by) = (self.forced_sq, self.forced_decisions);
        self.ratio_moments(games, self.forced, sq, by)
    }

    fn ratio_moments(&self, n: u64, x: u64, x_sq: u64, x_d: u64) -> Option<Moments> {
        if !self.spread_known() || n == 0 || self.decisions == 0 {
            return None;
        }
        let r = x as f64 / self.decisions as f64;
        let nf = n as f64;
        let mean_d = self.decisions as f64 / nf;
        // sum over games of (x - r d)^2
        let ss = (x_sq as f64 - 2.0 * r * x_d as f64 + r * r * self.decisions_sq as f64).max(0.0);
        let var = if n > 1 {
            ss / (nf - 1.0) / (mean_d * mean_d)
        } else {
            0.0
        };
        Some(Moments { n, mean: r, var })
    }

    /// Lead changes a game, over the games whose lead was read.
    pub fn lead_change_moments(&self) -> Option<Moments> {
        let (s, q) = (self.lead_changes, self.lead_changes_sq);
        self.spread_known()
            .then(|| moments(self.lead_games, s, q, 1.0))
    }

    /// The share of a won game before its winner led for good, over the won games.
    pub fn decided_moments(&self) -> Option<Moments> {
        let (s, q) = (self.decided_permille, self.decided_sq);
        self.spread_known()
            .then(|| moments(self.won_games, s, q, 1000.0))
    }

    /// The uncertainty, over the won games.
    pub fn uncertainty_moments(&self) -> Option<Moments> {
        let (s, q) = (self.uncertain_permille, self.uncertain_sq);
        self.spread_known()
            .then(|| moments(self.won_games, s, q, 1000.0))
    }

    /// The counts and the figures, for `simulate --json` (`play`).
    pub fn to_json(&self) -> Value {
        let r = |x: f64| (x * 1000.0).round() / 1000.0;
        let mut v = json!({
            "decisions": self.decisions, "options": self.options, "forced": self.forced,
            "lead_games": self.lead_games, "lead_changes": self.lead_changes,
            "won_games": self.won_games, "comebacks": self.comebacks,
            "decided_permille": self.decided_permille,
            "branching": r(self.branching()), "forced_share": r(self.forced_share()),
            "lead_changes_per_game": r(self.lead_changes_per_game()),
            "comeback_share": r(self.comeback_share()), "decided_at": r(self.decided_at()),
        });
        if !self.older {
            for (k, x) in [
                ("uncertain_permille", self.uncertain_permille),
                ("decisions_sq", self.decisions_sq),
                ("options_sq", self.options_sq),
                ("options_decisions", self.options_decisions),
                ("forced_sq", self.forced_sq),
                ("forced_decisions", self.forced_decisions),
                ("lead_changes_sq", self.lead_changes_sq),
                ("decided_sq", self.decided_sq),
                ("uncertain_sq", self.uncertain_sq),
            ] {
                v[k] = x.into();
            }
            v["leader_wins"] = json!(self.leader_wins);
            v["uncertainty"] = json!(r(self.uncertainty()));
            v["leader_wins_share"] = json!([0, 1, 2].map(|k| r(self.leader_wins_share(k))));
        }
        v
    }

    /// The counts back from [`PlayStats::to_json`]. In the JSON of earlier versions `play`
    /// is absent (all 0) or has none of the counts since `uncertain_permille`
    /// ([`PlayStats::older`]).
    pub fn from_json(v: &Value) -> Result<PlayStats, String> {
        if v.is_null() {
            return Ok(PlayStats {
                older: true,
                ..PlayStats::default()
            });
        }
        let n = |k: &str| -> Result<u64, String> {
            v[k].as_u64()
                .ok_or_else(|| format!("play.{k}: not a count"))
        };
        let mut s = PlayStats {
            decisions: n("decisions")?,
            options: n("options")?,
            forced: n("forced")?,
            lead_games: n("lead_games")?,
            lead_changes: n("lead_changes")?,
            won_games: n("won_games")?,
            comebacks: n("comebacks")?,
            decided_permille: n("decided_permille")?,
            ..PlayStats::default()
        };
        if v.get("uncertain_permille").is_none() {
            s.older = true;
            return Ok(s);
        }
        s.uncertain_permille = n("uncertain_permille")?;
        s.decisions_sq = n("decisions_sq")?;
        s.options_sq = n("options_sq")?;
        s.options_decisions = n("options_decisions")?;
        s.forced_sq = n("forced_sq")?;
        s.forced_decisions = n("forced_decisions")?;
        s.lead_changes_sq = n("lead_changes_sq")?;
        s.decided_sq = n("decided_sq")?;
        s.uncertain_sq = n("uncertain_sq")?;
        match v["leader_wins"].as_array().map(Vec::as_slice) {
            Some([a, b, c]) => {
                for (slot, x) in s.leader_wins.iter_mut().zip([a, b, c]) {
                    *slot = x.as_u64().ok_or("play.leader_wins: not a count")?;
                }
            }
            _ => return Err("play.leader_wins: expected three counts".into()),
        }
        Ok(s)
    }

    /// The lines of `simulate`'s text.
    pub fn text(&self) -> String {
        let mut s = format!(
            "play       {:.1} options a decision, {:.1}% forced\n",
            self.branching(),
            100.0 * self.forced_share()
        );
        if self.lead_games > 0 && self.won_games == 0 {
            s += &format!(
                "lead       changes {:.2} times a game; no game had one winner\n",
                self.lead_changes_per_game()
            );
        }
        if self.won_games > 0 {
            s += &format!(
                "lead       changes {:.2} times a game; the winner was behind in the second half \
                 in {:.1}% and led for good after {:.0}% of the game\n",
                self.lead_changes_per_game(),
                100.0 * self.comeback_share(),
                100.0 * self.decided_at()
            );
            if !self.older {
                s += &format!(
                    "uncertain  the winner was not the sole leader for {:.0}% of the game; the \
                     leader at 1/4, 1/2, 3/4 of it won {:.0}%, {:.0}%, {:.0}%\n",
                    100.0 * self.uncertainty(),
                    100.0 * self.leader_wins_share(0),
                    100.0 * self.leader_wins_share(1),
                    100.0 * self.leader_wins_share(2)
                );
            }
        }
        s
    }
}

/// The moments of `n` observations from their sum and sum of squares (counts, in `unit`s:
/// a permille sum has unit 1000). The numerator `n q - s^2` is computed exactly.
fn moments(n: u64, s: u64, q: u64, unit: f64) -> Moments {
    if n == 0 {
        return Moments::default();
    }
    let mean = s as f64 / n as f64 / unit;
    let num = (u128::from(n) * u128::from(q)).saturating_sub(u128::from(s) * u128::from(s));
    let var = if n > 1 {
        num as f64 / (n as f64 * (n - 1) as f64) / (unit * unit)
    } else {
        0.0
    };
    Moments { n, mean, var }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// One game's measures while it is played.
#[derive(Clone, Debug, Default)]
pub(crate) struct PlayTrace {
    decisions: u64,
    options: u64,
    forced: u64,
    /// Whether the lead is read (the game has a heuristic or a score) and could be.
    measured: bool,
    leader: Option<u8>,
    changes: u64,
    /// Per seat: the last decision (from 1) at which it was behind the best.
    trailed: Vec<u64>,
    /// Per seat: the last decision (from 1) before which it was not the sole leader.
    not_leading: Vec<u64>,
    /// The sole leader read before each decision ([`NOBODY`] for a tie): kept between games,
    /// so that a decision allocates nothing once it has grown.
    history: Vec<u8>,
}

impl PlayTrace {
    /// Starts a game of `players` seats; its lead is read when `lead` says so.
    pub(crate) fn reset(&mut self, g: &Game, players: u8, lead: bool) {
        let n = players as usize;
        self.decisions = 0;
        self.options = 0;
        self.forced = 0;
        self.measured = lead && (g.heuristic.is_some() || g.score.is_some());
        self.leader = None;
        self.changes = 0;
        self.trailed.clear();
        self.trailed.resize(n, 0);
        self.not_leading.clear();
        self.not_leading.resize(n, 0);
        self.history.clear();
    }

    /// A player decision with `options` options, in state `st` (before it).
    pub(crate) fn decision(&mut self, g: &Game, st: &State, options: usize) {
        self.decisions += 1;
        self.options += options as u64;
        self.forced += u64::from(options == 1);
        if !self.measured {
            return;
        }
        let progress: Result<Option<Vec<i64>>, RunError> = match g.heuristic {
            Some(_) => g.heuristics(st),
            None => g.scores(st).map(Some),
        };
        let Ok(Some(p)) = progress else {
            self.measured = false; // a formula failed here: no lead for this game
            return;
        };
        let Some(&best) = p.iter().max() else {
            self.history.push(NOBODY);
            return;
        };
        let leaders = p.iter().filter(|&&x| x == best).count();
        let leader = (leaders == 1)
            .then(|| p.iter().position(|&x| x == best))
            .flatten()
            .map(|i| i as u8);
        self.history.push(leader.unwrap_or(NOBODY));
        if let (Some(now), Some(before)) = (leader, self.leader) {
            if now != before {
                self.changes += 1;
            }
        }
        if leader.is_some() {
            self.leader = leader;
        }
        for (i, &x) in p.iter().enumerate().take(self.trailed.len()) {
            if x < best {
                self.trailed[i] = self.decisions;
            }
            if leader != Some(i as u8) {
                self.not_leading[i] = self.decisions;
            }
        }
    }

    /// Adds a completed game, won by `winners`, to `s`.
    pub(crate) fn finish(&self, winners: &[u8], s: &mut PlayStats) {
        let (d, o, f) = (self.decisions, self.options, self.forced);
        s.decisions += d;
        s.options += o;
        s.forced += f;
        let sq = |a: &mut u64, x: u64, y: u64| *a = a.saturating_add(x.saturating_mul(y));
        sq(&mut s.decisions_sq, d, d);
        sq(&mut s.options_sq, o, o);
        sq(&mut s.options_decisions, o, d);
        sq(&mut s.forced_sq, f, f);
        sq(&mut s.forced_decisions, f, d);
        if !self.measured {
            return;
        }
        s.lead_games += 1;
        s.lead_changes += self.changes;
        sq(&mut s.lead_changes_sq, self.changes, self.changes);
        let reads = self.history.len() as u64;
        if let ([w], true) = (winners, reads > 0) {
            let w = *w as usize;
            if w < self.trailed.len() {
                s.won_games += 1;
                s.comebacks += u64::from(self.trailed[w] * 2 > self.decisions);
                let decided = self.not_leading[w] * 1000 / self.decisions;
                s.decided_permille += decided;
                sq(&mut s.decided_sq, decided, decided);
                let w = w as u8;
                let doubt = self.history.iter().filter(|&&l| l != w).count() as u64;
                let uncertain = doubt * 1000 / reads;
                s.uncertain_permille += uncertain;
                sq(&mut s.uncertain_sq, uncertain, uncertain);
                for (k, n) in s.leader_wins.iter_mut().enumerate() {
                    let at = (reads * (k as u64 + 1) / 4) as usize;
                    *n += u64::from(self.history.get(at) == Some(&w));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spreads the tests between variants read, from the sums, against a direct
    /// computation over the games.
    #[test]
    fn spreads_match_a_direct_computation() {
        // four games of (options, decisions): options a decision 45 / 18 = 2.5; residuals
        // o - 2.5 d: -2.5, 2, -4.5, 5; their squares sum to 55.5, over 3 is 18.5; over the
        // mean decisions (4.5) squared: 0.913580...
        let games = [(10u64, 5u64), (12, 4), (3, 3), (20, 6)];
        let mut s = PlayStats::default();
        for (o, d) in games {
            s.options += o;
            s.decisions += d;
            s.options_sq += o * o;
            s.options_decisions += o * d;
            s.decisions_sq += d * d;
        }
        let m = s.options_moments(4).expect("known");
        assert_eq!((m.n, m.mean), (4, 2.5));
        assert!((m.var - 18.5 / 20.25).abs() < 1e-12, "{m:?}");
        // three won games in doubt for 0.1, 0.3, 0.8 of them: mean 0.4, variance 0.13
        s.won_games = 3;
        s.uncertain_permille = 100 + 300 + 800;
        s.uncertain_sq = 100 * 100 + 300 * 300 + 800 * 800;
        let m = s.uncertainty_moments().expect("known");
        assert!(
            (m.mean - 0.4).abs() < 1e-12 && (m.var - 0.13).abs() < 1e-12,
            "{m:?}"
        );
        // a sum that reached its end, or the JSON of an earlier version: unknown
        s.options_sq = u64::MAX;
        assert_eq!(s.options_moments(4), None);
        s.options_sq = 0;
        s.older = true;
        assert_eq!(s.uncertainty_moments(), None);
    }
}
