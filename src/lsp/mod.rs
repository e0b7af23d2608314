//! `rulebook lsp`: a language server for rules and scenario files, over stdin and stdout.
//!
//! A synchronous loop over messages ([`serve`], over any reader and writer): each change of a
//! document checks it again and publishes every diagnostic of the checker; requests are
//! answered from the last check ([`analysis`]): hover, go to definition, references, rename,
//! completion, document symbols, semantic tokens, and formatting through [`crate::fmt`]. Like
//! the command line, this module reads files (the rules file a scenario file names) and writes
//! to stdout.
//!
//! Messages are framed by [`framing`], not by `lsp-server` (whose types it keeps): no input
//! ends the server but the end of the input or `exit`. A malformed message gets a JSON-RPC
//! error and the loop goes on: -32700 (parse error, id null) for a body that is not JSON or a
//! header block that cannot be read (no `Content-Length`, over 4 KiB); -32600 (invalid
//! request) for JSON that is not a JSON-RPC 2.0 message (its id if it has a readable one,
//! else null) and for a body over 16 MiB (refused before it is read, id null); -32602
//! (invalid params) for a request of a known method whose parameters are not what it takes;
//! -32601 for an unknown method; -32002 for a request before `initialize`. A notification
//! with bad parameters is dropped, as notifications get no answer.

mod analysis;
mod complete;
pub mod framing;
mod hover;
mod navigate;
mod outline;
mod reference;

use crate::fmt::{self, Kind};
use analysis::{Analysis, FileText};
use framing::{Frame, INVALID_REQUEST, PARSE_ERROR};
use lsp_server::{ErrorCode, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as notif, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{
    CompletionOptions, HoverProviderCapability, InitializeResult, OneOf, PublishDiagnosticsParams,
    RenameOptions, SemanticTokensFullOptions, SemanticTokensOptions, ServerCapabilities,
    ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind, TextEdit, Url,
};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};

/// Serves one client on stdin and stdout until it says `exit` or closes stdin.
pub fn run() -> io::Result<()> {
    serve(io::stdin().lock(), io::stdout().lock()).map(|_| ())
}

/// How [`serve`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The client said `exit`.
    Exit,
    /// The input ended.
    Eof,
}

/// Where the client is in the life of a session.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before `initialize`: only `initialize` is answered.
    Waiting,
    Running,
    /// After `shutdown`: only `exit` counts.
    ShutDown,
}

/// Serves one client: reads framed messages from `input` and writes the answers and
/// notifications to `output`, until `exit` or the end of the input. Only an error writing
/// the output (or reading the input) ends it otherwise; no message does.
pub fn serve(input: impl BufRead, mut output: impl Write) -> io::Result<Ended> {
    let mut reader = framing::Reader::new(input);
    let mut server = Server::default();
    let mut phase = Phase::Waiting;
    let out = &mut output;
    loop {
        let body = match reader.next_frame()? {
            Frame::End => return Ok(Ended::Eof),
            Frame::Bad(code, why) => {
                framing::write(out, &error(Value::Null, code, &why))?;
                continue;
            }
            Frame::Body(body) => body,
        };
        let r = match parse(&body) {
            Err((id, code, why)) => {
                framing::write(out, &error(id, code, &why))?;
                continue;
            }
            Ok(Incoming::Response) => continue,
            Ok(Incoming::Notification(n)) => {
                if n.method == notif::Exit::METHOD {
                    return Ok(Ended::Exit);
                }
                if phase == Phase::Running {
                    for n in server.notification(n) {
                        framing::write(out, &message(&n))?;
                    }
                }
                continue;
            }
            Ok(Incoming::Request(r)) => r,
        };
        let response = match (phase, r.method.as_str()) {
            (Phase::Waiting, req::Initialize::METHOD) => {
                phase = Phase::Running;
                Response::new_ok(r.id, initialize_result())
            }
            (Phase::Waiting, _) => Response::new_err(
                r.id,
                ErrorCode::ServerNotInitialized as i32,
                "the server is not initialized".into(),
            ),
            (Phase::Running, req::Initialize::METHOD) => {
                Response::new_err(r.id, INVALID_REQUEST, "already initialized".into())
            }
            (Phase::Running, req::Shutdown::METHOD) => {
                phase = Phase::ShutDown;
                Response::new_ok(r.id, ())
            }
            (Phase::Running, _) => server.request(r),
            (Phase::ShutDown, _) => {
                Response::new_err(r.id, INVALID_REQUEST, "the server is shut down".into())
            }
        };
        reply(out, response)?;
    }
}

