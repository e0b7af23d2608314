//! The ```rules blocks of a Markdown file (the language reference, a README) in the canonical
//! layout. The prose around them is left as it is, and so is a block marked
//! `<!-- not built -->` (on a line of marks just above it): a sketch of syntax designed but
//! not built, which the layout's rules do not know yet (section 13 of `grammar/README.md`).

use super::{format, layout, words, FmtError, Kind};

/// The text of a Markdown file with each ```rules block formatted. A block that parses on
/// its own (a whole game, a scenario file) goes through [`format`], with its checks; a
/// fragment (a statement, a few declarations) is laid out by the same rules and must keep
/// its tokens. A block that parses but would not format is an error naming its line.
pub fn format_markdown(name: &str, text: &str) -> Result<String, FmtError> {
    let mut out = String::with_capacity(text.len());
    let mut block: Option<(usize, String)> = None;
    // Whether the run of `<!-- ... -->` lines just above holds the mark.
    let (mut marked, mut sketch) = (false, false);
    for (n, line) in text.split_inclusive('\n').enumerate() {
        match &mut block {
            None => {
                if line.trim_end() == "```rules" {
                    block = Some((n + 1, String::new()));
                    sketch = marked;
                }
                out.push_str(line);
            }
            Some((start, code)) if line.starts_with("```") => {
                let at = format!("{name}, the block at line {start}");
                if sketch {
                    out.push_str(code);
                } else {
                    out.push_str(&format_block(&at, code)?);
                }
                out.push_str(line);
                block = None;
            }
            Some((_, code)) => code.push_str(line),
        }
        let l = line.trim();
        marked = l.starts_with("<!--") && l.ends_with("-->") && (marked || l == NOT_BUILT);
    }
    if let Some((_, code)) = block {
        // An unclosed block runs to the end of the file: left as it is.
        out.push_str(&code);
    }
    Ok(out)
}

/// The mark above a block of syntax designed but not built.
const NOT_BUILT: &str = "<!-- not built -->";

fn format_block(name: &str, code: &str) -> Result<String, FmtError> {
    if code.trim().is_empty() {
        return Ok(code.to_string());
    }
    match format(name, code, Kind::of_text(code)) {
        Ok(out) => Ok(out),
        Err(FmtError::Syntax(_)) => {
            let out = layout(code);
            if words(code) == words(&out) {
                Ok(out)
            } else {
                Err(FmtError::Unsafe(name.to_string()))
            }
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::format_markdown;

    #[test]
    fn only_the_rules_blocks_are_formatted() {
        let text = "# Title\n\n  x=1  \n\n```rules\nflow{x=1}\n```\n\n```rust\nfn f(){}\n```\n\n\
                    ```rules\nlet y=2\n```\n<!-- not built -->\n```rules\nlet z=3\n```\n";
        let want =
            "# Title\n\n  x=1  \n\n```rules\nflow { x = 1 }\n```\n\n```rust\nfn f(){}\n```\n\n\
                    ```rules\nlet y = 2\n```\n<!-- not built -->\n```rules\nlet z=3\n```\n";
        let got = format_markdown("t.md", text).expect("formats");
        assert_eq!(got, want);
        assert_eq!(format_markdown("t.md", &got).expect("formats"), got);
    }
}
