//! Several summaries together: variants compared measure by measure (which differences are
//! statistically clear), the JSON of a run of several variants, and merging the JSON of
//! shards back into what one machine would have printed.

use super::stats::{self, Moments};
use super::summary::{round, round2, Summary};
use serde_json::{json, Value};

/// The test behind a [`Difference`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Test {
    /// The two-proportion z-test (pooled), for rates.
    TwoProportions,
    /// Welch's t-test (unequal variances), for means.
    Welch,
    /// Welch's t-test on a ratio of two sums over games (options a decision, the share of
    /// forced decisions), with the delta method's variance: the games are the independent
    /// units, not the decisions within them.
    Ratio,
}

impl Test {
    /// The test's name as reports print it.
    pub fn name(self) -> &'static str {
        match self {
            Test::TwoProportions => "two-proportion z-test",
            Test::Welch => "Welch's t-test",
            Test::Ratio => "Welch's t-test on a ratio over games",
        }
    }
}

/// What a [`Difference`] measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// The win rate of a seat (from 0).
    WinRate(u8),
    /// The share of completed games with no winner.
    Draws,
    /// The win rate of the player who took the first decision.
    FirstPlayer,
    /// The share of games stopped by an error.
    Errors,
    /// The mean length (player decisions).
    Length,
    /// The mean final score of a seat (from 0).
    Score(u8),
    /// Options a decision.
    Options,
    /// The share of decisions with one option.
    Forced,
    /// Lead changes a game.
    LeadChanges,
    /// The share of won games whose winner was behind in the second half.
    Comebacks,
    /// The mean share of a won game before its winner led for good.
    DecidedAt,
    /// The mean share of a won game before whose decisions the winner was not the sole
    /// leader.
    Uncertainty,
    /// The share of won games whose sole leader after a quarter (0), half (1), three
    /// quarters (2) of the game won.
    LeaderWins(u8),
}

impl Measure {
    /// Its name as the tables print it.
    pub fn name(self) -> String {
        match self {
            Measure::WinRate(p) => format!("win rate p{}", p + 1),
            Measure::Draws => "draw rate".into(),
            Measure::FirstPlayer => "first player's win rate".into(),
            Measure::Errors => "error rate".into(),
            Measure::Length => "mean length".into(),
            Measure::Score(p) => format!("mean score p{}", p + 1),
            Measure::Options => "options a decision".into(),
            Measure::Forced => "forced decisions".into(),
            Measure::LeadChanges => "lead changes a game".into(),
            Measure::Comebacks => "comebacks".into(),
            Measure::DecidedAt => "winner leads for good after".into(),
            Measure::Uncertainty => "uncertainty".into(),
            Measure::LeaderWins(k) => format!("leader at {}/4 wins", k + 1),
        }
    }

    /// Whether its values are shares, printed as percentages.
    pub fn percent(self) -> bool {
        !matches!(
            self,
            Measure::Length | Measure::Score(_) | Measure::Options | Measure::LeadChanges
        )
    }

    /// A value of the measure as the tables print it.
    pub fn show(self, x: f64) -> String {
        if self.percent() {
            format!("{:.1}%", 100.0 * x)
        } else {
            format!("{}", round2(x))
        }
    }
}

/// One measure of a variant against the base run.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// What is measured: `win rate p1`, `mean length`, ... (the name of `kind`).
    pub measure: String,
    /// What is measured.
    pub kind: Measure,
    /// Its value in the base run.
    pub base: f64,
    /// Its value in the variant.
    pub other: f64,
    /// The test used.
    pub test: Test,
    /// The test's two-sided p-value.
    pub p: f64,
    /// The p-value after Holm's correction over all the measures of this comparison.
    pub p_holm: f64,
}

impl Difference {
    /// Whether the difference is statistically clear: Holm-corrected p below
    /// [`stats::ALPHA`].
    pub fn clear(&self) -> bool {
        self.p_holm < stats::ALPHA
    }
}

