//! The summary in words at the top of a comparison of variants: one paragraph built from the
//! differences [`super::compare::compare`] finds clear (after Holm's correction), each said
//! as a phrase with both figures, and what is left when nothing differs clearly. Nothing here
//! knows a game: the phrases come from the measures' kinds.

use super::compare::{Difference, Measure};
use super::stats;
use super::summary::Summary;

/// A run's name in the words: its variant in backquotes, or the base rules.
fn label(s: &Summary) -> String {
    match &s.variant {
        Some(v) => format!("`{v}`"),
        None => "the base rules".into(),
    }
}

fn pct(x: f64) -> String {
    format!("{}%", fixed(100.0 * x, 1))
}

/// `x` with `digits` decimals, rounded half away from zero as the tables round.
fn fixed(x: f64, digits: usize) -> String {
    let scale = 10f64.powi(digits as i32);
    format!("{:.*}", digits, (x * scale).round() / scale)
}

/// The phrase of one difference: the variant's figure first, then the base's.
fn phrase(d: &Difference) -> String {
    let up = d.other > d.base;
    let (b, o) = (d.base, d.other);
    let more = if up { "more" } else { "less" };
    let fewer = if up { "more" } else { "fewer" };
    let both = |f: &dyn Fn(f64) -> String| format!("{} against {}", f(o), f(b));
    match d.kind {
        Measure::WinRate(p) => format!("p{} wins {more} often ({})", p + 1, both(&pct)),
        Measure::Draws => format!("{fewer} games end without a winner ({})", both(&pct)),
        Measure::FirstPlayer => format!("the first player wins {more} often ({})", both(&pct)),
        Measure::Errors => format!("{fewer} games stop with an error ({})", both(&pct)),
        Measure::Length => {
            let by = if b > 0.0 {
                format!("{:.0}% ", 100.0 * (o / b - 1.0).abs())
            } else {
                String::new()
            };
            format!(
                "games are {by}{} ({} player decisions against {})",
                if up { "longer" } else { "shorter" },
                fixed(o, 1),
                fixed(b, 1)
            )
        }
        Measure::Score(p) => format!(
            "p{} scores {} ({} against {} on average)",
            p + 1,
            if up { "more" } else { "less" },
            fixed(o, 2),
            fixed(b, 2)
        ),
        Measure::Options => format!(
            "decisions offer {fewer} options ({} against {})",
            fixed(o, 1),
            fixed(b, 1)
        ),
        Measure::Forced => format!("{fewer} decisions are forced ({})", both(&pct)),
        Measure::LeadChanges => {
            format!("the lead changes hands {more} often ({o:.2} against {b:.2} times a game)")
        }
        Measure::Comebacks => format!(
            "the winner comes from behind in the second half {more} often ({})",
            both(&pct)
        ),
        Measure::DecidedAt => format!(
            "the winner takes the lead for good {} (after {} of the game)",
            if up { "later" } else { "earlier" },
            both(&pct)
        ),
        Measure::Uncertainty => format!(
            "the outcome stays uncertain {} (the winner is not the sole leader for {} of the \
             game)",
            if up { "longer" } else { "less long" },
            both(&pct)
        ),
        Measure::LeaderWins(k) => format!(
            "the leader at {} of the game wins {more} often ({})",
            super::play::QUARTERS
                .get(k as usize)
                .unwrap_or(&"some point"),
            both(&pct)
        ),
    }
}

/// One paragraph saying how `other` differs from `base`, from the clear differences among
/// `diffs` (in the order of the table), naming both runs; when none is clear, it says so.
pub fn summary(base: &Summary, other: &Summary, diffs: &[Difference]) -> String {
    let clear: Vec<String> = diffs.iter().filter(|d| d.clear()).map(phrase).collect();
    let (under, against) = (label(other), label(base));
    let games = if base.games == other.games {
        format!("{} games each on the same seeds", base.games)
    } else {
        format!("{} and {} games", other.games, base.games)
    };
    let m = diffs.len();
    if clear.is_empty() {
        return format!(
            "Under {under}, none of the {m} measures differs clearly from {against} ({games}; \
             clear: Holm-corrected p < {}).",
            stats::ALPHA
        );
    }
    let list = match clear.as_slice() {
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [init @ .., last] => format!("{}, and {last}", init.join(", ")),
        [] => String::new(),
    };
    let rest = match m - clear.len() {
        0 => String::new(),
        1 => "; the other measure does not differ clearly".into(),
        k => format!("; the other {k} measures do not differ clearly"),
    };
    format!("Under {under}, against {against} ({games}): {list}{rest}.")
}

/// `text` broken into lines of at most `width` characters (a longer word keeps its line).
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in text.split_whitespace() {
        let n = word.chars().count();
        if line > 0 && line + 1 + n > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += n;
    }
    out.push('\n');
    out
}
