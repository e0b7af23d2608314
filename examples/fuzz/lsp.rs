//! The language server, fuzzed: a byte stream of framed LSP messages (`initialize`, documents
//! of the corpus opened and changed, mutated; requests at random positions, some with
//! parameters of the wrong shape; garbage bodies, bodies mangled byte by byte, lengths too
//! short, too long or huge, header lines ended by a lone CR or LF, missing or endless
//! headers) fed to `rulebook::lsp::serve` in this process, through its reader and writer.
//!
//! Findings: a panic; the loop ending before the input ends (no input here says `exit`); and,
//! when every frame of the input is framed exactly (`Content-Length: N\r\n\r\n` and N bytes),
//! a request (JSON-RPC 2.0, a string method, an id of 32 bits or a string) left without a
//! reply of its id, or a reply that is not JSON-RPC 2.0.

use crate::mutate::{self, Corpus};
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

const METHODS: &[&str] = &[
    "textDocument/hover",
    "textDocument/definition",
    "textDocument/references",
    "textDocument/prepareRename",
    "textDocument/rename",
    "textDocument/completion",
    "textDocument/documentSymbol",
    "textDocument/semanticTokens/full",
    "textDocument/formatting",
];

fn frame(body: &[u8]) -> Vec<u8> {
    let mut f = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    f.extend_from_slice(body);
    f
}

fn any_id(rng: &mut ChaCha8Rng, n: usize) -> Value {
    match rng.gen_range(0..20) {
        0 => json!(format!("s{n}")),
        1 => json!(null),
        2 => json!(1.5),
        3 => json!(i64::MAX),
        4 => json!({"id": n}),
        _ => json!(n),
    }
}

fn position(rng: &mut ChaCha8Rng, lines: usize) -> Value {
    match rng.gen_range(0..10) {
        0 => json!({"line": u32::MAX, "character": u32::MAX}),
        1 => json!({"line": -1, "character": "x"}),
        2 => json!({"line": lines + rng.gen_range(0..3), "character": rng.gen_range(0..200)}),
        _ => json!({"line": rng.gen_range(0..lines.max(1)), "character": rng.gen_range(0..60)}),
    }
}

/// Changes a value a little: a key removed, a value of another type, a string cut.
fn mangle(rng: &mut ChaCha8Rng, v: &mut Value) {
    match v {
        Value::Object(m) if !m.is_empty() && rng.gen_bool(0.7) => {
            let keys: Vec<String> = m.keys().cloned().collect();
            let k = keys.choose(rng).cloned().unwrap_or_default();
            match rng.gen_range(0..3) {
                0 => {
                    m.remove(&k);
                }
                1 => {
                    if let Some(x) = m.get_mut(&k) {
                        mangle(rng, x);
                    }
                }
                _ => {
                    let odd = [json!(null), json!([]), json!("x"), json!(-7), json!({})];
                    m.insert(k, odd.choose(rng).cloned().unwrap_or_default());
                }
            }
        }
        Value::String(s) if rng.gen_bool(0.5) => {
            let mut cut = rng.gen_range(0..=s.len());
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            s.truncate(cut);
        }
        _ => {
            let odd = [
                json!(null),
                json!([1]),
                json!("é"),
                json!(1e300),
                json!(true),
            ];
            *v = odd.choose(rng).cloned().unwrap_or_default();
        }
    }
}

