//! Progress bars on stderr for the long commands (`simulate`, `count`, `bench`), drawn only
//! when stderr is a terminal: piped or redirected output gets nothing extra.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::io::IsTerminal;

/// A bar of `len` steps named `unit`, with the rate (with `rate`) and the time left; `None`
/// when stderr is not a terminal.
pub(crate) fn bar(len: u64, unit: &str, rate: bool) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let b = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    let rate = if rate {
        format!("  {{rate}} {unit}/s")
    } else {
        String::new()
    };
    let template = format!(
        "{{bar:40.cyan/blue}} {{pos}}/{{len}} {unit}{rate}  {{elapsed_precise}} elapsed, {{eta}} left"
    );
    let style = ProgressStyle::with_template(&template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{:.0}", s.per_sec());
        });
    b.set_style(style);
    Some(b)
}
