//! Places in source files: a leaf module that depends on nothing in the crate.

use serde::{Deserialize, Serialize};

/// Which file a span points into: [`FileId::RULES`] for the rules file, others for files
/// checked against it (a scenario file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FileId(pub u16);

impl FileId {
    /// The rules file of a game.
    pub const RULES: FileId = FileId(0);
    /// A file checked against a game's rules file: a scenario file.
    pub const SCENARIO: FileId = FileId(1);
}

/// A file that spans point into: its name (as given when it was loaded) and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The name shown in diagnostics, usually the path.
    pub name: String,
    /// The whole text.
    pub text: String,
}

impl Source {
    /// The line and column (both from 1; the column counts characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let mut at = offset.min(self.text.len());
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        let before = &self.text[..at];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }
    /// The text a span covers (empty when the span does not fit the text).
    pub fn snippet(&self, span: Span) -> &str {
        self.text.get(span.start..span.end).unwrap_or_default()
    }
}

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Offset of the first byte.
    pub start: usize,
    /// Offset just past the last byte (`end >= start`).
    pub end: usize,
    /// The file it points into.
    pub file: FileId,
}

impl Span {
    /// The bytes `start..end` of the rules file.
    pub fn new(start: usize, end: usize) -> Self {
        Span {
            start,
            end,
            file: FileId::RULES,
        }
    }
    /// The bytes `start..end` of another file.
    pub fn in_file(start: usize, end: usize, file: FileId) -> Self {
        Span { start, end, file }
    }
    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.end - self.start
    }
    /// Whether it covers no byte.
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(s: Span) -> Self {
        (s.start, s.len()).into()
    }
}

/// A short, printable quotation of text that came from outside (a request, a file): at most
/// `max` characters (cut on a character boundary, with `...`), control characters shown as
/// escapes so that nothing reaches a terminal raw.
pub fn quote(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == max {
            out.push_str("...");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}
