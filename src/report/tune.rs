//! The HTML report of a `tune` search: per parameter and goal, every candidate's estimate
//! (with its 95% interval) against the parameter's value, the goal's range shaded, the best
//! candidate marked. Hand-drawn SVG; self-contained like the simulation report.

use super::{esc, STYLE};
use crate::run::tune::Tuning;
use std::fmt::Write;

const W: f64 = 460.0;
const H: f64 = 260.0;
const PAD: (f64, f64, f64, f64) = (52.0, 16.0, 30.0, 40.0); // left, right, top, bottom

/// The report of a search.
pub fn tune_html(game: &str, t: &Tuning) -> String {
    let mut h = String::new();
    let title = format!("{game}: tuning report");
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        esc(&title),
        esc(&title)
    );
    let best: Vec<String> = t
        .params
        .iter()
        .zip(&t.best.values)
        .map(|(p, v)| format!("{}={v}", p.name))
        .collect();
    let _ = writeln!(
        h,
        "<p class=\"meta\">{} games, {} candidates. Best: <b>{}</b> ({} games): {}</p>",
        t.games,
        t.trials.len(),
        esc(&best.join(", ")),
        t.best.games,
        if t.met {
            "<span class=\"none\">every goal met</span>"
        } else {
            "<span class=\"fail\">not every goal met</span>"
        }
    );
    h.push_str("<table><tr><th>goal</th><th>range</th><th>best</th><th>95% interval</th></tr>\n");
    for (g, e) in t.goals.iter().zip(&t.best.estimates) {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}..{}</td><td>{:.3}</td><td>{:.3} .. {:.3}</td></tr>",
            esc(&g.metric.name()),
            g.lo,
            g.hi,
            e.value,
            e.low,
            e.high
        );
    }
    h.push_str("</table>\n");
    for (pi, p) in t.params.iter().enumerate() {
        let _ = writeln!(h, "<h2>{}</h2>\n<div class=\"row\">", esc(&p.name));
        for (gi, g) in t.goals.iter().enumerate() {
            let _ = write!(
                h,
                "<figure><figcaption>{}</figcaption>",
                esc(&g.metric.name())
            );
            h.push_str(&chart(t, pi, gi));
            h.push_str("</figure>\n");
        }
        h.push_str("</div>\n");
    }
    h.push_str(
        "<p class=\"note\">Each dot is a candidate (its other parameters may differ); bars are \
         95% intervals; the band is the goal's range; the best candidate is drawn larger.</p>\n\
         </body>\n</html>\n",
    );
    h
}

/// One chart: goal `gi`'s estimate of every trial against parameter `pi`.
fn chart(t: &Tuning, pi: usize, gi: usize) -> String {
    let p = &t.params[pi];
    let g = &t.goals[gi];
    let points: Vec<(f64, f64, f64, f64, bool)> = t
        .trials
        .iter()
        .filter_map(|tr| {
            let e = tr.estimates.get(gi)?;
            let best = tr.values == t.best.values;
            Some((tr.values[pi] as f64, e.value, e.low, e.high, best))
        })
        .collect();
    let finite = |v: f64| if v.is_finite() { Some(v) } else { None };
    let ys = points
        .iter()
        .flat_map(|q| [finite(q.2), finite(q.3), Some(q.1)])
        .flatten()
        .chain([g.lo, g.hi]);
    let (mut y0, mut y1) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
        (a.min(y), b.max(y))
    });
    if y1 - y0 < 1e-9 {
        y0 -= 0.5;
        y1 += 0.5;
    }
    let (x0, x1) = (p.lo as f64 - 0.5, p.hi as f64 + 0.5);
    let sx = |x: f64| PAD.0 + (x - x0) / (x1 - x0) * (W - PAD.0 - PAD.1);
    let sy = |y: f64| {
        let y = y.clamp(y0, y1);
        H - PAD.3 - (y - y0) / (y1 - y0) * (H - PAD.2 - PAD.3)
    };
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\">"
    );
    let _ = write!(
        s,
        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#d3f9d8\"/>",
        PAD.0,
        sy(g.hi),
        W - PAD.0 - PAD.1,
        (sy(g.lo) - sy(g.hi)).max(1.0)
    );
    let _ = write!(
        s,
        "<line x1=\"{l}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"#888\"/><line x1=\"{l}\" y1=\"{t}\" x2=\"{l}\" y2=\"{b}\" stroke=\"#888\"/>",
        l = PAD.0,
        r = W - PAD.1,
        t = PAD.2,
        b = H - PAD.3
    );
    for k in 0..=4 {
        let y = y0 + (y1 - y0) * k as f64 / 4.0;
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
            PAD.0 - 4.0,
            sy(y) + 4.0,
            short(y)
        );
    }
    let step = ((p.hi - p.lo) / 8).max(1);
    let mut x = p.lo;
    while x <= p.hi {
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\">{x}</text>",
            sx(x as f64),
            H - PAD.3 + 14.0
        );
        x = match x.checked_add(step) {
            Some(n) => n,
            None => break,
        };
    }
    let _ = write!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\">{}</text>",
        (PAD.0 + W - PAD.1) / 2.0,
        H - 6.0,
        esc(&p.name)
    );
    for (x, v, lo, hi, best) in points {
        let cx = sx(x);
        if lo.is_finite() && hi.is_finite() {
            let _ = write!(
                s,
                "<line x1=\"{cx:.1}\" y1=\"{:.1}\" x2=\"{cx:.1}\" y2=\"{:.1}\" stroke=\"#1c7ed6\" stroke-opacity=\"0.5\"/>",
                sy(lo),
                sy(hi)
            );
        }
        let _ = write!(
            s,
            "<circle cx=\"{cx:.1}\" cy=\"{:.1}\" r=\"{}\" fill=\"{}\"/>",
            sy(v),
            if best { 6 } else { 3 },
            if best { "#d9480f" } else { "#1c7ed6" }
        );
    }
    s.push_str("</svg>");
    s
}

/// A number for an axis label.
fn short(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}