/// Writes a response, or, when its body would be over [`framing::MAX_BODY`] (more than a
/// client is sure to read: the symbols of a megabyte document of repeated lines), an error
/// reply with its id saying so.
fn reply(out: &mut impl Write, response: Response) -> io::Result<()> {
    let id = serde_json::to_value(&response.id).unwrap_or(Value::Null);
    let body = serde_json::to_vec(&message(&response))?;
    if body.len() <= framing::MAX_BODY {
        return framing::write_body(out, &body);
    }
    let why = format!(
        "the answer is {} bytes, over the limit of {} bytes",
        body.len(),
        framing::MAX_BODY
    );
    framing::write(out, &error(id, ErrorCode::RequestFailed as i32, &why))
}

/// A message read: a request, a notification, or a response (to nothing the server asked).
enum Incoming {
    Request(Request),
    Notification(Notification),
    Response,
}

/// Reads a message's body; else the id to answer with (null when none can be read), the
/// error code and why.
fn parse(body: &[u8]) -> std::result::Result<Incoming, (Value, i32, String)> {
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| (Value::Null, PARSE_ERROR, format!("not JSON: {e}")))?;
    let Value::Object(mut m) = v else {
        let why = "a message is one JSON object".to_string();
        return Err((Value::Null, INVALID_REQUEST, why));
    };
    let id = m.remove("id");
    let echo = match &id {
        Some(v @ (Value::Number(_) | Value::String(_))) => v.clone(),
        _ => Value::Null,
    };
    let invalid = |why: &str| (echo.clone(), INVALID_REQUEST, why.to_string());
    if m.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(invalid(
            "not JSON-RPC 2.0 (`\"jsonrpc\": \"2.0\"` is missing)",
        ));
    }
    let params = m.remove("params").unwrap_or(Value::Null);
    match (m.remove("method"), id) {
        (Some(Value::String(method)), None) => {
            Ok(Incoming::Notification(Notification { method, params }))
        }
        (Some(Value::String(method)), Some(id)) => {
            let id: RequestId = serde_json::from_value(id)
                .map_err(|_| invalid("an id is a string or an integer of 32 bits"))?;
            Ok(Incoming::Request(Request { id, method, params }))
        }
        (Some(_), _) => Err(invalid("a method is a string")),
        (None, Some(_)) if m.contains_key("result") || m.contains_key("error") => {
            Ok(Incoming::Response)
        }
        (None, _) => Err(invalid("neither a request, a notification nor a response")),
    }
}

/// A JSON-RPC error reply.
fn error(id: Value, code: i32, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A response or notification as JSON-RPC 2.0.
fn message(m: &impl serde::Serialize) -> Value {
    let mut v = serde_json::to_value(m).unwrap_or(Value::Null);
    if let Value::Object(o) = &mut v {
        o.insert("jsonrpc".into(), json!("2.0"));
    }
    v
}

fn initialize_result() -> InitializeResult {
    InitializeResult {
        capabilities: capabilities(),
        server_info: Some(ServerInfo {
            name: "rulebook".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    }
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".into()]),
            ..Default::default()
        }),
        document_symbol_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        semantic_tokens_provider: Some(
            SemanticTokensOptions {
                legend: outline::legend(),
                full: Some(SemanticTokensFullOptions::Bool(true)),
                range: None,
                work_done_progress_options: Default::default(),
            }
            .into(),
        ),
        ..Default::default()
    }
}

/// An open document: its text and its last check, and the last check of a version that
/// parsed (what completion falls back on while the author is in the middle of a word).
pub(crate) struct Doc {
    pub(crate) analysis: Analysis,
    pub(crate) parsed: Option<Analysis>,
}

impl Doc {
    pub(crate) fn text(&self) -> &str {
        &self.analysis.doc.text
    }
    /// The last check whose document parsed, or the last check.
    pub(crate) fn names(&self) -> &Analysis {
        self.parsed.as_ref().unwrap_or(&self.analysis)
    }
}

/// The open documents, by URI (ordered, so that answers never depend on a hash order).
#[derive(Default)]
pub(crate) struct Server {
    pub(crate) docs: BTreeMap<Url, Doc>,
}

