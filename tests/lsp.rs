//! `rulebook lsp` against the real binary: JSON-RPC over stdio, one transcript per test,
//! snapshotted. Each transcript shows the requests sent (method and position) and the answers
//! and notifications received, with the repository's path replaced by `$ROOT`; the
//! documents are tests/lsp/game.rules and game.scenarios, opened with the texts below.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

struct Client {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: i64,
    root: String,
    log: String,
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rulebook"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("rulebook lsp starts");
        let stdin = child.stdin.take().expect("stdin");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, messages) = mpsc::channel();
        std::thread::spawn(move || {
            while let Some(msg) = read_message(&mut stdout) {
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        let root = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).expect("the root");
        Client {
            child,
            stdin,
            messages,
            next_id: 0,
            root: url(&root),
            log: String::new(),
        }
    }

    fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("sends");
        self.stdin.flush().expect("flushes");
    }

    fn receive(&mut self) -> Value {
        self.messages
            .recv_timeout(Duration::from_secs(60))
            .expect("the server answers within a minute")
    }

    /// Sends a request and waits for its answer; notifications on the way are logged.
    fn request(&mut self, method: &str, params: Value, note: &str) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.log += &format!("--> {method} {note}\n");
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let msg = self.receive();
            if msg["id"] == json!(id) {
                let shown = if msg.get("error").is_some() {
                    json!({"error": msg["error"]})
                } else {
                    msg["result"].clone()
                };
                return shown;
            }
            self.log_notification(&msg);
        }
    }

    fn notify(&mut self, method: &str, params: Value, note: &str) {
        self.log += &format!("--> {method} {note}\n");
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Waits for a notification of this method and logs it.
    fn expect(&mut self, method: &str) {
        loop {
            let msg = self.receive();
            let done = msg["method"] == method;
            self.log_notification(&msg);
            if done {
                return;
            }
        }
    }

    fn log_notification(&mut self, msg: &Value) {
        let text = self.show(&msg["params"]);
        self.log += &format!("<-- {}\n{text}\n", msg["method"].as_str().unwrap_or("?"));
    }

    /// A value as the transcript shows it: pretty JSON with the root's path replaced.
    fn show(&self, v: &Value) -> String {
        serde_json::to_string_pretty(v)
            .expect("prints")
            .replace(&self.root, "$ROOT")
    }

    fn log_answer(&mut self, v: &Value) {
        let text = self.show(v);
        self.log += &format!("<-- {text}\n\n");
    }

    fn uri(&self, relative: &str) -> String {
        format!("{}/{relative}", self.root)
    }

    fn stop(mut self) -> String {
        let done = self.request("shutdown", Value::Null, "");
        assert_eq!(done, Value::Null);
        self.notify("exit", Value::Null, "");
        drop(self.stdin);
        let status = self.child.wait().expect("exits");
        self.log += &format!("(exit {})\n", status.code().unwrap_or(-1));
        self.log
    }
}

fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse().ok();
        }
    }
    let mut body = vec![0; length?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn url(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// The position (line, UTF-16 column) of the `nth` occurrence (from 0) of `needle` in
/// `text`, plus `shift` characters.
fn pos(text: &str, needle: &str, nth: usize, shift: usize) -> Value {
    let at = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("no {needle:?} #{nth}"))
        .0
        + shift;
    let line = text[..at].matches('\n').count();
    let col = text[..at]
        .rsplit('\n')
        .next()
        .unwrap_or("")
        .encode_utf16()
        .count();
    json!({"line": line, "character": col})
}

fn at(uri: &str, p: &Value) -> Value {
    json!({"textDocument": {"uri": uri}, "position": p})
}

fn initialize(c: &mut Client) {
    let root = c.root.clone();
    let caps = c.request(
        "initialize",
        json!({"processId": null, "rootUri": root, "capabilities": {}}),
        "",
    );
    c.log_answer(&caps);
    c.notify("initialized", json!({}), "");
}

/// Completion items, one line each: label, kind, detail.
fn items(v: &Value) -> Value {
    let list = v.as_array().cloned().unwrap_or_default();
    Value::Array(
        list.iter()
            .map(|i| {
                json!(format!(
                    "{} ({}) {}",
                    i["label"].as_str().unwrap_or("?"),
                    i["kind"],
                    i["detail"].as_str().unwrap_or("")
                ))
            })
            .collect(),
    )
}

fn game_text() -> String {
    std::fs::read_to_string("tests/lsp/game.rules").expect("tests/lsp/game.rules")
}

#[test]
fn a_rules_file_diagnostics_hover_definition_references_completion_rename_format() {
    let mut c = Client::start();
    initialize(&mut c);
    let uri = c.uri("tests/lsp/game.rules");

    // A typo in the score: every diagnostic, with its code and hint.
    let broken = game_text().replace("score(p) = points[p]", "score(p) = pionts[p]");
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "rules", "version": 1, "text": broken}}),
        "tests/lsp/game.rules, with `pionts` for `points`",
    );
    c.expect("textDocument/publishDiagnostics");
    c.log += "\n";

    let text = broken;
    let steps = [
        (
            "textDocument/hover",
            "points",
            1,
            "`points` in `points[me] += ...`",
        ),
        (
            "textDocument/hover",
            "card",
            1,
            "the binding `card` in the guard",
        ),
        (
            "textDocument/hover",
            "card.rank",
            0,
            "the field `rank` in `card.rank`",
        ),
        (
            "textDocument/hover",
            "== red",
            0,
            "the enum value `red` in `== red`",
        ),
        ("textDocument/hover", "choose", 0, "the keyword `choose`"),
        ("textDocument/hover", "empty", 0, "the built-in `empty`"),
        ("textDocument/definition", "points", 1, "of `points`"),
        (
            "textDocument/definition",
            "card",
            3,
            "of `card` in `move card`",
        ),
        ("textDocument/definition", "hand", 1, "of `hand`"),
    ];
    for (method, needle, nth, note) in steps {
        // On the last word of the needle.
        let shift = needle
            .rfind(|c: char| !c.is_alphanumeric())
            .map_or(0, |i| i + 1);
        let answer = c.request(method, at(&uri, &pos(&text, needle, nth, shift)), note);
        c.log_answer(&answer);
    }
    let refs = c.request(
        "textDocument/references",
        json!({"textDocument": {"uri": uri}, "position": pos(&text, "card", 2, 0),
               "context": {"includeDeclaration": true}}),
        "of `card`, with its declaration",
    );
    c.log_answer(&refs);

    // Completion: a field after `.`, the actions inside `choose { }`, names in scope.
    let dot = text.replace("points[me] += card.rank", "points[me] += card.");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": dot}]}),
        "`card.rank` cut to `card.`",
    );
    c.expect("textDocument/publishDiagnostics");
    let fields = c.request(
        "textDocument/completion",
        at(&uri, &pos(&dot, "card.", 2, 5)),
        "after `card.`",
    );
    c.log_answer(&items(&fields));
    let arms = c.request(
        "textDocument/completion",
        at(&uri, &pos(&dot, "{ draw", 0, 2)),
        "inside `choose { }`",
    );
    c.log_answer(&items(&arms));
    let scope = c.request(
        "textDocument/completion",
        at(&uri, &pos(&dot, "move card", 0, 0)),
        "at the start of a statement of `play` (names only)",
    );
    let names: Vec<Value> = items(&scope)
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| {
            !i.as_str().unwrap().contains("(14)") && !i.as_str().unwrap().contains("built-in")
        })
        .cloned()
        .collect();
    c.log_answer(&Value::Array(names));

    // Fix the typo: only the warnings remain (none here).
    let fixed = game_text();
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": fixed}]}),
        "the file as it is on disk",
    );
    c.expect("textDocument/publishDiagnostics");
    c.log += "\n";

    // Rename a variable: its declaration and every use.
    let prepare = c.request(
        "textDocument/prepareRename",
        at(&uri, &pos(&fixed, "points", 2, 2)),
        "on `points` in the score",
    );
    c.log_answer(&prepare);
    let rename = c.request(
        "textDocument/rename",
        json!({"textDocument": {"uri": uri}, "position": pos(&fixed, "points", 2, 2), "newName": "score_of"}),
        "`points` to `score_of`",
    );
    c.log_answer(&rename);
    let bad = c.request(
        "textDocument/rename",
        json!({"textDocument": {"uri": uri}, "position": pos(&fixed, "points", 2, 2), "newName": "where"}),
        "`points` to a reserved word",
    );
    c.log_answer(&bad);
    let taken = c.request(
        "textDocument/rename",
        json!({"textDocument": {"uri": uri}, "position": pos(&fixed, "points", 2, 2), "newName": "deck"}),
        "`points` to `deck`, the name of a zone",
    );
    c.log_answer(&taken);

    // Formatting through the formatter: one edit of the whole text.
    let messy = fixed.replace("score(p) = points[p]", "score( p )=points [p]");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 4}, "contentChanges": [{"text": messy}]}),
        "`score( p )=points [p]`",
    );
    c.expect("textDocument/publishDiagnostics");
    let edits = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": true}}),
        "",
    );
    let new_text = edits[0]["newText"].as_str().unwrap_or_default();
    assert_eq!(new_text, fixed, "formatting gives the formatted file");
    let mut shown = edits.clone();
    shown[0]["newText"] = json!(format!("(the file, {} bytes)", new_text.len()));
    c.log_answer(&shown);

    let transcript = c.stop();
    insta::assert_snapshot!(transcript);
}