/// A random stream of frames.
pub fn input(rng: &mut ChaCha8Rng, corpus: &Corpus) -> (Vec<u8>, String) {
    let mut out = Vec::new();
    let mut what = Vec::new();
    let mut lines = 1usize;
    let uri = |k: usize| {
        let ext = if k % 3 == 2 { "scenarios" } else { "rules" };
        format!("file:///fuzz/doc{k}.{ext}")
    };
    if rng.gen_bool(0.95) {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                          "params": {"processId": null, "rootUri": null, "capabilities": {}}});
        out.extend(frame(init.to_string().as_bytes()));
        out.extend(frame(
            br#"{"jsonrpc": "2.0", "method": "initialized", "params": {}}"#,
        ));
    }
    let n = rng.gen_range(1..25);
    for i in 1..=n {
        let doc = uri(rng.gen_range(0..3));
        let mut msg = match rng.gen_range(0..20) {
            0..=3 => {
                let (text, w) = if rng.gen_bool(0.7) {
                    mutate::mutant(rng, corpus)
                } else {
                    let (p, t) = corpus.files.choose(rng).expect("a corpus");
                    (t.clone(), format!("{}", p.display()))
                };
                lines = text.lines().count();
                what.push(format!("open {w}"));
                let method = if rng.gen_bool(0.7) {
                    "textDocument/didOpen"
                } else {
                    "textDocument/didChange"
                };
                let params = if method.ends_with("didOpen") {
                    json!({"textDocument": {"uri": doc, "languageId": "rules", "version": i, "text": text}})
                } else {
                    json!({"textDocument": {"uri": doc, "version": i}, "contentChanges": [{"text": text}]})
                };
                json!({"jsonrpc": "2.0", "method": method, "params": params})
            }
            4 => json!({"jsonrpc": "2.0", "method": "textDocument/didClose",
                        "params": {"textDocument": {"uri": doc}}}),
            5 => json!({"jsonrpc": "2.0", "id": any_id(rng, i), "method":
                        *["shutdown", "initialize", "workspace/symbol", "$/x"].choose(rng).expect("one")}),
            6 => json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": i}}),
            _ => {
                let method = *METHODS.choose(rng).expect("a method");
                let mut params =
                    json!({"textDocument": {"uri": doc}, "position": position(rng, lines)});
                match method {
                    "textDocument/references" => {
                        params["context"] = json!({"includeDeclaration": rng.gen_bool(0.5)})
                    }
                    "textDocument/rename" => {
                        params["newName"] = json!(["renamed", "where", "", "a b", "é"].choose(rng))
                    }
                    "textDocument/formatting" => {
                        params["options"] = json!({"tabSize": 4, "insertSpaces": true})
                    }
                    _ => {}
                }
                json!({"jsonrpc": "2.0", "id": any_id(rng, i), "method": method, "params": params})
            }
        };
        if rng.gen_bool(0.15) {
            mangle(rng, &mut msg);
        }
        let mut body = msg.to_string().into_bytes();
        let roll = rng.gen_range(0..100);
        // Mostly well framed; else one of the ways a frame goes wrong.
        let f = match roll {
            0..=79 => frame(&body),
            80..=83 => {
                for _ in 0..rng.gen_range(1..4) {
                    if !body.is_empty() {
                        let at = rng.gen_range(0..body.len());
                        body[at] = rng.gen();
                    }
                }
                what.push("bytes flipped".into());
                frame(&body)
            }
            84..=85 => {
                let junk: Vec<u8> = (0..rng.gen_range(0..40)).map(|_| rng.gen()).collect();
                what.push("garbage body".into());
                frame(&junk)
            }
            86 => {
                what.push("huge length".into());
                let n = [99_999_999_999u64, (16 << 20) + 1, u64::MAX];
                let mut f =
                    format!("Content-Length: {}\r\n\r\n", n.choose(rng).expect("one")).into_bytes();
                f.extend_from_slice(&body);
                f
            }
            87..=88 => {
                what.push("length off".into());
                let n = (body.len() as i64 + rng.gen_range(-5..5)).max(0);
                let mut f = format!("Content-Length: {n}\r\n\r\n").into_bytes();
                f.extend_from_slice(&body);
                f
            }
            89..=91 => {
                what.push("lone CR or LF".into());
                let eol = *["\r", "\n", "\r\n", "\n\r"].choose(rng).expect("one");
                let end = *["\r", "\n", "\r\n"].choose(rng).expect("one");
                let mut f = format!(
                    "Content-Length: {}{eol}Content-Type: application/vscode-jsonrpc{eol}{end}",
                    body.len()
                )
                .into_bytes();
                f.extend_from_slice(&body);
                f
            }
            92 => {
                what.push("no length".into());
                let mut f = b"Content-Type: x\r\n\r\n".to_vec();
                f.extend_from_slice(&body);
                f
            }
            93 => {
                what.push("endless header".into());
                let mut f =
                    format!("X-{}: y\r\n", "h".repeat(rng.gen_range(1..10_000))).into_bytes();
                f.extend(frame(&body));
                f
            }
            94 => {
                what.push("length no number".into());
                let mut f = b"Content-Length: -3\r\n\r\n".to_vec();
                f.extend_from_slice(&body);
                f
            }
            95 => {
                what.push("deep JSON".into());
                let depth = rng.gen_range(100..5000);
                frame(format!("{}{}", "[".repeat(depth), "]".repeat(depth)).as_bytes())
            }
            _ => {
                what.push("frame cut".into());
                let mut f = frame(&body);
                f.truncate(rng.gen_range(0..f.len()));
                f
            }
        };
        out.extend(f);
    }
    what.dedup();
    let w = format!("{n} message(s): {}", what.join(", "));
    (out, w)
}

