//! Token-level mutation of rules files: a seeded generator of mutants of a corpus (tokens
//! deleted, duplicated, swapped; numbers made 0, -1 or huge; names swapped; brackets dropped or
//! repeated; deep nesting, long chains, repeated declarations, odd bytes inserted).

use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};

/// The files mutants are made from, with their texts.
pub struct Corpus {
    pub files: Vec<(PathBuf, String)>,
}

impl Corpus {
    /// Every rules file under `rules/`, `tests/fail/`, `tests/reference/` and
    /// `tests/fuzz_findings/` (when there), in a stable order.
    pub fn load(root: &Path) -> Corpus {
        let mut paths = vec![];
        for dir in [
            "rules",
            "tests/fail",
            "tests/reference",
            "tests/fuzz_findings",
        ] {
            collect(&root.join(dir), &mut paths);
        }
        paths.sort();
        let files = paths
            .into_iter()
            .filter_map(|p| std::fs::read_to_string(&p).ok().map(|t| (p, t)))
            .collect();
        Corpus { files }
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "rules") {
            out.push(p);
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Space,
    Comment,
    Str,
    Name,
    Num,
    Punct,
}

/// A token of a rules text: spaces and comments are tokens too, so that joining the tokens
/// gives the text back.
#[derive(Clone, Debug)]
pub struct Tok {
    pub kind: Kind,
    pub text: String,
}

/// The tokens of a text (any text: what is not understood is one-character punctuation).
pub fn tokens(text: &str) -> Vec<Tok> {
    let cs: Vec<char> = text.chars().collect();
    let mut out = vec![];
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        let start = i;
        let kind = if c.is_whitespace() {
            while i < cs.len() && cs[i].is_whitespace() {
                i += 1;
            }
            Kind::Space
        } else if c == '/' && cs.get(i + 1) == Some(&'/') {
            while i < cs.len() && cs[i] != '\n' && cs[i] != '\r' {
                i += 1;
            }
            Kind::Comment
        } else if c == '"' {
            i += 1;
            while i < cs.len() && cs[i] != '"' && cs[i] != '\n' {
                i += 1;
            }
            i = (i + 1).min(cs.len());
            Kind::Str
        } else if c.is_ascii_alphabetic() || c == '_' {
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            Kind::Name
        } else if c.is_ascii_digit() {
            while i < cs.len() && cs[i].is_ascii_digit() {
                i += 1;
            }
            Kind::Num
        } else {
            i += 1;
            if let Some(&n) = cs.get(i) {
                let two: String = [c, n].iter().collect();
                if ["==", "!=", "<=", ">=", "+=", "-=", ".."].contains(&two.as_str()) {
                    i += 1;
                }
            }
            Kind::Punct
        };
        out.push(Tok {
            kind,
            text: cs[start..i].iter().collect(),
        });
    }
    out
}

fn join(toks: &[Tok]) -> String {
    toks.iter().map(|t| t.text.as_str()).collect()
}

/// Numbers worth trying where a number was.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "7",
    "8",
    "9",
    "255",
    "256",
    "257",
    "10000",
    "10001",
    "65535",
    "65536",
    "100000",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "1000000000000000000000000000000",
];

/// Words and signs worth inserting.
const VOCABULARY: &[&str] = &[
    "if",
    "then",
    "else",
    "for",
    "in",
    "let",
    "repeat",
    "while",
    "break",
    "do",
    "end",
    "win",
    "true",
    "false",
    "none",
    "where",
    "and",
    "or",
    "not",
    "turn",
    "choose",
    "by",
    "each",
    "move",
    "to",
    "bottom",
    "of",
    "deal",
    "all",
    "from",
    "shuffle",
    "roll",
    "reveal",
    "hide",
    "game",
    "players",
    "const",
    "variant",
    "enum",
    "component",
    "components",
    "board",
    "zone",
    "var",
    "def",
    "action",
    "set",
    "setup",
    "flow",
    "score",
    "tiebreak",
    "ties",
    "seen",
    "owner",
    "hidden",
    "top",
    "public",
    "diagonal",
    "grid",
    "ring",
    "me",
    "current",
    "player_count",
    "seat",
    "count",
    "sum",
    "max",
    "min",
    "any",
    "all",
    "line",
    "paths",
    "group",
    "best_sets",
    "named",
    "top",
    "size",
    "adjacent",
    "space_of",
    "zone_of",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    ".",
    "..",
    "=",
    "==",
    "!=",
    "<",
    ">",
    "<=",
    ">=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "+=",
    "-=",
    "\"",
    "\"{x}\"",
    "//",
];

