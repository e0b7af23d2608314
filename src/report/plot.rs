//! The charts of a report, drawn by plotters into SVG text: bars over named categories (with
//! intervals), histograms, lines over integers, horizontal bars. Only plotters' basic shapes
//! are used (rectangles, paths, text), so its default features stay off.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

type Fallible = Result<(), Box<dyn std::error::Error>>;

/// The colours of the series (seats, bars), colour-blind safe (Okabe and Ito).
pub const COLORS: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(0, 0, 0),
];

/// The colour of series `i`.
pub fn color(i: usize) -> RGBColor {
    COLORS[i % COLORS.len()]
}

/// Width and height of a chart, in pixels.
pub const SIZE: (u32, u32) = (460, 280);

/// Draws into an SVG string; a chart that fails to draw becomes a line saying so.
fn svg(size: (u32, u32), draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Fallible) -> String {
    let mut s = String::new();
    let result = {
        let root = SVGBackend::with_string(&mut s, size).into_drawing_area();
        let r = root
            .fill(&WHITE)
            .map_err(Into::into)
            .and_then(|_| draw(&root));
        r.and_then(|_| root.present().map_err(Into::into))
    };
    match result {
        Ok(()) => s,
        Err(e) => format!(
            "<p class=\"fail\">this chart could not be drawn: {}</p>",
            super::esc(&e.to_string())
        ),
    }
}

fn font(size: u32) -> TextStyle<'static> {
    ("sans-serif", size).into_font().color(&BLACK)
}

/// A bar for each category, with an optional interval (`low`, `high`) drawn as an error bar,
/// and an optional dashed reference line with its label. `y` is the value range.
pub struct Bars<'a> {
    /// The chart's title.
    pub title: &'a str,
    /// The name of the values.
    pub y_desc: &'a str,
    /// The categories, in order.
    pub names: &'a [String],
    /// A value per category.
    pub values: &'a [f64],
    /// An interval per category, or none.
    pub intervals: Option<&'a [(f64, f64)]>,
    /// The range of the value axis.
    pub y: (f64, f64),
    /// A reference value and its label.
    pub reference: Option<(f64, &'a str)>,
    /// Show values as percentages.
    pub percent: bool,
}

/// Bars over named categories.
pub fn bars(b: &Bars) -> String {
    svg(SIZE, |root| {
        let n = b.names.len().max(1) as f64;
        let mut chart = ChartBuilder::on(root)
            .caption(b.title, font(16))
            .margin(8)
            .x_label_area_size(28)
            .y_label_area_size(48)
            .build_cartesian_2d(0f64..n, b.y.0..b.y.1)?;
        let percent = b.percent;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc(b.y_desc)
            .y_label_formatter(&|v| {
                if percent {
                    format!("{:.0}%", v * 100.0)
                } else {
                    format!("{v:.1}")
                }
            })
            .draw()?;
        chart.draw_series(b.values.iter().enumerate().map(|(i, v)| {
            let x = i as f64;
            Rectangle::new(
                [(x + 0.2, b.y.0.max(0.0)), (x + 0.8, *v)],
                color(i).mix(0.85).filled(),
            )
        }))?;
        if let Some(iv) = b.intervals {
            chart.draw_series(iv.iter().enumerate().flat_map(|(i, (lo, hi))| {
                let x = i as f64 + 0.5;
                [
                    PathElement::new(vec![(x, *lo), (x, *hi)], BLACK.stroke_width(2)),
                    PathElement::new(vec![(x - 0.1, *lo), (x + 0.1, *lo)], BLACK.stroke_width(2)),
                    PathElement::new(vec![(x - 0.1, *hi), (x + 0.1, *hi)], BLACK.stroke_width(2)),
                ]
            }))?;
        }
        if let Some((r, label)) = b.reference {
            dashed(&mut chart, r, n)?;
            chart.draw_series(std::iter::once(Text::new(
                label.to_string(),
                (0.05, r),
                font(12).pos(Pos::new(HPos::Left, VPos::Bottom)),
            )))?;
        }
        for (i, name) in b.names.iter().enumerate() {
            let (px, py) = chart.backend_coord(&(i as f64 + 0.5, b.y.0));
            root.draw(&Text::new(
                name.clone(),
                (px, py + 6),
                font(13).pos(Pos::new(HPos::Center, VPos::Top)),
            ))?;
        }
        Ok(())
    })
}

/// A horizontal dashed line at `y` across `0..n`.
fn dashed<DB: DrawingBackend>(
    chart: &mut ChartContext<
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    y: f64,
    n: f64,
) -> Fallible
where
    DB::ErrorType: 'static,
{
    let steps = 40;
    chart.draw_series((0..steps).step_by(2).map(|k| {
        let a = n * k as f64 / steps as f64;
        let b = n * (k + 1) as f64 / steps as f64;
        PathElement::new(vec![(a, y), (b, y)], RGBColor(90, 90, 90).stroke_width(1))
    }))?;
    Ok(())
}

/// A tick label on an axis of whole numbers: the number, or nothing between two.
fn whole(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        String::new()
    }
}