/// Splits an input into its frames if every one is framed exactly; `None` otherwise.
fn strict_frames(mut bytes: &[u8]) -> Option<Vec<&[u8]>> {
    let mut out = vec![];
    while !bytes.is_empty() {
        let rest = bytes.strip_prefix(b"Content-Length: ")?;
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let n: usize = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
        let rest = rest[digits..].strip_prefix(b"\r\n\r\n")?;
        if n > rest.len() || n > rulebook::lsp::framing::MAX_BODY {
            return None;
        }
        out.push(&rest[..n]);
        bytes = &rest[n..];
    }
    Some(out)
}

/// Runs an input through the server; what was answered, or why that is wrong.
pub fn run(bytes: &[u8]) -> Result<String, String> {
    let mut output = Vec::new();
    let ended = rulebook::lsp::serve(bytes, &mut output).map_err(|e| format!("io error {e}"))?;
    if ended != rulebook::lsp::Ended::Eof {
        return Err(format!("the loop ended ({ended:?}) before the input"));
    }
    let mut replies = Vec::new();
    let mut reader = rulebook::lsp::framing::Reader::new(&output[..]);
    loop {
        match reader.next_frame() {
            Ok(rulebook::lsp::framing::Frame::Body(b)) => {
                let v: Value =
                    serde_json::from_slice(&b).map_err(|e| format!("a reply not JSON: {e}"))?;
                if v["jsonrpc"] != "2.0" {
                    return Err(format!("a message without jsonrpc 2.0: {v}"));
                }
                if v.get("method").is_none() {
                    if v.get("result").is_none() == v.get("error").is_none() {
                        return Err(format!(
                            "a reply with both or neither result and error: {v}"
                        ));
                    }
                    replies.push(v["id"].clone());
                }
            }
            Ok(rulebook::lsp::framing::Frame::End) => break,
            other => return Err(format!("the server wrote a bad frame: {other:?}")),
        }
    }
    if let Some(frames) = strict_frames(bytes) {
        for body in frames {
            let Ok(v) = serde_json::from_slice::<Value>(body) else {
                continue;
            };
            let id = &v["id"];
            let id_ok = id.is_string() || id.as_i64().is_some_and(|n| i32::try_from(n).is_ok());
            if v["jsonrpc"] == "2.0" && v["method"].is_string() && id_ok && !replies.contains(id) {
                return Err(format!("no reply to request {id} ({})", v["method"]));
            }
        }
    }
    Ok(format!("{} repl(ies)", replies.len()))
}