/// Odd bytes and characters.
const ODD: &[&str] = &[
    "\u{feff}",
    "\r",
    "\r\n",
    "\t",
    "\u{1b}[31m",
    "\u{7}",
    "\u{0}",
    "\u{7f}",
    "\u{9b}",
    "\u{202e}",
    "é",
    "𝄞",
    "\u{fffd}",
];

/// The largest mutant made (a little over the limit on rules files, to try it).
const MAX_MUTANT: usize = 1_200_000;

/// A mutant of a random corpus file, and a short description of what was done.
pub fn mutant(rng: &mut ChaCha8Rng, corpus: &Corpus) -> (String, String) {
    let (path, text) = corpus.files.choose(rng).expect("a corpus");
    let mut toks = tokens(text);
    let mut what = vec![path
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned())];
    let n = 1 + (rng.gen::<f64>().powi(3) * 6.0) as usize;
    // Half the mutants change only numbers and names, so that more of them still parse and
    // reach the checker's later passes and the engine.
    let gentle = rng.gen_bool(0.5);
    for _ in 0..n {
        what.push(mutate(rng, &mut toks, corpus, gentle).to_string());
        if toks.iter().map(|t| t.text.len()).sum::<usize>() > MAX_MUTANT {
            break;
        }
    }
    let mut out = join(&toks);
    if out.len() > MAX_MUTANT {
        let mut at = MAX_MUTANT;
        while !out.is_char_boundary(at) {
            at -= 1;
        }
        out.truncate(at);
    }
    (out, what.join(" "))
}

/// The positions of the tokens that are not spaces or comments.
fn solid(toks: &[Tok]) -> Vec<usize> {
    toks.iter()
        .enumerate()
        .filter(|(_, t)| !matches!(t.kind, Kind::Space | Kind::Comment))
        .map(|(i, _)| i)
        .collect()
}

fn tok(kind: Kind, text: impl Into<String>) -> Tok {
    Tok {
        kind,
        text: text.into(),
    }
}

