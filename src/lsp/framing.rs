//! The base protocol of the language server: messages framed by a header block
//! (`Content-Length: N`, optionally `Content-Type: ...`, then an empty line) and N bytes of
//! JSON, read from any [`BufRead`] and written to any [`Write`].
//!
//! Written here rather than taken from `lsp-server`, whose reader gives up on the first
//! malformed message; this one never does, and never allocates more than its limits:
//!
//! - a header line ends at `\r\n`, and also at a lone `\r` or a lone `\n`; empty lines before a
//!   header block are passed over;
//! - a header block is at most [`MAX_HEADER`] bytes (4 KiB); a longer one is read to its end
//!   (only the first 256 bytes of each line kept) and refused, and its body skipped if it gave
//!   a `Content-Length`;
//! - a header block without a readable `Content-Length` is refused (its body, if any, is then
//!   read as the next header block, which is refused in turn unless it happens to be one);
//!   header fields other than `Content-Length` are ignored;
//! - a body is at most [`MAX_BODY`] bytes (16 MiB); a longer one is refused before anything is
//!   allocated for it, and its bytes are skipped through the reader's own buffer;
//! - a body cut short by the end of the input ends the input.
//!
//! Each refusal is a [`Frame::Bad`], which the server answers with a JSON-RPC error of id
//! null, then goes on with the next message.

use std::io::{self, BufRead, Write};

/// The longest header block read, in bytes.
pub const MAX_HEADER: usize = 4 << 10;
/// The longest message body read, in bytes (the same limit as files on the command line).
pub const MAX_BODY: usize = 16 << 20;
/// The first bytes of a header line that are looked at; the rest is passed over.
const MAX_LINE: usize = 256;

/// What the reader found next.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A message body, at most [`MAX_BODY`] bytes (not yet parsed).
    Body(Vec<u8>),
    /// A message that cannot be read: the JSON-RPC error code to answer with (parse error or
    /// invalid request) and why. The reader has moved past it (or will, for a body too long,
    /// skipping it on the next call).
    Bad(i32, String),
    /// The end of the input.
    End,
}

/// Reads framed messages.
pub struct Reader<R> {
    input: R,
    /// Bytes of a refused body still to skip before the next header block.
    skip: u64,
    /// The last header block ended with a CR: an LF right after it belongs to it. (Looked at
    /// only when more is read, so that no answer waits for a byte that may not come.)
    lf: bool,
}

impl<R: BufRead> Reader<R> {
    /// A reader of the messages of `input`.
    pub fn new(input: R) -> Self {
        Reader {
            input,
            skip: 0,
            lf: false,
        }
    }

    /// The next message.
    pub fn next_frame(&mut self) -> io::Result<Frame> {
        if std::mem::take(&mut self.lf) {
            self.eat_lf()?;
        }
        if !self.drain()? {
            return Ok(Frame::End);
        }
        let mut length: Option<Result<u64, String>> = None;
        let mut size = 0usize;
        let mut line = Vec::with_capacity(MAX_LINE);
        let mut lines = 0usize;
        loop {
            let (ended, eol_cr) = match self.line(&mut line, &mut size)? {
                Some(x) => (true, x),
                None => (false, false),
            };
            if !ended {
                // The input ended inside a header block.
                return Ok(Frame::End);
            }
            if line.is_empty() {
                if lines == 0 {
                    size = 0; // an empty line between messages
                    continue;
                }
                self.lf = eol_cr;
                if size > MAX_HEADER {
                    // Its body, if its length is known, is skipped.
                    if let Some(Ok(n)) = length {
                        self.skip = n;
                    }
                    return Ok(Frame::Bad(
                        PARSE_ERROR,
                        format!("a header block of more than {MAX_HEADER} bytes"),
                    ));
                }
                let n = match length {
                    None => {
                        return Ok(Frame::Bad(
                            PARSE_ERROR,
                            "a header block without Content-Length".into(),
                        ))
                    }
                    Some(Err(why)) => return Ok(Frame::Bad(PARSE_ERROR, why)),
                    Some(Ok(n)) => n,
                };
                if n > MAX_BODY as u64 {
                    self.skip = n;
                    return Ok(Frame::Bad(
                        INVALID_REQUEST,
                        format!("a message of {n} bytes, over the limit of {MAX_BODY}"),
                    ));
                }
                // A block ended by a CR may be followed by the LF of a CRLF; there is a body
                // to come, so looking at its first byte does not wait for nothing.
                if n > 0 && std::mem::take(&mut self.lf) {
                    self.eat_lf()?;
                }
                let mut body = vec![0; n as usize];
                return match self.input.read_exact(&mut body) {
                    Ok(()) => Ok(Frame::Body(body)),
                    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(Frame::End),
                    Err(e) => Err(e),
                };
            }
            lines += 1;
            if eol_cr {
                self.eat_lf()?;
            }
            if let Some(value) = field(&line, "content-length") {
                length = Some(
                    std::str::from_utf8(value)
                        .ok()
                        .and_then(|v| v.trim().parse::<u64>().ok())
                        .ok_or_else(|| {
                            format!(
                                "Content-Length `{}` is not a number",
                                String::from_utf8_lossy(&value[..value.len().min(40)])
                            )
                        }),
                );
            }
        }
    }