/// A histogram of counts over whole numbers: `(value, count)` pairs, grouped into at most 40
/// bins of equal width over `x` (the value range shared by the charts it is compared with).
pub fn histogram(title: &str, x_desc: &str, data: &[(i64, u64)], x: (i64, i64)) -> String {
    svg(SIZE, |root| {
        let (lo, hi) = (x.0, x.1.max(x.0));
        let span = (hi - lo + 1) as u64;
        let width = span.div_ceil(40).max(1) as i64;
        let bins = (span as i64).div_euclid(width) + i64::from(span as i64 % width != 0);
        let mut counts = vec![0u64; bins.max(1) as usize];
        for (v, c) in data {
            let b = ((v - lo) / width).clamp(0, bins - 1) as usize;
            counts[b] += c;
        }
        let total: u64 = data.iter().map(|(_, c)| c).sum();
        let share = |c: u64| {
            if total == 0 {
                0.0
            } else {
                c as f64 / total as f64
            }
        };
        let top = counts
            .iter()
            .map(|c| share(*c))
            .fold(0.0, f64::max)
            .max(0.01)
            * 1.1;
        let mut chart = ChartBuilder::on(root)
            .caption(title, font(16))
            .margin(8)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(lo as f64 - 0.5..(lo + bins * width) as f64 - 0.5, 0f64..top)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc(x_desc)
            .y_desc("share of games")
            .x_labels((bins as usize + 1).min(12))
            .x_label_formatter(&whole)
            .y_label_formatter(&|v| format!("{:.0}%", v * 100.0))
            .draw()?;
        chart.draw_series(counts.iter().enumerate().map(|(b, c)| {
            let x0 = (lo + b as i64 * width) as f64 - 0.5;
            Rectangle::new(
                [
                    (x0 + 0.05 * width as f64, 0.0),
                    (x0 + 0.95 * width as f64, share(*c)),
                ],
                color(0).mix(0.85).filled(),
            )
        }))?;
        Ok(())
    })
}

/// Lines over whole numbers, one per named series, each `(value, count)` pairs drawn as the
/// share of its total; with a legend. `x` is the value range.
pub fn lines(
    title: &str,
    x_desc: &str,
    series: &[(String, Vec<(i64, u64)>)],
    x: (i64, i64),
) -> String {
    svg(SIZE, |root| {
        // Scores between the observed ones count 0 (when there are not too many to draw).
        let fill = x.1.saturating_sub(x.0) <= 400;
        let shares: Vec<Vec<(f64, f64)>> = series
            .iter()
            .map(|(_, d)| {
                let total = d.iter().map(|(_, c)| c).sum::<u64>().max(1) as f64;
                if fill {
                    let mut at = d.iter().peekable();
                    (x.0..=x.1)
                        .map(|v| {
                            let c = match at.peek() {
                                Some((k, c)) if *k == v => {
                                    at.next();
                                    *c
                                }
                                _ => 0,
                            };
                            (v as f64, c as f64 / total)
                        })
                        .collect()
                } else {
                    d.iter()
                        .map(|(v, c)| (*v as f64, *c as f64 / total))
                        .collect()
                }
            })
            .collect();
        let top = shares
            .iter()
            .flatten()
            .map(|p| p.1)
            .fold(0.0, f64::max)
            .max(0.01)
            * 1.15;
        let (lo, hi) = (x.0 as f64 - 0.5, x.1.max(x.0) as f64 + 0.5);
        let whole_values = (x.1.max(x.0) - x.0 + 1) as usize;
        let mut chart = ChartBuilder::on(root)
            .caption(title, font(16))
            .margin(8)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(lo..hi, 0f64..top)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc("share of games")
            .x_labels((whole_values + 1).min(12))
            .x_label_formatter(&whole)
            .y_label_formatter(&|v| format!("{:.0}%", v * 100.0))
            .draw()?;
        for (i, ((name, _), pts)) in series.iter().zip(&shares).enumerate() {
            let c = color(i);
            chart
                .draw_series(std::iter::once(PathElement::new(
                    pts.clone(),
                    c.stroke_width(2),
                )))?
                .label(name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
                });
            chart.draw_series(pts.iter().map(|p| Circle::new(*p, 3, c.filled())))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(RGBColor(180, 180, 180))
            .label_font(font(12))
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
        Ok(())
    })
}

/// Horizontal bars, one per name (top to bottom), with the value written after each; `max`
/// is the value axis's end (shared by the charts compared).
pub fn hbars(title: &str, x_desc: &str, names: &[String], values: &[f64], max: f64) -> String {
    let height = (70 + 22 * names.len().max(1)) as u32;
    svg((SIZE.0, height), |root| {
        let n = names.len().max(1) as f64;
        let label_width = names
            .iter()
            .map(|s| s.chars().count())
            .max()
            .unwrap_or(4)
            .min(28) as u32
            * 7
            + 12;
        let mut chart = ChartBuilder::on(root)
            .caption(title, font(16))
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(label_width)
            .build_cartesian_2d(0f64..max.max(1e-9) * 1.15, 0f64..n)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_desc(x_desc)
            .x_label_formatter(&|v| format!("{:.0}%", v * 100.0))
            .draw()?;
        chart.draw_series(values.iter().enumerate().map(|(i, v)| {
            let y = n - i as f64;
            Rectangle::new([(0.0, y - 0.8), (*v, y - 0.2)], color(0).mix(0.85).filled())
        }))?;
        chart.draw_series(values.iter().enumerate().map(|(i, v)| {
            Text::new(
                format!("{:.1}%", v * 100.0),
                (*v, n - i as f64 - 0.5),
                font(11).pos(Pos::new(HPos::Left, VPos::Center)),
            )
        }))?;
        for (i, name) in names.iter().enumerate() {
            let (px, py) = chart.backend_coord(&(0.0, n - i as f64 - 0.5));
            let shown: String = name.chars().take(28).collect();
            root.draw(&Text::new(
                shown,
                (px - 6, py),
                font(12).pos(Pos::new(HPos::Right, VPos::Center)),
            ))?;
        }
        Ok(())
    })
}