/// Compares `other` with `base`, measure by measure: the win rate of each seat, the draw rate,
/// the first player's win rate and the error rate (two-proportion z-tests), the mean game
/// length and each seat's mean score (Welch's t-tests); then the measures of play when both
/// runs have them: options a decision and the share of forced decisions (ratios over games),
/// and with the lead, lead changes a game; and of the games with one winner, decisiveness
/// and uncertainty (Welch's t-tests), comebacks and the leader at a quarter, half and three
/// quarters of the game winning (two-proportion z-tests). The p-values are corrected with Holm's method over these
/// measures, so that "clear" holds at a family-wise 5%.
pub fn compare(base: &Summary, other: &Summary) -> Vec<Difference> {
    let mut out = Vec::new();
    let rate = |out: &mut Vec<Difference>, kind, (k1, n1): (u64, u64), (k2, n2): (u64, u64)| {
        out.push(Difference {
            measure: Measure::name(kind),
            kind,
            base: ratio(k1, n1),
            other: ratio(k2, n2),
            test: Test::TwoProportions,
            p: stats::two_proportions(k1, n1, k2, n2),
            p_holm: 1.0,
        })
    };
    let mean = |out: &mut Vec<Difference>, kind, test, a: Moments, b: Moments| {
        out.push(Difference {
            measure: Measure::name(kind),
            kind,
            base: a.mean,
            other: b.mean,
            test,
            p: stats::welch(a, b),
            p_holm: 1.0,
        })
    };
    let seats = base.players.min(other.players);
    for p in 0..seats {
        let (i, kind) = (p as usize, Measure::WinRate(p));
        let (b, o) = (
            (base.wins[i], base.completed),
            (other.wins[i], other.completed),
        );
        rate(&mut out, kind, b, o);
    }
    let (b, o) = ((base.draws, base.completed), (other.draws, other.completed));
    rate(&mut out, Measure::Draws, b, o);
    let (fb, fo) = (base.first_player(), other.first_player());
    rate(&mut out, Measure::FirstPlayer, (fb.k, fb.n), (fo.k, fo.n));
    let (b, o) = ((base.errors, base.games), (other.errors, other.games));
    rate(&mut out, Measure::Errors, b, o);
    let (b, o) = (base.length_moments(), other.length_moments());
    mean(&mut out, Measure::Length, Test::Welch, b, o);
    for p in 0..seats {
        let (b, o) = (
            base.score_moments(p as usize),
            other.score_moments(p as usize),
        );
        mean(&mut out, Measure::Score(p), Test::Welch, b, o);
    }
    let (pb, po) = (&base.play, &other.play);
    if pb.decisions > 0 && po.decisions > 0 {
        let (nb, no) = (base.completed, other.completed);
        if let (Some(b), Some(o)) = (pb.options_moments(nb), po.options_moments(no)) {
            mean(&mut out, Measure::Options, Test::Ratio, b, o);
        }
        if let (Some(b), Some(o)) = (pb.forced_moments(nb), po.forced_moments(no)) {
            mean(&mut out, Measure::Forced, Test::Ratio, b, o);
        }
    }
    if pb.lead_games > 0 && po.lead_games > 0 {
        if let (Some(b), Some(o)) = (pb.lead_change_moments(), po.lead_change_moments()) {
            mean(&mut out, Measure::LeadChanges, Test::Welch, b, o);
        }
    }
    if pb.won_games > 0 && po.won_games > 0 {
        let (b, o) = ((pb.comebacks, pb.won_games), (po.comebacks, po.won_games));
        rate(&mut out, Measure::Comebacks, b, o);
        if let (Some(b), Some(o)) = (pb.decided_moments(), po.decided_moments()) {
            mean(&mut out, Measure::DecidedAt, Test::Welch, b, o);
        }
        if let (Some(b), Some(o)) = (pb.uncertainty_moments(), po.uncertainty_moments()) {
            mean(&mut out, Measure::Uncertainty, Test::Welch, b, o);
            for k in 0..3 {
                let (b, o) = (
                    (pb.leader_wins[k], pb.won_games),
                    (po.leader_wins[k], po.won_games),
                );
                rate(&mut out, Measure::LeaderWins(k as u8), b, o);
            }
        }
    }
    let ps: Vec<f64> = out.iter().map(|d| d.p).collect();
    for (d, h) in out.iter_mut().zip(stats::holm(&ps)) {
        d.p_holm = h;
    }
    out
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// The JSON of a run: one summary's object for one variant; for several,
/// `{"runs": [...], "differences": [...]}` where each entry of `differences` compares a run
/// with the first.
pub fn runs_json(runs: &[Summary]) -> String {
    match runs {
        [one] => one.json(),
        _ => {
            let diffs: Vec<Value> = runs
                .iter()
                .skip(1)
                .map(|r| {
                    let diffs = compare(&runs[0], r);
                    json!({
                        "base": runs[0].variant,
                        "variant": r.variant,
                        "summary": super::words::summary(&runs[0], r, &diffs),
                        "measures": diffs.iter().map(|d| json!({
                            "measure": d.measure,
                            "base": round(d.base),
                            "variant": round(d.other),
                            "test": d.test.name(),
                            "p": round(d.p),
                            "p_holm": round(d.p_holm),
                            "clear": d.clear(),
                        })).collect::<Vec<_>>(),
                    })
                })
                .collect();
            json!({
                "runs": runs.iter().map(Summary::to_json).collect::<Vec<_>>(),
                "differences": diffs,
                "significance": {
                    "alpha": stats::ALPHA,
                    "correction": "Holm over the measures of each comparison",
                },
            })
            .to_string()
        }
    }
}

/// Reads the JSON `rulebook simulate --json` printed: one summary, or several runs.
pub fn read_runs(text: &str) -> Result<Vec<Summary>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    match v.get("runs") {
        Some(runs) => runs
            .as_array()
            .ok_or("runs: expected a list")?
            .iter()
            .map(Summary::from_json)
            .collect(),
        None => Ok(vec![Summary::from_json(&v)?]),
    }
}