    /// Skips what is left of a refused body; false at the end of the input.
    fn drain(&mut self) -> io::Result<bool> {
        while self.skip > 0 {
            let buf = self.input.fill_buf()?;
            if buf.is_empty() {
                self.skip = 0;
                return Ok(false);
            }
            let n = buf.len().min(self.skip.min(usize::MAX as u64) as usize);
            self.input.consume(n);
            self.skip -= n as u64;
        }
        Ok(true)
    }

    /// Reads one header line into `line` (without its end, and only its first [`MAX_LINE`]
    /// bytes), counting its bytes in `size`. `None` at the end of the input; else whether the
    /// line ended with a CR (whose LF, if one follows, is still to be eaten).
    fn line(&mut self, line: &mut Vec<u8>, size: &mut usize) -> io::Result<Option<bool>> {
        line.clear();
        loop {
            let buf = self.input.fill_buf()?;
            if buf.is_empty() {
                return Ok(None);
            }
            let end = buf.iter().position(|&b| b == b'\n' || b == b'\r');
            let take = end.unwrap_or(buf.len());
            let room = MAX_LINE.saturating_sub(line.len()).min(take);
            line.extend_from_slice(&buf[..room]);
            *size = size.saturating_add(take + usize::from(end.is_some()));
            match end {
                Some(i) => {
                    let cr = buf[i] == b'\r';
                    self.input.consume(i + 1);
                    return Ok(Some(cr));
                }
                None => self.input.consume(take),
            }
        }
    }

    /// Eats one LF if it is the next byte.
    fn eat_lf(&mut self) -> io::Result<()> {
        if self.input.fill_buf()?.first() == Some(&b'\n') {
            self.input.consume(1);
        }
        Ok(())
    }
}

/// JSON-RPC's code for a message that cannot be parsed.
pub const PARSE_ERROR: i32 = -32700;
/// JSON-RPC's code for a message that is not a valid request.
pub const INVALID_REQUEST: i32 = -32600;

/// The value of a header field `name: value` (name compared without case).
fn field<'a>(line: &'a [u8], name: &str) -> Option<&'a [u8]> {
    let colon = line.iter().position(|&b| b == b':')?;
    let (key, value) = line.split_at(colon);
    key.trim_ascii()
        .eq_ignore_ascii_case(name.as_bytes())
        .then_some(&value[1..])
}

/// Writes one message, framed, and flushes.
pub fn write(out: &mut impl Write, message: &serde_json::Value) -> io::Result<()> {
    write_body(out, &serde_json::to_vec(message)?)
}

