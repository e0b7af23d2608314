//! Diagnostics of the checker: every problem with a span, a label and, where it helps, a hint.

use super::Code;
use crate::source::{printable, Listing, Span};
use crate::syntax::{SyntaxError, SyntaxKind};
use miette::{Diagnostic, LabeledSpan, Severity, SourceCode};
use std::fmt;
use std::sync::Arc;

/// One problem found in a rules file.
#[derive(Debug, Clone)]
pub struct Problem {
    /// What kind of problem it is (shown as `rulebook::check::unknown_name`).
    pub code: Code,
    /// Error or warning; only errors stop a file from loading.
    pub severity: Severity,
    /// The one-line description.
    pub message: String,
    /// Where in the file the problem is.
    pub span: Span,
    /// The label shown under the span.
    pub label: String,
    /// A second place that explains the first (e.g. the earlier definition of a duplicate),
    /// with its label.
    pub related: Option<(Span, String)>,
    /// A hint on how to fix it.
    pub help: Option<String>,
    /// The file the spans point into, with its name, as diagnostics show it.
    pub src: Arc<Listing>,
}

impl Problem {
    /// The problem of a syntax error (or of a limit or a number found before the tree was
    /// built).
    pub fn from_syntax(e: &SyntaxError) -> Self {
        Problem {
            code: match e.kind {
                SyntaxKind::Syntax => Code::Syntax,
                SyntaxKind::Limit => Code::Limit,
                SyntaxKind::Number => Code::Number,
            },
            severity: Severity::Error,
            message: e.message.clone(),
            span: Span::new(e.span.offset(), e.span.offset() + e.span.len()),
            label: e.label.clone(),
            related: None,
            help: e.help.clone(),
            src: e.src.clone(),
        }
    }
}

/// The message, with anything unsafe for a terminal escaped (the texts of a problem quote
/// the rules file).
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&printable(&self.message))
    }
}

impl std::error::Error for Problem {}

impl Diagnostic for Problem {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(format!("rulebook::{}", self.code)))
    }
    fn severity(&self) -> Option<Severity> {
        Some(self.severity)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(printable(h).into_owned()) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(self.src.as_ref())
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let mut v = vec![LabeledSpan::new_primary_with_span(
            Some(printable(&self.label).into_owned()),
            self.span,
        )];
        if let Some((sp, l)) = &self.related {
            v.push(LabeledSpan::new_with_span(
                Some(printable(l).into_owned()),
                *sp,
            ));
        }
        Some(Box::new(v.into_iter()))
    }
}

/// Every problem the checker found, errors and warnings. A file with more than
/// [`MAX_DIAGNOSTICS`](crate::ir::MAX_DIAGNOSTICS) problems keeps that many in full, then a
/// last note (`check::limit`) that says how many more were found; those are only counted.
#[derive(Debug, Default)]
pub struct Diagnostics {
    /// The problems, in the order found (and the note, last, when some were left out).
    pub problems: Vec<Problem>,
    /// Errors found past the limit: counted, not kept.
    pub omitted_errors: usize,
    /// Warnings found past the limit: counted, not kept.
    pub omitted_warnings: usize,
}

impl Diagnostics {
    /// Whether any problem is an error.
    pub fn has_errors(&self) -> bool {
        self.errors() > 0
    }
    /// The number of errors, kept or not (the note is none).
    pub fn errors(&self) -> usize {
        self.count(Severity::Error) + self.omitted_errors
    }
    /// The number of warnings, kept or not (the note is none).
    pub fn warnings(&self) -> usize {
        self.count(Severity::Warning) + self.omitted_warnings
    }
    /// The kept problems of a severity, without the note.
    fn count(&self, severity: Severity) -> usize {
        let kept = match self.omitted_errors + self.omitted_warnings {
            0 => &self.problems[..],
            _ => &self.problems[..self.problems.len().saturating_sub(1)],
        };
        kept.iter().filter(|p| p.severity == severity).count()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} error(s), {} warning(s)",
            self.errors(),
            self.warnings()
        )
    }
}

impl std::error::Error for Diagnostics {}

impl Diagnostic for Diagnostics {
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        Some(Box::new(self.problems.iter().map(|p| p as &dyn Diagnostic)))
    }
}
