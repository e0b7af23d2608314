//! HTML reports of simulations: one self-contained file (inline CSS and SVG, no script, no
//! network) with the figures of one or more [`Summary`]s, variants side by side and the
//! statistically clear differences marked. The figures come from [`crate::run`]; this module
//! only lays them out and draws them ([`plot`], with plotters).

mod plot;
mod tune;

pub use tune::tune_html;

use crate::run::compare::{self, Difference};
use crate::run::stats;
use crate::run::Summary;
use std::fmt::Write;

/// Escapes text for HTML.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = r#"
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1000px; padding: 0 1em; color: #222; }
h1 { margin-bottom: 0.2em; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.6em; }
.meta { color: #555; }
.row { display: flex; flex-wrap: wrap; gap: 1em; }
figure { flex: 1 1 0; min-width: 300px; max-width: 480px; box-sizing: border-box; margin: 0; border: 1px solid #e3e3e3; border-radius: 4px; padding: 0.4em; }
figcaption { font-weight: 600; text-align: center; color: #333; }
svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border-bottom: 1px solid #e3e3e3; padding: 0.25em 0.7em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
tr.clear td { background: #fff3cd; font-weight: 600; }
.badge { background: #d9480f; color: white; border-radius: 3px; padding: 0 0.4em; font-size: 0.85em; }
.none { color: #2b8a3e; }
.warn { color: #d9480f; }
.fail { color: #c92a2a; }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; }
.note { color: #555; font-size: 0.92em; }
.words { background: #f1f3f5; border-left: 4px solid #1c7ed6; padding: 0.6em 0.9em; }
"#;

/// The report of a run: one summary, or several variants played on the same seeds (the first
/// is the base the others are compared with).
pub fn html(runs: &[Summary]) -> String {
    let mut h = String::new();
    let Some(first) = runs.first() else {
        return "<!DOCTYPE html><html><body><p>No runs.</p></body></html>\n".into();
    };
    let title = format!("{}: simulation report", first.game);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        esc(&title),
        esc(&first.game)
    );
    let _ = writeln!(
        h,
        "<p class=\"meta\">{} players · seed {} · {} games per variant · agents: {} · variants: {}</p>",
        first.players,
        first.seed,
        first.games,
        esc(&first.agents.join(", ")),
        esc(&runs.iter().map(Summary::variant_label).collect::<Vec<_>>().join(", "))
    );
    if runs.len() > 1 {
        in_words(&mut h, runs);
    }
    overview(&mut h, runs);
    if runs.len() > 1 {
        differences(&mut h, runs);
    }
    win_rates(&mut h, runs);
    first_player(&mut h, runs);
    scores(&mut h, runs);
    lengths(&mut h, runs);
    decisions(&mut h, runs);
    actions(&mut h, runs);
    errors(&mut h, runs);
    h.push_str("</body>\n</html>\n");
    h
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn overview(h: &mut String, runs: &[Summary]) {
    h.push_str("<table>\n<tr><th></th>");
    for r in runs {
        let _ = write!(h, "<th>{}</th>", esc(r.variant_label()));
    }
    h.push_str("</tr>\n");
    let row = |h: &mut String, name: &str, f: &dyn Fn(&Summary) -> String| {
        let _ = write!(h, "<tr><td>{name}</td>");
        for r in runs {
            let _ = write!(h, "<td>{}</td>", f(r));
        }
        h.push_str("</tr>\n");
    };
    row(h, "games", &|r| r.games.to_string());
    row(h, "completed", &|r| r.completed.to_string());
    row(h, "errors", &|r| r.errors.to_string());
    row(h, "no winner", &|r| {
        let d = r.draw_rate();
        format!("{} ({})", r.draws, pct(d.rate))
    });
    row(h, "length (player decisions)", &|r| {
        let (mean, min, max) = r.turns();
        format!("mean {mean:.1}, {min} to {max}")
    });
    // Measures of play (README, "Measures of play").
    row(h, "options a decision", &|r| {
        format!("{:.1}", r.play.branching())
    });
    row(h, "forced decisions", &|r| pct(r.play.forced_share()));
    if runs.iter().any(|r| r.play.lead_games > 0) {
        row(h, "lead changes a game", &|r| {
            format!("{:.2}", r.play.lead_changes_per_game())
        });
        // Of the games with one winner (none, say, in a cooperative game), and the
        // uncertainty not in the JSON of earlier versions.
        let won = |r: &Summary, since: bool, x: f64| {
            if r.play.won_games == 0 || (since && r.play.older) {
                "-".to_string()
            } else {
                pct(x)
            }
        };
        row(h, "winner behind in the second half", &|r| {
            won(r, false, r.play.comeback_share())
        });
        row(h, "winner leads for good after", &|r| {
            won(r, false, r.play.decided_at())
        });
        row(h, "winner not the sole leader for (uncertainty)", &|r| {
            won(r, true, r.play.uncertainty())
        });
        for (k, at) in ["1/4", "1/2", "3/4"].iter().enumerate() {
            let name = format!("leader at {at} of the game wins");
            row(h, &name, &|r| won(r, true, r.play.leader_wins_share(k)));
        }
    }
    h.push_str("</table>\n");
}

/// The summary in words of each comparison, at the top of the report: `name` in backquotes
/// is set as code.
fn in_words(h: &mut String, runs: &[Summary]) {
    for r in runs.iter().skip(1) {
        let diffs = compare::compare(&runs[0], r);
        let words = crate::run::words::summary(&runs[0], r, &diffs);
        let mut html = String::new();
        for (i, part) in words.split('`').enumerate() {
            if i % 2 == 1 {
                let _ = write!(html, "<code>{}</code>", esc(part));
            } else {
                html.push_str(&esc(part));
            }
        }
        let _ = writeln!(h, "<p class=\"words\">{html}</p>");
    }
}

fn differences(h: &mut String, runs: &[Summary]) {
    h.push_str("<h2>Differences between variants</h2>\n");
    let _ = writeln!(
        h,
        "<p class=\"note\">Each variant against <b>{}</b>, on the same seeds. Rates are compared with the {}, means with {} (options a decision and the share of forced decisions, ratios of sums over games, with its delta-method form: the games are the independent units); the p-values are corrected with Holm's method over the measures of each comparison, and a difference is marked <span class=\"badge\">clear</span> when the corrected p is below {}.</p>",
        esc(runs[0].variant_label()),
        compare::Test::TwoProportions.name(),
        compare::Test::Welch.name(),
        stats::ALPHA
    );
    for r in runs.iter().skip(1) {
        let diffs = compare::compare(&runs[0], r);
        let _ = writeln!(
            h,
            "<h3>{} against {}</h3>\n<table>\n<tr><th>measure</th><th>{}</th><th>{}</th><th>p</th><th>Holm p</th><th>test</th><th></th></tr>",
            esc(r.variant_label()),
            esc(runs[0].variant_label()),
            esc(runs[0].variant_label()),
            esc(r.variant_label())
        );
        for d in &diffs {
            difference_row(h, d);
        }
        h.push_str("</table>\n");
    }
}

fn difference_row(h: &mut String, d: &Difference) {
    let show = |x: f64| {
        if d.kind.percent() {
            pct(x)
        } else {
            format!("{x:.2}")
        }
    };
    let _ = writeln!(
        h,
        "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{:.4}</td><td>{:.4}</td><td>{}</td><td>{}</td></tr>",
        if d.clear() { " class=\"clear\"" } else { "" },
        esc(&d.measure),
        show(d.base),
        show(d.other),
        d.p,
        d.p_holm,
        d.test.name(),
        if d.clear() { "<span class=\"badge\">clear</span>" } else { "" }
    );
}

/// A section with one figure per run, side by side.
fn section(
    h: &mut String,
    title: &str,
    note: &str,
    runs: &[Summary],
    mut figure: impl FnMut(&Summary) -> String,
) {
    let _ = writeln!(h, "<h2>{}</h2>", esc(title));
    if !note.is_empty() {
        let _ = writeln!(h, "<p class=\"note\">{note}</p>");
    }
    h.push_str("<div class=\"row\">\n");
    for r in runs {
        let _ = writeln!(
            h,
            "<figure>\n<figcaption>{}</figcaption>\n{}\n</figure>",
            esc(r.variant_label()),
            figure(r)
        );
    }
    h.push_str("</div>\n");
}

fn seat_names(r: &Summary) -> Vec<String> {
    (1..=r.players).map(|p| format!("p{p}")).collect()
}

fn win_rates(h: &mut String, runs: &[Summary]) {
    section(
        h,
        "Win rate by seat",
        "Share of the completed games each seat won (a shared win counts for each winner), with its 95% Wilson interval; the dashed line is a fair share.",
        runs,
        |r| {
            let rates = r.win_rates();
            let names = seat_names(r);
            let values: Vec<f64> = rates.iter().map(|x| x.rate).collect();
            let iv: Vec<(f64, f64)> = rates.iter().map(|x| (x.low, x.high)).collect();
            let fair = format!("fair share {}", pct(r.fair_share()));
            plot::bars(&plot::Bars {
                title: "win rate",
                y_desc: "games won",
                names: &names,
                values: &values,
                intervals: Some(&iv),
                y: (0.0, 1.0),
                reference: Some((r.fair_share(), &fair)),
                percent: true,
            })
        },
    );
}

fn first_player(h: &mut String, runs: &[Summary]) {
    section(
        h,
        "First-player advantage",
        "How often the player who took the first decision of a game won, with its 95% Wilson interval, against a fair share (all wins over all seats' games). Also the seats that moved first.",
        runs,
        |r| {
            let fp = r.first_player();
            let fair = r.fair_share();
            let names = vec!["first player".to_string()];
            let chart = plot::bars(&plot::Bars {
                title: "the first player's win rate",
                y_desc: "games won",
                names: &names,
                values: &[fp.rate],
                intervals: Some(&[(fp.low, fp.high)]),
                y: (0.0, 1.0),
                reference: Some((fair, &format!("fair share {}", pct(fair)))),
                percent: true,
            });
            let seats: Vec<String> = r
                .first_moves
                .iter()
                .enumerate()
                .filter(|(_, n)| **n > 0)
                .map(|(i, n)| format!("p{} {n}", i + 1))
                .collect();
            format!(
                "{chart}<p>won {} ({} to {}); advantage <b>{:+.1} points</b> over a fair share; moved first: {}</p>",
                pct(fp.rate),
                pct(fp.low),
                pct(fp.high),
                100.0 * (fp.rate - fair),
                if seats.is_empty() { "-".into() } else { seats.join(", ") }
            )
        },
    );
}

fn scores(h: &mut String, runs: &[Summary]) {
    let all = runs
        .iter()
        .flat_map(|r| r.scores.iter().flat_map(|s| s.keys().copied()));
    let lo = all.clone().min().unwrap_or(0);
    let hi = all.max().unwrap_or(0);
    section(
        h,
        "Score distribution per seat",
        "Share of the completed games ending with each final score, one line per seat.",
        runs,
        |r| {
            let series: Vec<(String, Vec<(i64, u64)>)> = r
                .scores
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let m = r.score_moments(i).mean;
                    (
                        format!("p{} (mean {m:.2})", i + 1),
                        s.iter().map(|(k, v)| (*k, *v)).collect(),
                    )
                })
                .collect();
            if r.scores.iter().all(|s| s.keys().all(|k| *k == 0)) {
                return "<p class=\"note\">every game ended with every score 0 (the game keeps no score)</p>".to_string();
            }
            plot::lines("final scores", "score", &series, (lo, hi))
        },
    );
}

fn lengths(h: &mut String, runs: &[Summary]) {
    let lo = runs
        .iter()
        .filter_map(|r| r.lengths.keys().next())
        .min()
        .copied()
        .unwrap_or(0);
    let hi = runs
        .iter()
        .filter_map(|r| r.lengths.keys().next_back())
        .max()
        .copied()
        .unwrap_or(0);
    section(
        h,
        "Game length",
        "Player decisions per completed game (chance's not counted).",
        runs,
        |r| {
            let data: Vec<(i64, u64)> = r.lengths.iter().map(|(k, v)| (*k as i64, *v)).collect();
            let (mean, _, _) = r.turns();
            plot::histogram(
                &format!("length (mean {mean:.1})"),
                "player decisions",
                &data,
                (lo as i64, hi as i64),
            )
        },
    );
}

fn decisions(h: &mut String, runs: &[Summary]) {
    let top = runs
        .iter()
        .flat_map(|r| r.mean_decisions())
        .fold(0.0, f64::max)
        .max(1.0)
        * 1.1;
    section(
        h,
        "Decisions per player",
        "Mean decisions each seat took per completed game.",
        runs,
        |r| {
            let names = seat_names(r);
            plot::bars(&plot::Bars {
                title: "decisions per game",
                y_desc: "decisions",
                names: &names,
                values: &r.mean_decisions(),
                intervals: None,
                y: (0.0, top),
                reference: None,
                percent: false,
            })
        },
    );
}

fn actions(h: &mut String, runs: &[Summary]) {
    let share = |r: &Summary| -> Vec<f64> {
        let total: u64 = r.actions.iter().map(|a| a.chosen).sum();
        r.actions
            .iter()
            .map(|a| {
                if total == 0 {
                    0.0
                } else {
                    a.chosen as f64 / total as f64
                }
            })
            .collect()
    };
    let max = runs.iter().flat_map(share).fold(0.0, f64::max);
    section(
        h,
        "Actions chosen",
        "Share of all player decisions that took each action (or inline option of a <code>choose</code>).",
        runs,
        |r| {
            let names: Vec<String> = r.actions.iter().map(|a| a.name.clone()).collect();
            plot::hbars("actions chosen", "share of decisions", &names, &share(r), max)
        },
    );
    h.push_str("<h2>Actions never legal</h2>\n<p class=\"note\">Options of the game's choices that were legal in no game (actions run only by <code>do</code> are not listed). Legal in: the share of games in which an option was legal at least once.</p>\n<div class=\"row\">\n");
    for r in runs {
        let never = r.never_legal();
        let _ = write!(
            h,
            "<figure><figcaption>{}</figcaption>",
            esc(r.variant_label())
        );
        if never.is_empty() {
            h.push_str("<p class=\"none\">every option was legal in some game</p>");
        } else {
            let _ = write!(
                h,
                "<p class=\"warn\">never legal: {}</p>",
                never
                    .iter()
                    .map(|n| format!("<code>{}</code>", esc(n)))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        h.push_str("<table><tr><th>option</th><th>chosen</th><th>legal in</th></tr>");
        for a in &r.actions {
            let _ = write!(
                h,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                esc(&a.name),
                a.chosen,
                pct(if r.games == 0 {
                    0.0
                } else {
                    a.legal_games as f64 / r.games as f64
                })
            );
        }
        h.push_str("</table></figure>\n");
    }
    h.push_str("</div>\n");
}

fn errors(h: &mut String, runs: &[Summary]) {
    h.push_str("<h2>Errors</h2>\n<div class=\"row\">\n");
    for r in runs {
        let _ = write!(
            h,
            "<figure><figcaption>{}</figcaption>",
            esc(r.variant_label())
        );
        if r.error_list.is_empty() {
            h.push_str("<p class=\"none\">no game stopped with an error</p>");
        }
        for e in &r.error_list {
            let _ = write!(
                h,
                "<p class=\"fail\"><b>{}</b> {} stopped with <code>{}</code>: {}</p><p class=\"note\">first in game {} (seed {})</p>",
                e.count,
                if e.count == 1 { "game" } else { "games" },
                esc(&e.code),
                esc(&e.message),
                e.first_game,
                e.seed
            );
            if let Some(p) = &e.place {
                let caret: String = p
                    .text
                    .chars()
                    .take(p.column.saturating_sub(1))
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                let _ = write!(
                    h,
                    "<pre>{}:{}:{}\n{}\n{}^</pre>",
                    esc(&p.file),
                    p.line,
                    p.column,
                    esc(&p.text),
                    caret
                );
            }
        }
        h.push_str("</figure>\n");
    }
    h.push_str("</div>\n");
}
