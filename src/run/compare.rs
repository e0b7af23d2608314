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
}

impl Test {
    /// The test's name as reports print it.
    pub fn name(self) -> &'static str {
        match self {
            Test::TwoProportions => "two-proportion z-test",
            Test::Welch => "Welch's t-test",
        }
    }
}

/// One measure of a variant against the base run.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// What is measured: `win rate p1`, `mean length`, ...
    pub measure: String,
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
/// length and each seat's mean score (Welch's t-tests). The p-values are corrected with
/// Holm's method over these measures, so that "clear" holds at a family-wise 5%.
pub fn compare(base: &Summary, other: &Summary) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut rate = |measure: String, (k1, n1): (u64, u64), (k2, n2): (u64, u64)| {
        out.push(Difference {
            measure,
            base: ratio(k1, n1),
            other: ratio(k2, n2),
            test: Test::TwoProportions,
            p: stats::two_proportions(k1, n1, k2, n2),
            p_holm: 1.0,
        })
    };
    let seats = base.players.min(other.players) as usize;
    for p in 0..seats {
        rate(
            format!("win rate p{}", p + 1),
            (base.wins[p], base.completed),
            (other.wins[p], other.completed),
        );
    }
    rate(
        "draw rate".into(),
        (base.draws, base.completed),
        (other.draws, other.completed),
    );
    let (fb, fo) = (base.first_player(), other.first_player());
    rate("first player's win rate".into(), (fb.k, fb.n), (fo.k, fo.n));
    rate(
        "error rate".into(),
        (base.errors, base.games),
        (other.errors, other.games),
    );
    let mut mean = |measure: String, a: Moments, b: Moments| {
        out.push(Difference {
            measure,
            base: a.mean,
            other: b.mean,
            test: Test::Welch,
            p: stats::welch(a, b),
            p_holm: 1.0,
        })
    };
    mean(
        "mean length".into(),
        base.length_moments(),
        other.length_moments(),
    );
    for p in 0..seats {
        mean(
            format!("mean score p{}", p + 1),
            base.score_moments(p),
            other.score_moments(p),
        );
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
                    json!({
                        "base": runs[0].variant,
                        "variant": r.variant,
                        "measures": compare(&runs[0], r).iter().map(|d| json!({
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
        s += &format!(
            "{} against {} (clear: Holm-corrected p < {}):\n",
            r.variant_label(),
            runs[0].variant_label(),
            stats::ALPHA
        );
        for d in compare(&runs[0], r) {
            let show = |x: f64| match d.test {
                Test::TwoProportions => format!("{:.1}%", 100.0 * x),
                Test::Welch => format!("{}", round2(x)),
            };
            s += &format!(
                "  {} {:<26} {:>10} -> {:<10} p {:.4} (Holm {:.4}, {})\n",
                if d.clear() { "*" } else { " " },
                d.measure,
                show(d.base),
                show(d.other),
                d.p,
                d.p_holm,
                d.test.name()
            );
        }
    }
    s
}