/// Applies one mutation; returns its name.
fn mutate(
    rng: &mut ChaCha8Rng,
    toks: &mut Vec<Tok>,
    corpus: &Corpus,
    gentle: bool,
) -> &'static str {
    let solid = solid(toks);
    if solid.is_empty() {
        toks.push(tok(Kind::Name, *VOCABULARY.choose(rng).expect("words")));
        return "insert";
    }
    let at = *solid.choose(rng).expect("solid");
    let of = |kind: Kind| -> Vec<usize> {
        solid
            .iter()
            .copied()
            .filter(|i| toks[*i].kind == kind)
            .collect()
    };
    let op = if gentle {
        *[3, 4, 5, 6, 8].choose(rng).expect("ops")
    } else {
        rng.gen_range(0..17)
    };
    match op {
        0 => {
            toks.remove(at);
            "delete"
        }
        1 => {
            let t = toks[at].clone();
            toks.insert(at, tok(Kind::Space, " "));
            toks.insert(at, t);
            "duplicate"
        }
        2 => {
            let other = *solid.choose(rng).expect("solid");
            toks.swap(at, other);
            "swap"
        }
        3 | 4 => {
            let nums = of(Kind::Num);
            let Some(&i) = nums.choose(rng) else {
                return "no number";
            };
            toks[i].text = NUMBERS.choose(rng).expect("numbers").to_string();
            "number"
        }
        5 | 6 => {
            let names = of(Kind::Name);
            let (Some(&i), Some(&j)) = (names.choose(rng), names.choose(rng)) else {
                return "no name";
            };
            toks[i].text = toks[j].text.clone();
            "name"
        }
        7 => {
            let brackets: Vec<usize> = solid
                .iter()
                .copied()
                .filter(|i| "()[]{}".contains(toks[*i].text.as_str()))
                .collect();
            let Some(&i) = brackets.choose(rng) else {
                return "no bracket";
            };
            if rng.gen_bool(0.5) {
                toks.remove(i);
                "drop bracket"
            } else {
                let t = toks[i].clone();
                for _ in 0..rng.gen_range(1..4) {
                    toks.insert(i, t.clone());
                }
                "repeat bracket"
            }
        }
        8 | 9 => {
            // Deep nesting around a token, just at and around the limits, or far past them.
            let k = *[3usize, 100, 250, 255, 256, 257, 300, 1000, 5000]
                .choose(rng)
                .expect("depths");
            let t = toks[at].text.clone();
            toks[at].text = match rng.gen_range(0..7) {
                0 => format!("{}{t}{}", "(".repeat(k), ")".repeat(k)),
                1 => format!("{}{t}", "not ".repeat(k)),
                2 => format!("{}{t}", "- ".repeat(k)),
                3 => format!("{t}{}", " + 1".repeat(k)),
                4 => format!("{}{t}", "if true then 1 else ".repeat(k)),
                5 => format!("{}{t}{}", "[".repeat(k), "]".repeat(k)),
                _ => format!("{}{t}{}", "{ ".repeat(k), " }".repeat(k)),
            };
            "nest"
        }
        10 => {
            toks.insert(at, tok(Kind::Space, " "));
            toks.insert(
                at,
                tok(Kind::Punct, *VOCABULARY.choose(rng).expect("words")),
            );
            "insert word"
        }
        11 => {
            toks.insert(at, tok(Kind::Punct, *ODD.choose(rng).expect("odd")));
            "insert odd"
        }
        12 => {
            // Repeat a line many times: sizes, counts of declarations, long files.
            let text = join(toks);
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            let line = lines.choose(rng).copied().unwrap_or("");
            let times = *[10usize, 100, 1000, 10_000, 100_000]
                .choose(rng)
                .expect("times");
            let times = times.min(MAX_MUTANT / line.len().max(1));
            let at = rng.gen_range(0..=toks.len());
            toks.insert(at, tok(Kind::Space, line.repeat(times)));
            "repeat line"
        }
        13 => {
            // A line of another file.
            let (_, other) = corpus.files.choose(rng).expect("a corpus");
            let lines: Vec<&str> = other.split_inclusive('\n').collect();
            if let Some(line) = lines.choose(rng) {
                let at = rng.gen_range(0..=toks.len());
                toks.insert(at, tok(Kind::Space, *line));
            }
            "splice"
        }
        14 => {
            // Cut the text short.
            let keep = rng.gen_range(0..toks.len());
            toks.truncate(keep);
            "truncate"
        }
        15 => {
            // Line ends: all CR, CR LF, or none.
            let to = ["\r", "\r\n", " "].choose(rng).expect("ends").to_string();
            for t in toks.iter_mut() {
                if t.kind == Kind::Space && t.text.contains('\n') {
                    t.text = t.text.replace('\n', &to);
                }
            }
            "line ends"
        }
        _ => {
            // A long name or string.
            let k = *[100usize, 70_000].choose(rng).expect("lengths");
            let names = of(Kind::Name);
            if let Some(&i) = names.choose(rng) {
                toks[i].text = "x".repeat(k);
            }
            "long name"
        }
    }
}
