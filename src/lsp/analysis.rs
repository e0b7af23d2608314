//! What the server knows of one open document: its diagnostics and its names, as the checker
//! found them, and the texts its spans point into (for a scenario file, also its rules file).

use crate::check::{self, NameUse, Problem};
use crate::fmt::Kind;
use crate::source::{FileId, Source, Span};
use crate::syntax;
use lsp_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    Position, Range, Url,
};
use miette::Severity;

/// A text with its line starts, to turn byte offsets into LSP positions (lines, and columns
/// in UTF-16 code units) and back. A line ends at `\n`, `\r\n` or a lone `\r`, as the LSP
/// specification says; the column of an offset on a line of ASCII text is found without
/// walking the line (a file of one long line made naming every token's place quadratic).
#[derive(Clone, Debug)]
pub(crate) struct FileText {
    pub(crate) uri: Url,
    pub(crate) text: String,
    starts: Vec<usize>,
    /// The UTF-16 units of the text before each block of [`BLOCK`] bytes (empty when the
    /// text is ASCII: a column is then a byte offset), so that a position costs at most a
    /// block's scan however long its line: a megabyte on one line of multi-byte characters
    /// took 50 s of positions before (found by the fuzzer's `lsp` target).
    units: Vec<u32>,
}

/// See [`FileText::units`].
const BLOCK: usize = 64;

/// The UTF-16 units of the characters that start in `bytes` (a 4-byte character is two).
fn utf16_units(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .map(|&b| match b {
            0x80..=0xBF => 0,
            0xF0..=0xFF => 2,
            _ => 1,
        })
        .sum()
}

impl FileText {
    pub(crate) fn new(uri: Url, text: String) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
                starts.push(i + 1);
            }
        }
        let units = if text.is_ascii() {
            Vec::new()
        } else {
            let mut total = 0u32;
            let mut units = Vec::with_capacity(bytes.len() / BLOCK + 1);
            for block in bytes.chunks(BLOCK) {
                units.push(total);
                total += utf16_units(block) as u32;
            }
            units.push(total);
            units
        };
        FileText {
            uri,
            text,
            starts,
            units,
        }
    }

    /// The UTF-16 units before byte `offset` of the text.
    fn units_before(&self, offset: usize) -> usize {
        let block = offset / BLOCK;
        self.units[block] as usize + utf16_units(&self.text.as_bytes()[block * BLOCK..offset])
    }

    pub(crate) fn position(&self, offset: usize) -> Position {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let column = if self.units.is_empty() {
            offset - start
        } else {
            self.units_before(offset) - self.units_before(start)
        };
        Position::new(line as u32, column as u32)
    }

    pub(crate) fn offset(&self, p: Position) -> usize {
        let Some(&start) = self.starts.get(p.line as usize) else {
            return self.text.len();
        };
        let mut units = 0;
        for (i, c) in self.text[start..].char_indices() {
            if units >= p.character as usize || c == '\n' || c == '\r' {
                return start + i;
            }
            units += c.len_utf16();
        }
        self.text.len()
    }

    pub(crate) fn range(&self, span: Span) -> Range {
        Range::new(self.position(span.start), self.position(span.end))
    }

    pub(crate) fn location(&self, span: Span) -> Location {
        Location::new(self.uri.clone(), self.range(span))
    }

    /// The text a span covers.
    pub(crate) fn snippet(&self, span: Span) -> &str {
        self.text.get(span.start..span.end).unwrap_or_default()
    }
}

/// One checked document.
pub(crate) struct Analysis {
    pub(crate) kind: Kind,
    /// The document as it was checked.
    pub(crate) doc: FileText,
    /// For a scenario file, the rules file it names, when it could be read.
    pub(crate) rules: Option<FileText>,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// The names the document uses, each with its declaration (in the document, or for a
    /// scenario file in its rules file). Empty when the document does not parse.
    pub(crate) uses: Vec<NameUse>,
    /// For a scenario file, the names of its rules file.
    pub(crate) rules_uses: Vec<NameUse>,
    /// Whether the document parses.
    pub(crate) parses: bool,
}