/// Writes one framed message whose body is `body`.
pub fn write_body(out: &mut impl Write, body: &[u8]) -> io::Result<()> {
    write!(out, "Content-Length: {}\r\n\r\n", body.len())?;
    out.write_all(body)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<Frame> {
        let mut r = Reader::new(input);
        let mut out = vec![];
        loop {
            let f = r.next_frame().expect("reads from memory");
            let end = f == Frame::End;
            out.push(f);
            if end || out.len() > 100 {
                return out;
            }
        }
    }

    fn body(s: &str) -> Frame {
        Frame::Body(s.as_bytes().to_vec())
    }

    #[test]
    fn crlf_lone_cr_and_lone_lf_all_end_a_header_line() {
        let input = b"Content-Length: 2\r\n\r\n{}\
                      Content-Length: 3\r\r[1]\
                      content-length:1\n\n7\
                      Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}\
                      Content-Length: 4\r\r\n\"ab\"";
        assert_eq!(
            frames(input),
            vec![
                body("{}"),
                body("[1]"),
                body("7"),
                body("{}"),
                body("\"ab\""),
                Frame::End
            ]
        );
    }

    #[test]
    fn a_huge_content_length_is_refused_and_its_bytes_skipped_without_allocating() {
        // Were the body allocated, this would ask for 93 GiB and abort the test.
        let input = b"Content-Length: 99999999999\r\n\r\n{\"a\": 1}";
        let f = frames(input);
        assert!(
            matches!(&f[0], Frame::Bad(INVALID_REQUEST, why) if why.contains("over the limit")),
            "{f:?}"
        );
        assert_eq!(f[1..], [Frame::End]);
        // A refused body of known length is skipped, and the message after it read.
        let mut input = format!("Content-Length: {}\r\n\r\n", MAX_BODY + 1).into_bytes();
        input.extend(std::iter::repeat_n(b'x', MAX_BODY + 1));
        input.extend(b"Content-Length: 2\r\n\r\n{}");
        let f = frames(&input);
        assert!(
            matches!(&f[0], Frame::Bad(INVALID_REQUEST, _)),
            "{:?}",
            f[0]
        );
        assert_eq!(f[1..], [body("{}"), Frame::End]);
        // A length that is no number, or does not fit in 64 bits.
        let f = frames(b"Content-Length: 99999999999999999999999\r\n\r\nContent-Length: x\r\n\r\n");
        assert!(
            matches!(&f[0], Frame::Bad(PARSE_ERROR, why) if why.contains("not a number")),
            "{f:?}"
        );
        assert!(matches!(&f[1], Frame::Bad(PARSE_ERROR, _)), "{f:?}");
        assert_eq!(f[2..], [Frame::End]);
    }

    #[test]
    fn a_missing_content_length_or_a_header_too_long_is_refused_and_reading_goes_on() {
        let f = frames(b"Content-Type: x\r\n\r\nContent-Length: 2\r\n\r\n{}");
        assert_eq!(
            f,
            vec![
                Frame::Bad(PARSE_ERROR, "a header block without Content-Length".into()),
                body("{}"),
                Frame::End
            ]
        );
        // One endless line, and a block of many short lines: refused once their block ends,
        // kept in memory only up to the limit.
        for long in [
            format!("X-Long: {}\r\n", "y".repeat(1 << 20)),
            "X: y\r\n".repeat(10_000),
        ] {
            let input = format!("{long}Content-Length: 2\r\n\r\n{{}}Content-Length: 1\r\n\r\n1");
            let f = frames(input.as_bytes());
            assert!(
                matches!(&f[0], Frame::Bad(PARSE_ERROR, why) if why.contains("header block of more")),
                "{:?}",
                f[0]
            );
            // Its body, of the length it gave, is skipped.
            assert_eq!(f[1..], [body("1"), Frame::End]);
        }
        // Input that ends inside a header block or a body just ends.
        assert_eq!(frames(b"Content-Len"), [Frame::End]);
        assert_eq!(frames(b"Content-Length: 9\r\n\r\n{}"), [Frame::End]);
        assert_eq!(frames(b""), [Frame::End]);
        assert_eq!(frames(b"\r\n\n\r"), [Frame::End]);
    }

    #[test]
    fn written_messages_are_read_back() {
        let mut out = vec![];
        let m = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": "é"});
        write(&mut out, &m).expect("writes");
        write(&mut out, &m).expect("writes");
        let f = frames(&out);
        let text = m.to_string();
        assert_eq!(f, [body(&text), body(&text), Frame::End]);
    }
}
