//! Boards: shapes, space names and adjacency.

use super::*;
use crate::ir::{self, Value};
use crate::syntax::ast;

impl Checker {
    /// `board name = shape(sizes) flags`: its sizes checked against the largest board, then
    /// its spaces and their neighbours laid out by its shape.
    pub(crate) fn board(
        &mut self,
        name: &ast::Ident,
        shape: &ast::Ident,
        args: &[ast::Expr],
        flags: &[ast::Ident],
        span: ast::Span,
    ) {
        let nums = self.board_sizes(args);
        let cells = match (shape.name.as_str(), nums.as_slice()) {
            // A hexagon of side n has 3n(n - 1) + 1 cells.
            ("hex", [n]) => n
                .checked_mul(n - 1)
                .and_then(|x| x.checked_mul(3))
                .map(|x| x + 1),
            _ => nums.iter().try_fold(1i64, |a, n| a.checked_mul(*n)),
        };
        if nums.len() == args.len() && cells.is_none_or(|c| c > ir::MAX_BOARD_SPACES as i64) {
            let p = self.error(
                Code::Limit,
                span,
                format!("a board has at most {} spaces", ir::MAX_BOARD_SPACES),
                "this board is larger",
            );
            p.help = Some("see \"Limits\" in the language reference".into());
        }
        // A board too large keeps its name, with no spaces, so that uses of it still check.
        let nums = if cells.is_some_and(|c| c <= ir::MAX_BOARD_SPACES as i64) {
            nums
        } else {
            vec![]
        };
        let diagonal = self.board_flags(shape, flags);
        let (shape_ir, names, adj) = self.board_spaces(name, shape, args, &nums, diagonal, span);
        let mut adj_start = vec![0u32];
        let mut flat = vec![];
        for a in &adj {
            flat.extend_from_slice(a);
            adj_start.push(flat.len() as u32);
        }
        let id = self.game.boards.next_id();
        self.define(name, Global::Board(id));
        self.game.boards.push(ir::Board {
            name: name.name.clone(),
            shape: shape_ir,
            space_names: names,
            adj_start,
            adj: flat,
            geo: Default::default(),
        });
    }

    /// The sizes of a board, each a positive constant number, up to the largest board;
    /// others are reported and left out.
    fn board_sizes(&mut self, args: &[ast::Expr]) -> Vec<i64> {
        args.iter()
            .filter_map(|a| match self.const_eval(a, &[]) {
                Some(Value::Int(n)) if n > 0 && n <= ir::MAX_BOARD_SPACES as i64 => Some(n),
                Some(Value::Int(n)) if n > 0 => {
                    let p = self.error(
                        Code::Limit,
                        a.span,
                        format!("a board has at most {} spaces", ir::MAX_BOARD_SPACES),
                        format!("{n} is too large"),
                    );
                    p.help = Some("see \"Limits\" in the language reference".into());
                    None
                }
                _ => {
                    self.error(
                        Code::Board,
                        a.span,
                        "a board size must be a positive constant number",
                        "not a positive number",
                    );
                    None
                }
            })
            .collect()
    }

    /// The flags after a board's shape: whether a grid's neighbours include its diagonals
    /// (`diagonal`, the only flag).
    fn board_flags(&mut self, shape: &ast::Ident, flags: &[ast::Ident]) -> bool {
        let mut diagonal = false;
        for f in flags {
            if f.name == "diagonal" && shape.name == "grid" {
                diagonal = true;
            } else {
                let p = self.error(
                    Code::Board,
                    f.span,
                    format!("unknown board option `{}`", f.name),
                    "not a board option",
                );
                p.help = Some("grids take `diagonal` (8 neighbours instead of 4)".into());
            }
        }
        diagonal
    }