impl Analysis {
    /// Checks a document: a rules file, or a scenario file against the rules it names
    /// (`read_rules` gives the text of a rules file: the open document, or the file on disk).
    pub(crate) fn new(
        kind: Kind,
        doc: FileText,
        read_rules: &dyn Fn(&Url) -> Result<String, String>,
    ) -> Analysis {
        let mut a = Analysis {
            kind,
            doc,
            rules: None,
            diagnostics: vec![],
            uses: vec![],
            rules_uses: vec![],
            parses: false,
        };
        match kind {
            Kind::Rules => a.check_rules(),
            Kind::Scenarios => a.check_scenarios(read_rules),
        }
        a
    }

    fn name(&self) -> String {
        file_name(&self.doc.uri)
    }

    fn check_rules(&mut self) {
        let loaded = check::load(&self.name(), &self.doc.text);
        self.parses = syntax_ok(&loaded.diagnostics.problems);
        self.uses = loaded.uses;
        self.diagnostics = loaded
            .diagnostics
            .problems
            .iter()
            .map(|p| self.diagnostic(p))
            .collect();
    }

    fn check_scenarios(&mut self, read_rules: &dyn Fn(&Url) -> Result<String, String>) {
        let name = self.name();
        let file = match syntax::parse_scenarios(&name, &self.doc.text) {
            Ok(f) => f,
            Err(e) => {
                let mut p = Problem::from_syntax(&e);
                p.span.file = FileId::SCENARIO;
                self.diagnostics = vec![self.diagnostic(&p)];
                return;
            }
        };
        self.parses = true;
        let at = file.rules_span;
        let rules_uri = self.doc.uri.join(&file.rules).ok();
        let text = match &rules_uri {
            Some(uri) => read_rules(uri),
            None => Err("not a path".into()),
        };
        let (uri, text) = match (rules_uri, text) {
            (Some(uri), Ok(text)) => (uri, text),
            (uri, text) => {
                let why = text
                    .err()
                    .filter(|_| uri.is_some())
                    .unwrap_or("not a path".into());
                let what = format!("cannot read the rules file `{}`", file.rules);
                self.diagnostics = vec![self.simple(at, &what, &why)];
                return;
            }
        };
        let loaded = check::load(&file_name(&uri), &text);
        self.rules = Some(FileText::new(uri, text));
        self.rules_uses = loaded.uses;
        let (Some(game), Some(symbols)) = (loaded.game, loaded.symbols) else {
            let n = loaded.diagnostics.errors();
            let first = loaded
                .diagnostics
                .problems
                .iter()
                .find(|p| p.severity == Severity::Error);
            let mut d = self.simple(
                at,
                &format!("the rules file has {n} error(s)"),
                "these scenarios cannot be checked against it",
            );
            if let (Some(p), Some(rules)) = (first, &self.rules) {
                d.related_information = Some(vec![DiagnosticRelatedInformation {
                    location: rules.location(p.span),
                    message: p.message.clone(),
                }]);
            }
            self.diagnostics = vec![d];
            return;
        };
        let source = Source {
            name: name.clone(),
            text: self.doc.text.clone(),
        };
        let (_, _, diags, uses) = check::scenario::lower_with_uses(game, symbols, source, &file);
        self.uses = uses;
        self.diagnostics = diags.problems.iter().map(|p| self.diagnostic(p)).collect();
    }

    /// The text a span points into: the document, or for a scenario file its rules file.
    pub(crate) fn file(&self, span: Span) -> &FileText {
        match (&self.rules, self.kind, span.file) {
            (Some(rules), Kind::Scenarios, FileId::RULES) => rules,
            _ => &self.doc,
        }
    }

    /// Whether a span points into the document itself.
    pub(crate) fn in_doc(&self, span: Span) -> bool {
        std::ptr::eq(self.file(span), &self.doc)
    }

    /// The name written at an offset of the document, with what it names.
    pub(crate) fn use_at(&self, offset: usize) -> Option<&NameUse> {
        self.uses
            .iter()
            .find(|u| self.in_doc(u.span) && u.span.start <= offset && offset <= u.span.end)
    }

