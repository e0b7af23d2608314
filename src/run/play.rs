//! Measures of play (C. Browne's criteria for evaluating games and their successors), for
//! `simulate`: how many options a decision offers, how many decisions are forced, how often
//! the lead changes, how often the winner comes from behind, and how early the winner takes
//! the lead for good. Counted per game while it is played ([`PlayTrace`]) and added up over
//! the completed games ([`PlayStats`]); the lead is read from the game's `heuristic(p)` when
//! it declares one, else its `score(p)`, before each player decision. Games with neither
//! have no lead: only the options and forced decisions are counted for them. Reading the lead
//! costs an evaluation of the formula per decision, so it is asked for ([`super::Options::lead`],
//! `simulate --lead`).

use crate::engine::{RunError, State};
use crate::ir::Game;
use serde_json::{json, Value};

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
        )
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

    /// The counts and the figures, for `simulate --json` (`play`).
    pub fn to_json(&self) -> Value {
        let r = |x: f64| (x * 1000.0).round() / 1000.0;
        json!({
            "decisions": self.decisions, "options": self.options, "forced": self.forced,
            "lead_games": self.lead_games, "lead_changes": self.lead_changes,
            "won_games": self.won_games, "comebacks": self.comebacks,
            "decided_permille": self.decided_permille,
            "branching": r(self.branching()), "forced_share": r(self.forced_share()),
            "lead_changes_per_game": r(self.lead_changes_per_game()),
            "comeback_share": r(self.comeback_share()), "decided_at": r(self.decided_at()),
        })
    }

    /// The counts back from [`PlayStats::to_json`] (absent in older JSON: all 0).
    pub fn from_json(v: &Value) -> Result<PlayStats, String> {
        if v.is_null() {
            return Ok(PlayStats::default());
        }
        let n = |k: &str| -> Result<u64, String> {
            v[k].as_u64()
                .ok_or_else(|| format!("play.{k}: not a count"))
        };
        Ok(PlayStats {
            decisions: n("decisions")?,
            options: n("options")?,
            forced: n("forced")?,
            lead_games: n("lead_games")?,
            lead_changes: n("lead_changes")?,
            won_games: n("won_games")?,
            comebacks: n("comebacks")?,
            decided_permille: n("decided_permille")?,
        })
    }

    /// The lines of `simulate`'s text.
    pub fn text(&self) -> String {
        let mut s = format!(
            "play       {:.1} options a decision, {:.1}% forced\n",
            self.branching(),
            100.0 * self.forced_share()
        );
        if self.lead_games > 0 {
            s += &format!(
                "lead       changes {:.2} times a game; the winner was behind in the second half \
                 in {:.1}% and led for good after {:.0}% of the game\n",
                self.lead_changes_per_game(),
                100.0 * self.comeback_share(),
                100.0 * self.decided_at()
            );
        }
        s
    }
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
            return;
        };
        let leaders = p.iter().filter(|&&x| x == best).count();
        let leader = (leaders == 1)
            .then(|| p.iter().position(|&x| x == best))
            .flatten()
            .map(|i| i as u8);
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
        s.decisions += self.decisions;
        s.options += self.options;
        s.forced += self.forced;
        if !self.measured {
            return;
        }
        s.lead_games += 1;
        s.lead_changes += self.changes;
        if let ([w], true) = (winners, self.decisions > 0) {
            let w = *w as usize;
            if w < self.trailed.len() {
                s.won_games += 1;
                s.comebacks += u64::from(self.trailed[w] * 2 > self.decisions);
                s.decided_permille += self.not_leading[w] * 1000 / self.decisions;
            }
        }
    }
}
