//! Diagnostics rendered as text (the `cli` feature, which brings miette's graphical
//! handler): plain, at a fixed width and without colour, for tests, snapshots and output that
//! is not a terminal. Embedders that render diagnostics themselves leave the feature out.
//!
//! A diagnostic whose source lines are wider than [`MAX_SHOWN_LINE`] characters is rendered
//! without them: its place and labels are written out as text instead. miette's handler
//! cannot draw a label past column 65,535 (it panics), and such a line is unreadable anyway.

use miette::{Diagnostic, GraphicalReportHandler, LabeledSpan, SourceCode};
use std::fmt;

/// The widest source line shown under a diagnostic, in characters.
pub const MAX_SHOWN_LINE: usize = 1_000;

/// Renders a diagnostic as plain text, 100 columns wide, without colour or links.
pub fn plain(d: &dyn Diagnostic) -> String {
    let handler =
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_width(100)
            .with_links(false);
    with(&handler, d)
}

/// Renders a diagnostic with a handler; without its source lines when they are too wide.
pub fn with(handler: &GraphicalReportHandler, d: &dyn Diagnostic) -> String {
    let mut out = String::new();
    let _ = if fits(d) {
        handler.render_report(&mut out, d)
    } else {
        handler.render_report(&mut out, &Unlisted(d))
    };
    out
}

/// Whether every line a diagnostic would show (its labels' lines and one line around each)
/// is at most [`MAX_SHOWN_LINE`] characters wide; so are those of its related diagnostics.
pub fn fits(d: &dyn Diagnostic) -> bool {
    let own = match (d.source_code(), d.labels()) {
        (Some(src), Some(labels)) => labels.into_iter().all(|l| {
            src.read_span(l.inner(), 1, 1).is_ok_and(|c| {
                String::from_utf8_lossy(c.data())
                    .split(['\n', '\r'])
                    .all(|line| line.chars().nth(MAX_SHOWN_LINE).is_none())
            })
        }),
        _ => true,
    };
    own && d.related().is_none_or(|mut r| r.all(fits))
}

/// A diagnostic shown without its source: each label becomes a line `at FILE:LINE:COLUMN:
/// label` after the message.
struct Unlisted<'a>(&'a dyn Diagnostic);

impl Unlisted<'_> {
    fn place(&self, src: &dyn SourceCode, l: &LabeledSpan) -> String {
        match src.read_span(l.inner(), 0, 0) {
            Ok(c) => format!(
                "{}{}:{}",
                c.name().map(|n| format!("{n}:")).unwrap_or_default(),
                c.line() + 1,
                c.column() + 1
            ),
            Err(_) => format!("byte {}", l.inner().offset()),
        }
    }
}

impl fmt::Display for Unlisted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        if let (Some(src), Some(labels)) = (self.0.source_code(), self.0.labels()) {
            for l in labels {
                write!(f, "\n  at {}", self.place(src, &l))?;
                if let Some(text) = l.label() {
                    write!(f, ": {text}")?;
                }
            }
            write!(f, "\n  (the line is too long to show)")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Unlisted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Unlisted<'_> {}

impl Diagnostic for Unlisted<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.0.code()
    }
    fn severity(&self) -> Option<miette::Severity> {
        self.0.severity()
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.0.help()
    }
    fn url<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.0.url()
    }
}