impl Server {
    fn request(&mut self, r: Request) -> Response {
        let id = r.id.clone();
        let answer = match r.method.as_str() {
            req::HoverRequest::METHOD => handle(r, |p| hover::hover(self, p)),
            req::GotoDefinition::METHOD => handle(r, |p| navigate::definition(self, p)),
            req::References::METHOD => handle(r, |p| navigate::references(self, p)),
            req::PrepareRenameRequest::METHOD => handle(r, |p| navigate::prepare_rename(self, p)),
            req::Rename::METHOD => handle(r, |p| navigate::rename(self, p)),
            req::Completion::METHOD => handle(r, |p| complete::completion(self, p)),
            req::DocumentSymbolRequest::METHOD => handle(r, |p| outline::symbols(self, p)),
            req::SemanticTokensFullRequest::METHOD => handle(r, |p| outline::tokens(self, p)),
            req::Formatting::METHOD => handle(r, |p| self.format(p)),
            _ => Err((
                ErrorCode::MethodNotFound,
                format!("unknown request `{}`", crate::source::quote(&r.method, 80)),
            )),
        };
        match answer {
            Ok(value) => Response::new_ok(id, value),
            Err((code, message)) => Response::new_err(id, code as i32, message),
        }
    }

    /// Handles a notification; returns the notifications to send (diagnostics).
    fn notification(&mut self, n: Notification) -> Vec<Notification> {
        let changed = match n.method.as_str() {
            notif::DidOpenTextDocument::METHOD => {
                params::<lsp_types::DidOpenTextDocumentParams>(&n)
                    .map(|p| (p.text_document.uri, Some(p.text_document.text)))
            }
            notif::DidChangeTextDocument::METHOD => {
                params::<lsp_types::DidChangeTextDocumentParams>(&n).and_then(|mut p| {
                    // Full synchronisation: the last change holds the whole text.
                    let text = p.content_changes.pop()?.text;
                    Some((p.text_document.uri, Some(text)))
                })
            }
            notif::DidCloseTextDocument::METHOD => {
                params::<lsp_types::DidCloseTextDocumentParams>(&n)
                    .map(|p| (p.text_document.uri, None))
            }
            _ => None,
        };
        let Some((uri, text)) = changed else {
            return vec![];
        };
        let mut out = vec![];
        match text {
            Some(text) => self.update(&uri, text),
            None => {
                self.docs.remove(&uri);
                out.push(publish(uri.clone(), vec![]));
            }
        }
        // A rules file that changed changes the checks of the scenario files naming it.
        let dependents: Vec<Url> = self
            .docs
            .iter()
            .filter(|(u, d)| **u != uri && d.analysis.rules.as_ref().is_some_and(|r| r.uri == uri))
            .map(|(u, _)| u.clone())
            .collect();
        for u in dependents {
            let text = self.docs[&u].text().to_string();
            self.update(&u, text);
        }
        for (u, d) in &self.docs {
            if *u == uri || d.analysis.rules.as_ref().is_some_and(|r| r.uri == uri) {
                out.push(publish(u.clone(), d.analysis.diagnostics.clone()));
            }
        }
        out
    }

    /// Checks a document again with its new text.
    fn update(&mut self, uri: &Url, text: String) {
        let kind = if uri.path().ends_with(".scenarios") {
            Kind::Scenarios
        } else if uri.path().ends_with(".rules") {
            Kind::Rules
        } else {
            Kind::of_text(&text)
        };
        let read = |u: &Url| self.read(u);
        let analysis = Analysis::new(kind, FileText::new(uri.clone(), text), &read);
        let parsed = match self.docs.remove(uri) {
            _ if analysis.parses => None,
            Some(old) if old.analysis.parses => Some(old.analysis),
            Some(old) => old.parsed,
            None => None,
        };
        self.docs.insert(uri.clone(), Doc { analysis, parsed });
    }

    /// The text of a file: the open document, or the file on disk.
    fn read(&self, uri: &Url) -> std::result::Result<String, String> {
        if let Some(d) = self.docs.get(uri) {
            return Ok(d.text().to_string());
        }
        let path = uri
            .to_file_path()
            .map_err(|_| format!("{uri} is not a file"))?;
        let meta = std::fs::metadata(&path).map_err(|e| e.to_string())?;
        // The same limit as the command line's.
        if !meta.is_file() || meta.len() > 16 << 20 {
            return Err("not a regular file of at most 16 MiB".into());
        }
        std::fs::read_to_string(&path).map_err(|e| e.to_string())
    }

    pub(crate) fn doc(&self, uri: &Url) -> std::result::Result<&Doc, Failure> {
        self.docs
            .get(uri)
            .ok_or_else(|| (ErrorCode::InvalidParams, format!("{uri} is not open")))
    }