/// Merges the summaries of the shards `0/N` .. `N-1/N` of one run (each a list of runs, one
/// per variant, as [`read_runs`] gives them) into the summaries of the whole run: exactly
/// what one machine playing every game would have produced. Refused unless every shard of the
/// same `N` is there once, and all are of the same game, variants, players, seed, agents and
/// number of games.
pub fn merge(shards: Vec<Vec<Summary>>) -> Result<Vec<Summary>, String> {
    let mut shards = shards.into_iter();
    let first = shards.next().ok_or("nothing to merge")?;
    let count = match first.first().and_then(|s| s.shard) {
        Some((s, _)) => s.count,
        None => return Err("the first file is not a shard (simulate --shard I/N)".into()),
    };
    let mut seen = vec![false; count.min(1 << 20) as usize];
    let mut out = first;
    let mut mark = |runs: &[Summary], file: usize| -> Result<(), String> {
        let Some((s, _)) = runs.first().and_then(|r| r.shard) else {
            return Err(format!("file {}: not a shard", file + 1));
        };
        if s.count != count {
            return Err(format!(
                "file {}: shard {}/{} of another division than /{count}",
                file + 1,
                s.index,
                s.count
            ));
        }
        let slot = seen.get_mut(s.index as usize).ok_or("too many shards")?;
        if *slot {
            return Err(format!("shard {}/{count} is given twice", s.index));
        }
        *slot = true;
        Ok(())
    };
    mark(&out, 0)?;
    for (i, runs) in shards.enumerate() {
        mark(&runs, i + 1)?;
        if runs.len() != out.len() {
            return Err(format!("file {}: another number of variants", i + 2));
        }
        for (o, r) in out.iter_mut().zip(runs) {
            same_run(o, &r).map_err(|e| format!("file {}: {e}", i + 2))?;
            o.merge(r)
                .map_err(|e| format!("file {}: cannot add it: {e}", i + 2))?;
        }
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, s)| !**s)
        .map(|(i, _)| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(format!("missing shards: {}", missing.join(", ")));
    }
    for o in &mut out {
        if let Some((_, total)) = o.shard {
            if o.games != total {
                return Err(format!(
                    "the shards played {} games, not the {total} of the run",
                    o.games
                ));
            }
        }
        o.shard = None;
    }
    Ok(out)
}

/// Whether two summaries are of the same run (so that adding them makes sense).
fn same_run(a: &Summary, b: &Summary) -> Result<(), String> {
    let names = |s: &Summary| s.actions.iter().map(|a| a.name.clone()).collect::<Vec<_>>();
    let checks = [
        (a.game == b.game, "another game"),
        (a.variant == b.variant, "another variant"),
        (a.players == b.players, "another number of players"),
        (a.seed == b.seed, "another seed"),
        (a.agents == b.agents, "other agents"),
        (names(a) == names(b), "other actions (another rules file?)"),
        (
            a.shard.map(|s| s.1) == b.shard.map(|s| s.1),
            "another number of games",
        ),
    ];
    match checks.iter().find(|(ok, _)| !ok) {
        Some((_, why)) => Err(why.to_string()),
        None => Ok(()),
    }
}

/// The figures of a comparison as text lines, for the terminal.
pub fn differences_text(runs: &[Summary]) -> String {
    let mut s = String::new();
    for r in runs.iter().skip(1) {
        let diffs = compare(&runs[0], r);
        s += &super::words::wrap(&super::words::summary(&runs[0], r, &diffs), 92);
        s += "\n";
        s += &format!(
            "{} against {} (clear: Holm-corrected p < {}):\n",
            r.variant_label(),
            runs[0].variant_label(),
            stats::ALPHA
        );
        for d in diffs {
            s += &format!(
                "  {} {:<28} {:>10} -> {:<10} p {:.4} (Holm {:.4}, {})\n",
                if d.clear() { "*" } else { " " },
                d.measure,
                d.kind.show(d.base),
                d.kind.show(d.other),
                d.p,
                d.p_holm,
                d.test.name()
            );
        }
    }
    s
}
