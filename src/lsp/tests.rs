//! The server never panics, whatever it is asked and wherever: every request at every
//! position of real files, of the same files cut short (so they do not parse), and of a
//! scenario file; answers that point into a document point at places inside it.

use super::Server;
use lsp_server::{Notification, Request, RequestId};
use lsp_types::Url;
use serde_json::{json, Value};
use std::path::Path;

fn url(path: &str) -> Url {
    let root = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).expect("the root");
    Url::from_file_path(root.join(path)).expect("a file URL")
}

fn open(s: &mut Server, uri: &Url, text: &str) {
    s.notification(Notification::new(
        "textDocument/didOpen".into(),
        json!({"textDocument": {"uri": uri, "languageId": "rules", "version": 1, "text": text}}),
    ));
}

fn ask(s: &mut Server, method: &str, params: Value) -> Value {
    let r = s.request(Request::new(RequestId::from(1), method.into(), params));
    assert!(
        r.error
            .as_ref()
            .is_none_or(|e| e.code != lsp_server::ErrorCode::InternalError as i32),
        "{method}: {:?}",
        r.error
    );
    r.result.unwrap_or(Value::Null)
}

/// Every `range` in an answer lies within a text of `lines` lines.
fn ranges_within(v: &Value, lines: u64, what: &str) {
    match v {
        Value::Object(m) => {
            if let Some(r) = m.get("range") {
                for end in ["start", "end"] {
                    let line = r[end]["line"].as_u64().unwrap_or(0);
                    assert!(line <= lines, "{what}: a range beyond the text: {r}");
                }
            }
            m.values().for_each(|x| ranges_within(x, lines, what));
        }
        Value::Array(a) => a.iter().for_each(|x| ranges_within(x, lines, what)),
        _ => {}
    }
}

/// Every request at every position of `text` (every line, every column up to one past its
/// end, and one line past the end).
fn everywhere(s: &mut Server, uri: &Url, text: &str) {
    let doc = json!({"uri": uri});
    for method in [
        "textDocument/semanticTokens/full",
        "textDocument/documentSymbol",
    ] {
        ask(s, method, json!({"textDocument": doc}));
    }
    ask(
        s,
        "textDocument/formatting",
        json!({"textDocument": doc, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    let lines: Vec<&str> = text.split('\n').collect();
    let n = lines.len() as u64;
    for (l, line) in lines.iter().enumerate() {
        let width = line.encode_utf16().count();
        for c in 0..=width + 1 {
            let at = json!({"textDocument": doc, "position": {"line": l, "character": c}});
            for method in [
                "textDocument/hover",
                "textDocument/definition",
                "textDocument/completion",
                "textDocument/prepareRename",
            ] {
                let answer = ask(s, method, at.clone());
                if method != "textDocument/definition" {
                    ranges_within(&answer, n, method);
                }
            }
            let mut refs = at.clone();
            refs["context"] = json!({"includeDeclaration": true});
            ranges_within(&ask(s, "textDocument/references", refs), n, "references");
            let mut rename = at;
            rename["newName"] = json!("renamed");
            ask(s, "textDocument/rename", rename);
        }
    }
    let past = json!({"textDocument": doc, "position": {"line": n + 3, "character": 7}});
    ask(s, "textDocument/hover", past.clone());
    ask(s, "textDocument/completion", past);
}

#[test]
fn every_request_at_every_position_is_answered_without_a_panic() {
    let mut s = Server::default();
    let files = [
        "tests/lsp/game.rules",
        "tests/lsp/game.scenarios",
        "rules/classic/breakthrough.rules",
    ];
    for path in files {
        let uri = url(path);
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
            .expect("readable");
        open(&mut s, &uri, &text);
        everywhere(&mut s, &uri, &text);
        // Cut short at a few places (mid-word, mid-string, mid-block), and with a character
        // of two UTF-16 units in the middle.
        for cut in [text.len() / 3, text.len() / 2, text.len() * 4 / 5] {
            let cut = (0..=cut)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            let short = format!("{}𝄞 é", &text[..cut]);
            open(&mut s, &uri, &short);
            everywhere(&mut s, &uri, &short);
        }
    }
}

#[test]
fn completion_is_silent_inside_a_comment_or_a_string_but_not_on_the_lines_after() {
    let mut s = Server::default();
    let uri = url("tests/lsp/game.rules");
    let text = "players 2 // a comment\n\"a string\n\nflow { }\n";
    open(&mut s, &uri, text);
    let labels = |s: &mut Server, line: u32, character: u32| -> Option<Vec<String>> {
        let at = json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
        let v = ask(s, "textDocument/completion", at);
        v.as_array().map(|items| {
            items
                .iter()
                .map(|i| i["label"].as_str().unwrap_or("").to_string())
                .collect()
        })
    };
    assert_eq!(labels(&mut s, 0, 15), None, "inside the comment");
    assert_eq!(labels(&mut s, 1, 4), None, "inside the unterminated string");
    let after = labels(&mut s, 2, 0).expect("completion on the line after");
    assert!(after.iter().any(|l| l == "action"), "{after:?}");
}

/// A document of more declarations than an outline holds gets the first
/// [`super::outline::MAX_SYMBOLS`], names cut to [`super::outline::MAX_SYMBOL_CHARS`]
/// characters: the outline of a megabyte of repeated long lines was 20 MB of JSON before.
#[test]
fn an_outline_is_bounded_in_symbols_and_name_length() {
    let long = "n".repeat(5_000);
    let mut text = String::from("game \"g\"\nplayers 2\n");
    text.push_str(&format!("enum {long} {{ a, b }}\n"));
    for k in 0..super::outline::MAX_SYMBOLS + 10 {
        text.push_str(&format!("const c{k} = {k}\n"));
    }
    let mut s = Server::default();
    let uri = url("tests/bound.rules");
    open(&mut s, &uri, &text);
    let v = ask(
        &mut s,
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    let top = v.as_array().expect("symbols");
    let children: usize = top
        .iter()
        .map(|x| x["children"].as_array().map_or(0, |c| c.len()))
        .sum();
    assert_eq!(top.len() + children, super::outline::MAX_SYMBOLS);
    let first = top
        .iter()
        .filter_map(|x| x["name"].as_str())
        .find(|n| n.starts_with("nnn"))
        .expect("the enum");
    assert_eq!(first.chars().count(), super::outline::MAX_SYMBOL_CHARS + 1);
    assert!(first.ends_with('…'));
}

/// A rename whose edits would be over the largest message is refused with a message, before
/// the edits are built.
#[test]
fn a_rename_too_large_to_send_is_refused() {
    let mut text = String::from("game \"g\"\nplayers 2\nconst x = 1\n");
    for k in 0..200 {
        text.push_str(&format!("const y{k} = x + x + x\n"));
    }
    let mut s = Server::default();
    let uri = url("tests/bound.rules");
    open(&mut s, &uri, &text);
    let at = json!({"uri": uri});
    let pos = json!({"line": 2, "character": 6});
    let rename = |s: &mut Server, name: &str| {
        s.request(Request::new(
            RequestId::from(1),
            "textDocument/rename".into(),
            json!({"textDocument": at, "position": pos, "newName": name}),
        ))
    };
    let ok = rename(&mut s, "z");
    assert!(ok.error.is_none(), "{:?}", ok.error);
    let big = rename(&mut s, &"z".repeat(100_000));
    let e = big.error.expect("refused");
    assert_eq!(e.code, lsp_server::ErrorCode::RequestFailed as i32);
    assert!(e.message.contains("over the limit"), "{}", e.message);
}
