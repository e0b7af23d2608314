//! Positions written as text: `legend name(s in board) { "c" { ... } ... }` and the
//! statement `name "text"`.
//!
//! The text is read when the file is checked, against the board's rows: rows from the last
//! (the top, as the board is drawn) to the first, separated by `/`, each row's spaces by
//! increasing column; a character of the legend stands for one space, a number for that many
//! spaces left as they are (FEN's convention). The statement is lowered to one loop per
//! character of the legend, in the legend's order, over the spaces that character names, in
//! board order, running the character's block with the legend's name bound to the space. The
//! engine sees only those loops.

use super::*;
use crate::ir::{self, Coll, Expr, Instr, Type, Value};
use crate::syntax::ast;

/// A checked legend: its board, the name its blocks read, and its entries as written.
#[derive(Clone, Debug)]
pub(crate) struct LegendDef {
    pub name: String,
    /// The board, when its binding names one.
    pub board: Option<ir::BoardId>,
    pub var: ast::Ident,
    pub entries: Vec<(char, ast::Block)>,
}

impl Checker {
    /// Names every legend and checks its head and characters (after the boards are declared).
    pub(super) fn declare_legends(&mut self, file: &ast::File) {
        for d in &file.decls {
            let ast::DeclKind::Legend {
                name,
                binding,
                entries,
            } = &d.kind
            else {
                continue;
            };
            let id = self.legends.len() as u16;
            self.define(name, Global::Legend(id));
            let board = self.legend_board(binding);
            let mut out: Vec<(char, ast::Block)> = vec![];
            for (text, span, block) in entries {
                let mut chars = text.chars();
                let c = match (chars.next(), chars.next()) {
                    (Some(c), None) if !(c.is_ascii_digit() || c == '/' || c.is_whitespace()) => c,
                    _ => {
                        let p = self.error(
                            Code::Layout,
                            *span,
                            format!("a legend's entry is one character, not {text:?}"),
                            "not one character",
                        );
                        p.help = Some(
                            "one letter or sign per entry; digits and `/` say how the text runs (a number of spaces left as they are, the next row)".into(),
                        );
                        continue;
                    }
                };
                if out.iter().any(|(o, _)| *o == c) {
                    self.error(
                        Code::Duplicate,
                        *span,
                        format!("`{c}` is in legend `{}` twice", name.name),
                        "second entry",
                    );
                    continue;
                }
                out.push((c, block.clone()));
            }
            self.legends.push(LegendDef {
                name: name.name.clone(),
                board,
                var: binding.var.clone(),
                entries: out,
            });
        }
    }

    /// The board of a legend's binding (`s in board`), which must have rows.
    fn legend_board(&mut self, binding: &ast::Binding) -> Option<ir::BoardId> {
        let board = match &binding.coll.kind {
            ast::ExprKind::Name(n) => match self.globals.get(n).copied() {
                Some((Global::Board(b), _)) => Some(b),
                _ => None,
            },
            _ => None,
        };
        let Some(b) = board else {
            let p = self.error(
                Code::Layout,
                binding.coll.span,
                "a legend reads the spaces of a board",
                "not a board",
            );
            p.help = Some("`legend pieces(s in grid) { ... }`".into());
            return None;
        };
        self.used.insert(Global::Board(b));
        self.note_use(binding.coll.span, names::Target::Global(Global::Board(b)));
        let board = &self.game.boards[b];
        if board.geo.coords.len() != board.len() as usize {
            let name = board.name.clone();
            let p = self.error(
                Code::Layout,
                binding.coll.span,
                format!("board `{name}` has no rows to write a position in"),
                "a board without rows",
            );
            p.help = Some(
                "positions as text follow rows and columns: grids and hex boards have them, graph boards do not".into(),
            );
            return None;
        }
        Some(b)
    }

    /// Checks each legend's blocks once, with the name bound to a space of its board (their
    /// uses are lowered quietly).
    pub(super) fn check_legends(&mut self) {
        for i in 0..self.legends.len() {
            let l = self.legends[i].clone();
            let ty = l.board.map_or(Type::Any, Type::Space);
            self.legend_stack.push(i as u16);
            for (_, block) in &l.entries {
                self.begin_locals();
                self.bind_local_at(&l.var, ty, "binding");
                let mut code = vec![];
                self.block(block, &mut code, &mut vec![]);
                self.end_locals();
            }
            self.legend_stack.pop();
        }
    }

