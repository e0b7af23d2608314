//! Diagnostics rendered as text (the `cli` feature, which brings miette's graphical
//! handler): plain, at a fixed width and without colour, for tests, snapshots and output that
//! is not a terminal. Embedders that render diagnostics themselves leave the feature out.

use miette::Diagnostic;

/// Renders a diagnostic as plain text, 100 columns wide, without colour or links.
pub fn plain(d: &dyn Diagnostic) -> String {
    let handler =
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_width(100)
            .with_links(false);
    let mut out = String::new();
    let _ = handler.render_report(&mut out, d);
    out
}
