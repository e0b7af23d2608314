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
    /// Lines end at `\n`, `\r\n` or a lone `\r`; a byte-order mark at the start of the file
    /// takes no column.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        line_col(&self.text, offset)
    }
    /// The text a span covers (empty when the span does not fit the text).
    pub fn snippet(&self, span: Span) -> &str {
        self.text.get(span.start..span.end).unwrap_or_default()
    }
}

/// The byte-order mark that some editors write at the start of a UTF-8 file.
pub const BOM: char = '\u{feff}';

/// The line and column (both from 1; the column counts characters) of a byte offset of a
/// text: see [`Source::line_col`].
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text.as_bytes()[..at];
    let mut line = 1;
    let mut start = 0;
    for (i, b) in before.iter().enumerate() {
        let ends = *b == b'\n' || (*b == b'\r' && before.get(i + 1) != Some(&b'\n'));
        if ends {
            line += 1;
            start = i + 1;
        }
    }
    if start == 0 && text.starts_with(BOM) {
        start = BOM.len_utf8().min(at);
    }
    (line, text[start..at].chars().count() + 1)
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

/// Whether a character must not reach a terminal as it is: a control character (ESC, BEL,
/// DEL, the C1 controls, ...) or a character that reorders the text around it (the bidi
/// overrides and isolates).
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Text from outside (a rules file, a request) made safe to print: every unsafe character
/// ([`is_unsafe`]) but line ends and tabs shown as an escape (`\u{1b}`). Borrows when there is
/// nothing to escape.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let keep = |c: char| matches!(c, '\n' | '\t') || !is_unsafe(c);
    if text.chars().all(keep) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if keep(c) {
            out.push(c);
        } else {
            out.extend(c.escape_default());
        }
    }
    std::borrow::Cow::Owned(out)
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
        if is_unsafe(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A file as diagnostics show it (miette's [`miette::SourceCode`]): its name, and its text with
/// every unsafe character ([`is_unsafe`]) but `\n`, `\r` and `\t` replaced by as many `?` as it
/// has bytes, so that byte offsets still point where they pointed; a lone `\r` is shown as a
/// line end. Lines are indexed once, so that finding the line of an offset takes a binary
/// search however many diagnostics a file gets.
#[derive(Clone, Debug)]
pub struct Listing {
    name: String,
    text: String,
    /// The offset where each line starts (the first is 0).
    starts: Vec<usize>,
}

impl Listing {
    /// The listing of a file's text.
    pub fn new(name: &str, text: &str) -> Self {
        let mut shown = String::with_capacity(text.len());
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\r' if chars.peek() != Some(&'\n') => shown.push('\n'),
                '\n' | '\r' | '\t' => shown.push(c),
                c if is_unsafe(c) => shown.extend(std::iter::repeat_n('?', c.len_utf8())),
                c => shown.push(c),
            }
        }
        let mut starts = vec![0];
        starts.extend(
            shown
                .bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Listing {
            name: name.to_string(),
            text: shown,
            starts,
        }
    }

    /// The file's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The text as shown (same length and offsets as the file's text).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The line (from 0) that holds a byte offset.
    fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|s| *s <= offset) - 1
    }

    /// The offset where a line (from 0) ends, before its line end.
    fn line_end(&self, line: usize) -> usize {
        match self.starts.get(line + 1) {
            Some(next) => {
                let mut end = next - 1; // the `\n`
                if end > 0 && self.text.as_bytes()[end - 1] == b'\r' {
                    end -= 1;
                }
                end
            }
            None => self.text.len(),
        }
    }

    /// The line (from 0) and column (from 0, in characters; a byte-order mark takes none) of
    /// a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let mut at = offset.min(self.text.len());
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        let line = self.line_of(at);
        let mut start = self.starts[line];
        if start == 0 && self.text.starts_with(BOM) {
            start = BOM.len_utf8().min(at);
        }
        (line, self.text[start..at].chars().count())
    }

    /// The longest line, in characters, among the lines from the one holding `start` to the
    /// one holding `end`, with `around` lines before and after.
    pub fn widest_line(&self, start: usize, end: usize, around: usize) -> usize {
        let first = self
            .line_of(start.min(self.text.len()))
            .saturating_sub(around);
        let last = (self.line_of(end.min(self.text.len())) + around).min(self.starts.len() - 1);
        (first..=last)
            .map(|l| {
                let (a, b) = (self.starts[l], self.line_end(l));
                if b - a > 4 * 1024 {
                    b - a // long enough in bytes: no need to count characters
                } else {
                    self.text[a..b].chars().count()
                }
            })
            .max()
            .unwrap_or(0)
    }
}

struct Contents<'a> {
    data: &'a [u8],
    span: miette::SourceSpan,
    name: &'a str,
    line: usize,
    column: usize,
    line_count: usize,
}

impl<'a> miette::SpanContents<'a> for Contents<'a> {
    fn data(&self) -> &'a [u8] {
        self.data
    }
    fn span(&self) -> &miette::SourceSpan {
        &self.span
    }
    fn name(&self) -> Option<&str> {
        Some(self.name)
    }
    fn line(&self) -> usize {
        self.line
    }
    fn column(&self) -> usize {
        self.column
    }
    fn line_count(&self) -> usize {
        self.line_count
    }
}

impl miette::SourceCode for Listing {
    fn read_span<'a>(
        &'a self,
        span: &miette::SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        let (start, len) = (span.offset(), span.len());
        let end = start.saturating_add(len);
        if end > self.text.len() {
            return Err(miette::MietteError::OutOfBounds);
        }
        let first = self.line_of(start);
        let last = self.line_of(if len == 0 { start } else { end - 1 });
        let (from, to, line, column) = if before == 0 && after == 0 {
            let (line, column) = self.line_col(start);
            (start, end, line, column)
        } else {
            let first = first.saturating_sub(before);
            let last = (last + after).min(self.starts.len() - 1);
            let to = self
                .starts
                .get(last + 1)
                .copied()
                .unwrap_or(self.text.len());
            (self.starts[first], to, first, 0)
        };
        let (mut from, mut to) = (from, to);
        while !self.text.is_char_boundary(from) {
            from -= 1;
        }
        while !self.text.is_char_boundary(to) {
            to += 1;
        }
        Ok(Box::new(Contents {
            data: &self.text.as_bytes()[from..to],
            span: (from, to - from).into(),
            name: &self.name,
            line,
            column,
            line_count: self.line_of(to.saturating_sub(1).max(from)) - line + 1,
        }))
    }
}