    /// The text of a name as written.
    pub(crate) fn text_of(&self, u: &NameUse) -> &str {
        self.file(u.span).snippet(u.span)
    }

    /// Every declaration known: the document's and, for a scenario file, its rules file's.
    pub(crate) fn decls(&self) -> impl Iterator<Item = (&NameUse, &FileText)> {
        let rules = self
            .rules
            .as_ref()
            .map(|r| self.rules_uses.iter().map(move |u| (u, r)));
        self.uses
            .iter()
            .map(|u| (u, self.file(u.span)))
            .chain(rules.into_iter().flatten())
            .filter(|(u, _)| u.is_decl())
    }

    fn simple(&self, at: Span, message: &str, label: &str) -> Diagnostic {
        Diagnostic {
            range: self.doc.range(at),
            severity: Some(DiagnosticSeverity::ERROR),
            source: Some("rulebook".into()),
            message: format!("{message}: {label}"),
            ..Default::default()
        }
    }

    fn diagnostic(&self, p: &Problem) -> Diagnostic {
        let mut message = p.message.clone();
        if !p.label.is_empty() && p.label != p.message {
            message = format!("{message}: {}", p.label);
        }
        if let Some(help) = &p.help {
            message = format!("{message}\nhelp: {help}");
        }
        Diagnostic {
            range: self.file(p.span).range(p.span),
            severity: Some(match p.severity {
                Severity::Error => DiagnosticSeverity::ERROR,
                Severity::Warning => DiagnosticSeverity::WARNING,
                Severity::Advice => DiagnosticSeverity::HINT,
            }),
            code: Some(NumberOrString::String(format!("rulebook::{}", p.code))),
            source: Some("rulebook".into()),
            message,
            related_information: p.related.as_ref().map(|(span, label)| {
                vec![DiagnosticRelatedInformation {
                    location: self.file(*span).location(*span),
                    message: label.clone(),
                }]
            }),
            ..Default::default()
        }
    }
}

/// Whether the problems include no syntax error.
fn syntax_ok(problems: &[Problem]) -> bool {
    !problems.iter().any(|p| p.code == check::Code::Syntax)
}

/// The name of a document in messages: its file name.
pub(crate) fn file_name(uri: &Url) -> String {
    uri.path_segments()
        .and_then(|mut s| s.next_back())
        .filter(|s| !s.is_empty())
        .unwrap_or("untitled")
        .to_string()
}

#[cfg(test)]
mod line_tests {
    use super::*;

    fn file(text: &str) -> FileText {
        FileText::new(Url::parse("file:///t.rules").expect("a url"), text.into())
    }

    /// Lines end at LF, CRLF or a lone CR (the LSP specification); columns count UTF-16
    /// units, on ASCII lines and others.
    #[test]
    fn positions_follow_every_line_ending() {
        let f = file("ab\rcd\r\nef\ngé h");
        assert_eq!(f.position(3), Position::new(1, 0));
        assert_eq!(f.position(4), Position::new(1, 1));
        assert_eq!(f.position(7), Position::new(2, 0));
        assert_eq!(f.position(13), Position::new(3, 2));
        assert_eq!(f.offset(Position::new(1, 9)), 5);
        assert_eq!(f.offset(Position::new(3, 2)), 13);
        assert_eq!(f.offset(Position::new(0, 1)), 1);
    }

    /// On a line of mixed characters longer than many blocks, a position's column is the
    /// UTF-16 units of the characters before it on its line, wherever the blocks fall.
    #[test]
    fn columns_count_utf16_units_across_blocks() {
        let line: String = "aé€𝄞 ".repeat(40);
        let text = format!("x\n{line}\n{line}");
        let f = file(&text);
        let second = text.find('\n').unwrap() + 1;
        for (i, _) in text[second..].char_indices() {
            let offset = second + i;
            let start = if offset > second + line.len() {
                second + line.len() + 1
            } else {
                second
            };
            let want: usize = text[start..offset].chars().map(char::len_utf16).sum();
            let p = f.position(offset);
            assert_eq!(p.character as usize, want, "offset {offset}");
            assert_eq!(f.offset(p), offset);
        }
    }
}
