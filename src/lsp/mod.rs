//! `rulebook lsp`: a language server for rules and scenario files, over stdin and stdout.
//!
//! A synchronous loop over messages (rust-analyzer's `lsp-server`): each change of a document
//! checks it again and publishes every diagnostic of the checker; requests are answered from
//! the last check ([`analysis`]): hover, go to definition, references, rename, completion,
//! document symbols, semantic tokens, and formatting through [`crate::fmt`]. Like the command
//! line, this module reads files (the rules file a scenario file names) and writes to stdout.

mod analysis;
mod complete;
mod hover;
mod navigate;
mod outline;
mod reference;

use crate::fmt::{self, Kind};
use analysis::{Analysis, FileText};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{self as notif, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{
    CompletionOptions, HoverProviderCapability, InitializeResult, OneOf, PublishDiagnosticsParams,
    RenameOptions, SemanticTokensFullOptions, SemanticTokensOptions, ServerCapabilities,
    ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind, TextEdit, Url,
};
use std::collections::BTreeMap;
use std::error::Error;

type Result<T> = std::result::Result<T, Box<dyn Error + Send + Sync>>;

/// Serves one client on stdin and stdout until it says `exit`.
pub fn run() -> Result<()> {
    let (connection, io) = Connection::stdio();
    let (id, _params) = connection.initialize_start()?;
    let result = InitializeResult {
        capabilities: capabilities(),
        server_info: Some(ServerInfo {
            name: "rulebook".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    };
    connection.initialize_finish(id, serde_json::to_value(result)?)?;
    Server::default().serve(&connection)?;
    drop(connection);
    io.join()?;
    Ok(())
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
    fn serve(&mut self, connection: &Connection) -> Result<()> {
        for msg in &connection.receiver {
            match msg {
                Message::Request(r) => {
                    if connection.handle_shutdown(&r)? {
                        return Ok(());
                    }
                    let response = self.request(r);
                    connection.sender.send(response.into())?;
                }
                Message::Notification(n) => {
                    for out in self.notification(n) {
                        connection.sender.send(out.into())?;
                    }
                }
                Message::Response(_) => {}
            }
        }
        Ok(())
    }

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
                format!("unknown request {}", r.method),
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

fn publish(uri: Url, diagnostics: Vec<lsp_types::Diagnostic>) -> Notification {
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