#[test]
fn symbols_and_semantic_tokens_of_a_rules_file() {
    let mut c = Client::start();
    initialize(&mut c);
    c.log.clear(); // the capabilities are in the other transcript
    let uri = c.uri("tests/lsp/game.rules");
    let text = game_text();
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "rules", "version": 1, "text": text}}),
        "tests/lsp/game.rules",
    );
    c.expect("textDocument/publishDiagnostics");
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
        "",
    );
    // One line per symbol: name, kind, the line of its name, its children.
    let mut outline = String::new();
    for s in symbols.as_array().cloned().unwrap_or_default() {
        let children: Vec<String> = s["children"]
            .as_array()
            .map(|cs| {
                cs.iter()
                    .map(|c| c["name"].as_str().unwrap_or("?").to_string())
                    .collect()
            })
            .unwrap_or_default();
        outline += &format!(
            "{} (kind {}, line {}) {}\n",
            s["name"].as_str().unwrap_or("?"),
            s["kind"],
            s["selectionRange"]["start"]["line"],
            children.join(", ")
        );
    }
    c.log += &format!("<-- \n{outline}\n");

    let tokens = c.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri}}),
        "(decoded: line:column text type modifiers, for the action `play`)",
    );
    let legend = [
        "keyword",
        "comment",
        "string",
        "number",
        "operator",
        "variable",
        "parameter",
        "property",
        "enumMember",
        "enum",
        "type",
        "function",
        "method",
    ];
    let data: Vec<u64> = tokens["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let lines: Vec<&str> = text.lines().collect();
    let (mut line, mut col) = (0, 0);
    let mut decoded = String::new();
    for t in data.chunks(5) {
        if t[0] > 0 {
            col = 0;
        }
        line += t[0] as usize;
        col += t[1] as usize;
        let word: String = lines[line].chars().skip(col).take(t[2] as usize).collect();
        if (16..=19).contains(&line) {
            decoded += &format!(
                "{}:{} {word} {} {}\n",
                line + 1,
                col + 1,
                legend[t[3] as usize],
                t[4]
            );
        }
    }
    c.log += &format!("<-- \n{decoded}\n");
    let transcript = c.stop();
    insta::assert_snapshot!(transcript);
}