    /// `name "text"`: the loops that lay the position out.
    pub(crate) fn layout(
        &mut self,
        name: &ast::Ident,
        text: &str,
        at: ast::Span,
        code: &mut Vec<Instr>,
    ) {
        let Some((Global::Legend(id), _)) = self.globals.get(&name.name).copied() else {
            let p = self.error(
                Code::Layout,
                name.span,
                format!("`{}` is not a legend", name.name),
                "not a legend",
            );
            p.help = Some(
                "declare what each character puts on its space: `legend pieces(s in grid) { \"x\" { ... } }`"
                    .into(),
            );
            return;
        };
        self.used.insert(Global::Legend(id));
        self.note_use(name.span, names::Target::Global(Global::Legend(id)));
        if self.legend_stack.contains(&id) {
            let p = self.error(
                Code::Layout,
                name.span,
                format!("legend `{}` lays itself out", name.name),
                "inside its own block",
            );
            p.help =
                Some("a legend's block may not lay out a position with the same legend".into());
            return;
        }
        let l = self.legends[id as usize].clone();
        let Some(b) = l.board else { return };
        let Some(found) = self.read_layout(&l, b, text, at) else {
            return;
        };
        // The spaces of each entry, in board order.
        let mut per: Vec<Vec<Expr>> = vec![vec![]; l.entries.len()];
        for &(s, k) in &found {
            per[k].push(Expr::Lit(Value::Space(b, s)));
        }
        self.legend_stack.push(id);
        for (spaces, (_, block)) in per.into_iter().zip(&l.entries) {
            if spaces.is_empty() {
                continue;
            }
            if !self.write_out(block.span, at) {
                break;
            }
            // The block reads the legend's name and the globals, not the caller's names; what
            // it binds takes slots after the caller's.
            // The loops run one after the other: each reuses the slots of the one before.
            let mark = self.next_local;
            let outer = std::mem::take(&mut self.scopes);
            self.quiet += 1;
            self.for_loop(
                Coll::List(spaces),
                Type::Space(b),
                &l.var,
                block,
                (at, at),
                code,
            );
            self.quiet -= 1;
            self.scopes = outer;
            self.next_local = mark;
        }
        self.legend_stack.pop();
    }

    /// The spaces a text names, each with the index of its legend entry, in board order; a
    /// problem (pointing into the string) and `None` when the text does not fit the board.
    fn read_layout(
        &mut self,
        l: &LegendDef,
        b: ir::BoardId,
        text: &str,
        at: ast::Span,
    ) -> Option<Vec<(u32, usize)>> {
        let board = &self.game.boards[b];
        let mut by_row: std::collections::BTreeMap<u32, Vec<(u32, u32)>> = Default::default();
        for s in 0..board.len() {
            let (c, r) = board.coord(s)?;
            by_row.entry(r).or_default().push((c, s));
        }
        // From the last row (the top) down, each by increasing column.
        let mut rows: Vec<(u32, Vec<(u32, u32)>)> = by_row.into_iter().rev().collect();
        for (_, v) in &mut rows {
            v.sort();
        }
        let board_name = board.name.clone();
        // The string's text starts one byte after its opening quote.
        let span_of = |from: usize, to: usize| ast::Span {
            start: at.start + 1 + from,
            end: at.start + 1 + to,
            file: at.file,
        };
        let mut out = vec![];
        let (mut row, mut col) = (0usize, 0usize);
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let width = rows.get(row).map_or(0, |(_, v)| v.len());
            if c == '/' {
                if col != width {
                    return self.layout_fault(
                        span_of(i, i + 1),
                        format!(
                            "row {} from the top of `{board_name}` has {width} spaces; the text gives {col}",
                            row + 1
                        ),
                        "the row ends here",
                    );
                }
                row += 1;
                col = 0;
                continue;
            }
            if row >= rows.len() {
                return self.layout_fault(
                    span_of(i, i + c.len_utf8()),
                    format!("`{board_name}` has {} rows; the text has more", rows.len()),
                    "past the last row",
                );
            }
            if let Some(d) = c.to_digit(10) {
                let mut n = d as usize;
                let mut end = i + 1;
                while let Some(&(j, e)) = chars.peek() {
                    let Some(d) = e.to_digit(10) else { break };
                    n = n.saturating_mul(10).saturating_add(d as usize);
                    end = j + 1;
                    chars.next();
                }
                col = col.saturating_add(n);
                if col > width {
                    return self.layout_fault(
                        span_of(i, end),
                        format!(
                            "row {} from the top of `{board_name}` has {width} spaces; the text gives {col}",
                            row + 1
                        ),
                        "past the row's end",
                    );
                }
                continue;
            }
            let Some(k) = l.entries.iter().position(|(e, _)| *e == c) else {
                let p = self.error(
                    Code::Layout,
                    span_of(i, i + c.len_utf8()),
                    format!("`{c}` is not in legend `{}`", l.name),
                    "not in the legend",
                );
                let keys: String = l.entries.iter().map(|(e, _)| *e).take(64).collect();
                p.help = Some(format!(
                    "its characters are `{keys}`; a number leaves that many spaces as they are, `/` starts the next row"
                ));
                return None;
            };
            if col >= width {
                return self.layout_fault(
                    span_of(i, i + c.len_utf8()),
                    format!(
                        "row {} from the top of `{board_name}` has {width} spaces; the text gives more",
                        row + 1
                    ),
                    "past the row's end",
                );
            }
            out.push((rows[row].1[col].1, k));
            col += 1;
        }
        let width = rows.get(row).map_or(0, |(_, v)| v.len());
        if row + 1 != rows.len() || col != width {
            return self.layout_fault(
                span_of(text.len(), text.len()),
                format!(
                    "`{board_name}` has {} rows; the text ends in row {} from the top, after {col} of its {width} spaces",
                    rows.len(),
                    row + 1
                ),
                "the text ends here",
            );
        }
        out.sort();
        Some(out)
    }

    fn layout_fault(
        &mut self,
        span: ast::Span,
        message: String,
        label: &str,
    ) -> Option<Vec<(u32, usize)>> {
        let p = self.error(Code::Layout, span, message, label);
        p.help = Some(
            "rows run from the top of the board (its last row) down, separated by `/`; a number leaves that many spaces as they are"
                .into(),
        );
        None
    }
}
