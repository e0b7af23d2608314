//! Progress bars on stderr for the long commands (`simulate`, `count`, `bench`), drawn only
//! when stderr is a terminal: piped or redirected output gets nothing extra.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A bar of `len` steps named `unit`, with the rate and the time left; `None` when stderr is
/// not a terminal.
pub(crate) fn bar(len: u64, unit: &str) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let b = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    let template = format!(
        "{{bar:40.cyan/blue}} {{pos}}/{{len}} {unit}  {{per_sec}}  {{elapsed_precise}} elapsed, {{eta}} left"
    );
    b.set_style(
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Some(b)
}