#[test]
fn a_scenario_file_is_checked_against_the_rules_it_names() {
    let mut c = Client::start();
    initialize(&mut c);
    c.log.clear();
    let uri = c.uri("tests/lsp/game.scenarios");
    let text = std::fs::read_to_string("tests/lsp/game.scenarios").expect("the scenarios");
    let broken = text.replace("points[seat(0)] == 2", "points[seat(0)] == red");
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "rules", "version": 1, "text": broken}}),
        "tests/lsp/game.scenarios, comparing a number with `red`",
    );
    c.expect("textDocument/publishDiagnostics");
    c.log += "\n";
    for (method, needle, nth, note) in [
        (
            "textDocument/definition",
            "points",
            0,
            "of `points`: in the rules file",
        ),
        ("textDocument/hover", "points", 0, "`points`"),
        (
            "textDocument/hover",
            "expect",
            0,
            "the scenario step `expect`",
        ),
    ] {
        let answer = c.request(method, at(&uri, &pos(&broken, needle, nth, 0)), note);
        c.log_answer(&answer);
    }

    // The rules file names a missing file: one diagnostic on the path.
    let lost = text.replace("game.rules", "lost.rules");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": lost}]}),
        "naming tests/lsp/lost.rules, which does not exist",
    );
    c.expect("textDocument/publishDiagnostics");
    c.log += "\n";

    // A syntax error: one diagnostic, and the file is not formatted.
    let unparsed = text.replace("apply \"play card=red-2\"", "apply");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": unparsed}]}),
        "`apply` without its text",
    );
    c.expect("textDocument/publishDiagnostics");
    let edits = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": true}}),
        "",
    );
    c.log_answer(&edits);
    let transcript = c.stop();
    insta::assert_snapshot!(transcript);
}

impl Client {
    /// Writes raw bytes to the server, framed or not.
    fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).expect("sends");
        self.stdin.flush().expect("flushes");
    }

    /// The next message, or `None` when none comes within ten seconds or the server is gone.
    fn next(&mut self) -> Option<Value> {
        self.messages.recv_timeout(Duration::from_secs(10)).ok()
    }
}

/// Bad input never ends the server: each malformed message gets a JSON-RPC error reply (id
/// null when it has none that can be read), and the request after it is answered.
#[test]
fn malformed_messages_get_error_replies_and_the_server_goes_on() {
    let mut c = Client::start();
    initialize(&mut c);
    let uri = c.uri("tests/lsp/game.rules");
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "rules", "version": 1, "text": game_text()}}),
        "",
    );
    c.expect("textDocument/publishDiagnostics");
    let frame = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
    let cases: Vec<(Vec<u8>, i64, Value)> = vec![
        (frame("{not json").into_bytes(), -32700, Value::Null),
        (frame("[1, 2]").into_bytes(), -32600, Value::Null),
        (
            frame(r#"{"jsonrpc": "2.0", "id": 7, "method": 3}"#).into_bytes(),
            -32600,
            json!(7),
        ),
        (
            frame(r#"{"jsonrpc": "2.0", "id": 8, "method": "textDocument/hover", "params": {"position": 1}}"#)
                .into_bytes(),
            -32602,
            json!(8),
        ),
        // Over the limit of 16 MiB: refused, its few bytes skipped until the input ends.
        (b"Content-Type: x\r\n\r\n".to_vec(), -32700, Value::Null),
    ];
    for (bytes, code, id) in cases {
        c.send_raw(&bytes);
        let reply = c.next().expect("an error reply");
        assert_eq!(reply["error"]["code"], json!(code), "{reply}");
        assert_eq!(reply["id"], id, "{reply}");
        // The next request is still answered.
        let symbols = c.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
            "",
        );
        assert!(
            symbols.as_array().is_some_and(|s| !s.is_empty()),
            "{symbols}"
        );
    }
    // A header line ended by a lone CR, as the base protocol allows.
    let body = json!({"jsonrpc": "2.0", "id": 99, "method": "shutdown"}).to_string();
    c.send_raw(format!("Content-Length: {}\r\r{body}", body.len()).as_bytes());
    let reply = c.next().expect("the shutdown is answered");
    assert_eq!(reply["id"], json!(99), "{reply}");
    // A length beyond the limit is refused before anything is read into memory.
    c.send_raw(b"Content-Length: 99999999999\r\n\r\n{}");
    let reply = c.next().expect("an error reply");
    assert_eq!(reply["error"]["code"], json!(-32600), "{reply}");
    assert_eq!(reply["id"], Value::Null, "{reply}");
    drop(c.stdin);
    let status = c.child.wait().expect("exits");
    assert!(status.success(), "{status}");
}