    fn format(&self, p: lsp_types::DocumentFormattingParams) -> Answer<Option<Vec<TextEdit>>> {
        let doc = self.doc(&p.text_document.uri)?;
        let a = &doc.analysis;
        let name = analysis::file_name(&a.doc.uri);
        // A document that does not parse is left alone: its diagnostics say why.
        let Ok(out) = fmt::format(&name, &a.doc.text, a.kind) else {
            return Ok(None);
        };
        if out == a.doc.text {
            return Ok(Some(vec![]));
        }
        let whole = a.doc.range(crate::source::Span::new(0, a.doc.text.len()));
        Ok(Some(vec![TextEdit::new(whole, out)]))
    }
}

/// A request that cannot be answered: an error code and a message.
pub(crate) type Failure = (ErrorCode, String);
pub(crate) type Answer<T> = std::result::Result<T, Failure>;

/// Decodes a request's parameters, runs `f`, and encodes its answer.
fn handle<P, T>(
    r: Request,
    f: impl FnOnce(P) -> Answer<T>,
) -> std::result::Result<serde_json::Value, Failure>
where
    P: serde::de::DeserializeOwned,
    T: serde::Serialize,
{
    let params = serde_json::from_value(r.params)
        .map_err(|e| (ErrorCode::InvalidParams, format!("{}: {e}", r.method)))?;
    let answer = f(params)?;
    serde_json::to_value(answer).map_err(|e| (ErrorCode::InternalError, e.to_string()))
}

/// A notification's parameters, if they are what they should be.
fn params<P: serde::de::DeserializeOwned>(n: &Notification) -> Option<P> {
    serde_json::from_value(n.params.clone()).ok()
}

/// The most diagnostics published for one document, and the longest message (in characters)
/// of each: a rules file of 70 KB whose names were made very long was answered with 35 MB of
/// diagnostics quoting them (found by the fuzzer's `lsp` target), more than the 16 MiB a
/// client is sure to read.
pub const MAX_PUBLISHED: usize = 500;
/// See [`MAX_PUBLISHED`].
pub const MAX_MESSAGE_CHARS: usize = 2_000;

/// A message cut to [`MAX_MESSAGE_CHARS`] characters, with `…` where it was cut.
fn cut(message: &mut String) {
    if let Some((at, _)) = message.char_indices().nth(MAX_MESSAGE_CHARS) {
        message.truncate(at);
        message.push('…');
    }
}

fn publish(uri: Url, mut diagnostics: Vec<lsp_types::Diagnostic>) -> Notification {
    diagnostics.truncate(MAX_PUBLISHED);
    for d in &mut diagnostics {
        cut(&mut d.message);
        for r in d.related_information.iter_mut().flatten() {
            cut(&mut r.message);
        }
    }
    Notification::new(
        notif::PublishDiagnostics::METHOD.into(),
        PublishDiagnosticsParams {
            uri,
            diagnostics,
            version: None,
        },
    )
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod publish_tests {
    use super::*;

    /// A document's diagnostics are published within bounds, however many and long.
    #[test]
    fn published_diagnostics_are_bounded() {
        let long = "x".repeat(100_000);
        let d = lsp_types::Diagnostic {
            message: long.clone(),
            ..Default::default()
        };
        let uri = Url::parse("file:///t.rules").expect("a url");
        let n = publish(uri, vec![d; 2_000]);
        let p: PublishDiagnosticsParams = serde_json::from_value(n.params).expect("params");
        assert_eq!(p.diagnostics.len(), MAX_PUBLISHED);
        assert!(p
            .diagnostics
            .iter()
            .all(|d| d.message.chars().count() == MAX_MESSAGE_CHARS + 1));
    }

    /// An answer over the largest message is replaced by an error reply with its id, which a
    /// client reading within that limit can read.
    #[test]
    fn an_answer_over_the_limit_is_an_error_reply() {
        let mut out = Vec::new();
        let small = Response::new_ok(RequestId::from(7), "x");
        reply(&mut out, small).expect("written");
        let big = Response::new_ok(RequestId::from(8), "x".repeat(framing::MAX_BODY));
        reply(&mut out, big).expect("written");
        let mut r = framing::Reader::new(&out[..]);
        let mut bodies = vec![];
        while let Frame::Body(b) = r.next_frame().expect("read") {
            bodies.push(serde_json::from_slice::<Value>(&b).expect("JSON"));
        }
        assert_eq!(bodies.len(), 2);
        assert_eq!(bodies[0]["result"], json!("x"));
        assert_eq!(bodies[1]["id"], json!(8));
        assert_eq!(
            bodies[1]["error"]["code"],
            json!(ErrorCode::RequestFailed as i32)
        );
    }
}