    /// A board's shape, its spaces' names and each space's neighbours, from the shape's name
    /// and its sizes; an unknown shape is reported and has no spaces.
    fn board_spaces(
        &mut self,
        name: &ast::Ident,
        shape: &ast::Ident,
        args: &[ast::Expr],
        nums: &[i64],
        diagonal: bool,
        span: ast::Span,
    ) -> (ir::BoardShape, Vec<String>, Vec<Vec<u32>>) {
        match (shape.name.as_str(), nums) {
            ("grid", [w, h]) => {
                let (w, h) = (*w as u32, *h as u32);
                let (names, adj) = grid_cells(w, h, diagonal);
                let shape = ir::BoardShape::Grid {
                    width: w,
                    height: h,
                    diagonal,
                };
                (shape, names, adj)
            }
            ("hex", [w, h]) => {
                let (w, h) = (*w as u32, *h as u32);
                let (names, adj) = hex_cells(w, h, |_, _| true);
                let shape = ir::BoardShape::Hex {
                    width: w,
                    height: h,
                    side: 0,
                };
                (shape, names, adj)
            }
            ("hex", [n]) => {
                let n = *n as u32;
                let side = 2 * n - 1;
                let (lo, hi) = (n - 1, 3 * (n - 1));
                let (names, adj) = hex_cells(side, side, |c, r| c + r >= lo && c + r <= hi);
                let shape = ir::BoardShape::Hex {
                    width: side,
                    height: side,
                    side: n,
                };
                (shape, names, adj)
            }
            ("graph", []) if args.is_empty() => (ir::BoardShape::Graph, vec![], vec![]),
            ("ring", [n]) => {
                let n = *n as u32;
                let names = (0..n).map(|i| format!("{}{}", name.name, i + 1)).collect();
                let adj = (0..n)
                    .map(|i| {
                        let mut v = vec![(i + n - 1) % n, (i + 1) % n];
                        v.sort_unstable();
                        v.dedup();
                        v.retain(|&x| x != i);
                        v
                    })
                    .collect();
                (ir::BoardShape::Ring { size: n }, names, adj)
            }
            _ => {
                if nums.len() == args.len() {
                    let p = self.error(
                        Code::Board,
                        span,
                        format!(
                            "unknown board shape `{}` with {} size(s)",
                            shape.name,
                            args.len()
                        ),
                        "not a board shape",
                    );
                    p.help = Some(
                        "write `grid(width, height)`, `ring(size)`, `hex(width, height)`, \
                         `hex(side)` or `graph { spaces ... edges ... }`"
                            .into(),
                    );
                }
                (ir::BoardShape::Ring { size: 0 }, vec![], vec![])
            }
        }
    }
}

/// The cells of a hex board in a `w` x `h` box that `keep` keeps (column, row from 0), named
/// like a grid's and listed row by row, with their neighbours (c±1, r), (c, r±1), (c+1, r-1),
/// (c-1, r+1).
fn hex_cells(w: u32, h: u32, keep: impl Fn(u32, u32) -> bool) -> (Vec<String>, Vec<Vec<u32>>) {
    let mut index = vec![u32::MAX; (w * h) as usize];
    let mut names = vec![];
    for r in 0..h {
        for c in 0..w {
            if keep(c, r) {
                index[(r * w + c) as usize] = names.len() as u32;
                names.push(format!("{}{}", ir::col_name(c), r + 1));
            }
        }
    }
    let mut adj = vec![];
    for r in 0..h as i64 {
        for c in 0..w as i64 {
            if index[(r * w as i64 + c) as usize] == u32::MAX {
                continue;
            }
            let mut n: Vec<u32> = ir::HEX_STEPS
                .iter()
                .map(|&(_, dc, dr)| (c + dc, r + dr))
                .filter(|&(x, y)| x >= 0 && y >= 0 && x < w as i64 && y < h as i64)
                .map(|(x, y)| index[(y * w as i64 + x) as usize])
                .filter(|&i| i != u32::MAX)
                .collect();
            n.sort_unstable();
            adj.push(n);
        }
    }
    (names, adj)
}

/// The cells of a `w` x `h` grid, named by column letter and row number and listed row by row,
/// with their 4 neighbours, or 8 with the diagonals.
fn grid_cells(w: u32, h: u32, diagonal: bool) -> (Vec<String>, Vec<Vec<u32>>) {
    let mut names = vec![];
    let mut adj = vec![];
    for y in 0..h {
        for x in 0..w {
            names.push(format!("{}{}", ir::col_name(x), y + 1));
            let mut n = vec![];
            for (dx, dy) in [
                (0i64, -1i64),
                (-1, 0),
                (1, 0),
                (0, 1),
                (-1, -1),
                (1, -1),
                (-1, 1),
                (1, 1),
            ]
            .iter()
            .take(if diagonal { 8 } else { 4 })
            {
                let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                if nx >= 0 && ny >= 0 && nx < w as i64 && ny < h as i64 {
                    n.push((ny as u32) * w + nx as u32);
                }
            }
            n.sort_unstable();
            adj.push(n);
        }
    }
    (names, adj)
}
