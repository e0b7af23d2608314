//! Diagnostics of the checker: every problem with a span, a label and, where it helps, a hint.

use super::Code;
use crate::source::Span;
use crate::syntax::SyntaxError;
use miette::{Diagnostic, LabeledSpan, NamedSource, Severity, SourceCode};
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
    /// The file the spans point into, with its name.
    pub src: Arc<NamedSource<String>>,
}

impl Problem {
    /// The problem of a syntax error.
    pub fn from_syntax(e: &SyntaxError, src: Arc<NamedSource<String>>) -> Self {
        Problem {
            code: Code::Syntax,
            severity: Severity::Error,
            message: e.message.clone(),
            span: Span::new(e.span.offset(), e.span.offset() + e.span.len()),
            label: e.label.clone(),
            related: None,
            help: e.help.clone(),
            src,
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
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
            .map(|h| Box::new(h.clone()) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(self.src.as_ref())
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let mut v = vec![LabeledSpan::new_primary_with_span(
            Some(self.label.clone()),
            self.span,
        )];
        if let Some((sp, l)) = &self.related {
            v.push(LabeledSpan::new_with_span(Some(l.clone()), *sp));
        }
        Some(Box::new(v.into_iter()))
    }
}

/// Every problem the checker found, errors and warnings.
#[derive(Debug, Default)]
pub struct Diagnostics {
    /// The problems, in the order found.
    pub problems: Vec<Problem>,
}

impl Diagnostics {
    /// Whether any problem is an error.
    pub fn has_errors(&self) -> bool {
        self.problems.iter().any(|p| p.severity == Severity::Error)
    }
    /// The number of errors.
    pub fn errors(&self) -> usize {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .count()
    }
    /// The number of warnings.
    pub fn warnings(&self) -> usize {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Warning)
            .count()
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
