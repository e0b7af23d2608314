//! The limits of the syntax, checked before and while a file is parsed, so that no input can
//! make the parser, the checker or anything else that walks the syntax tree run out of stack
//! or memory. The language reference lists them all (section "Limits").

/// The largest rules or scenario file: 1 MiB, some fifteen times the largest game written so
/// far. Larger files are refused before they are parsed.
pub const MAX_SOURCE_BYTES: usize = 1 << 20;

/// How deeply brackets (`(`, `[`, `{`), `if`s and prefix operators (`not`, `-`) may nest,
/// counted on the text before it is parsed (the parser itself recurses on them).
pub const MAX_NESTING: usize = 256;

/// How deep the syntax tree may be: blocks, statements and expressions together, where a
/// chain `a + b + c + ...` counts one level per operator (it is a tree leaning left).
pub const MAX_DEPTH: usize = 256;
