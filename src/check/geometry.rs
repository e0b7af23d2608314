//! Board geometry: the `Direction` enum; the directions, steps and coordinates of grids, hex
//! boards and rings; graph boards (spaces, edges, lines); closed spaces.

use super::*;
use crate::ir::{self, BoardShape, Value};
use crate::syntax::ast;
use std::collections::{HashMap, HashSet};

impl Checker {
    /// The enum `Direction` (north, ..., clockwise, anticlockwise), unless the file declares
    /// the name itself. Its values become names later, where no other name takes them.
    pub(super) fn declare_directions(&mut self, file: &ast::File) {
        let taken = file.decls.iter().any(|d| {
            let name = match &d.kind {
                ast::DeclKind::Const { name, .. }
                | ast::DeclKind::Variant { name, .. }
                | ast::DeclKind::Enum { name, .. }
                | ast::DeclKind::Component { name, .. }
                | ast::DeclKind::Board { name, .. }
                | ast::DeclKind::Zone { name, .. }
                | ast::DeclKind::Var { name, .. }
                | ast::DeclKind::Def { name, .. }
                | ast::DeclKind::Action { name, .. }
                | ast::DeclKind::Set { name, .. }
                | ast::DeclKind::Memory { name, .. } => name,
                _ => return false,
            };
            name.name == "Direction"
        });
        if taken {
            return;
        }
        let id = self.game.enums.next_id();
        self.globals
            .insert("Direction".into(), (Global::Enum(id), ast::Span::default()));
        self.game.enums.push(ir::EnumDef {
            name: "Direction".into(),
            values: ir::DIRECTION_NAMES.iter().map(|n| n.to_string()).collect(),
        });
        self.game.direction_enum = Some(id);
    }

    /// What the board declared last needs besides its shape: a graph's spaces, edges and
    /// lines, or the directions of the other shapes; then its closed spaces.
    pub(super) fn board_extras(
        &mut self,
        graph: Option<&ast::GraphDecl>,
        closed: Option<&ast::ClosedDecl>,
    ) {
        let Some(bid) = self.game.boards.ids().last() else {
            return;
        };
        match (&self.game.boards[bid].shape, graph) {
            (BoardShape::Graph, Some(g)) => self.graph_board(bid, g),
            (BoardShape::Graph, None) => {
                let name = self.game.boards[bid].name.clone();
                let sp = self.decl_spans.get(&Global::Board(bid)).copied();
                let p = self.error(
                    Code::Board,
                    sp.unwrap_or_default(),
                    format!("graph board `{name}` has no spaces"),
                    "expected `graph { spaces ... }`",
                );
                p.help = Some("write `graph { spaces a, b, c edges a - b, b - c }`".into());
            }
            _ => self.board_geometry(bid),
        }
        if let Some(c) = closed {
            self.close_spaces(bid, c);
        }
        let b = &mut self.game.boards[bid];
        if b.len() <= 64 {
            b.geo.near = ir::geometry::near_sets(&b.adj_start, &b.adj);
            b.geo.open_near = ir::geometry::near_sets(&b.geo.open_adj_start, &b.geo.open_adj);
        }
    }

    /// Directions, steps and coordinates of a grid, a hex board or a ring.
    fn board_geometry(&mut self, bid: ir::BoardId) {
        let b = &self.game.boards[bid];
        let n = b.len();
        let mut geo = ir::Geometry {
            steps: vec![ir::NO_SPACE; n as usize * ir::DIRECTION_COUNT],
            ..Default::default()
        };
        // Each space's (column, row) from 0, and the space at a box position.
        let (w, h, dirs): (u32, u32, Vec<(u16, i64, i64)>) = match b.shape {
            BoardShape::Grid {
                width,
                height,
                diagonal,
            } => {
                let dirs = ir::GRID_STEPS
                    .iter()
                    .enumerate()
                    .filter(|(d, _)| diagonal || d % 2 == 0)
                    .map(|(d, &(dc, dr))| (d as u16, dc, dr))
                    .collect();
                (width, height, dirs)
            }
            BoardShape::Hex { width, height, .. } => (width, height, ir::HEX_STEPS.to_vec()),
            BoardShape::Ring { size } => {
                geo.dirs = vec![8, 9];
                geo.coords = (1..=size).map(|i| (i, 1)).collect();
                if size > 1 {
                    for i in 0..size {
                        let at = i as usize * ir::DIRECTION_COUNT;
                        geo.steps[at + 8] = (i + 1) % size;
                        geo.steps[at + 9] = (i + size - 1) % size;
                    }
                }
                self.game.boards[bid].geo = geo;
                return;
            }
            BoardShape::Graph => return,
        };
        let side = match b.shape {
            BoardShape::Hex { side, .. } => side,
            _ => 0,
        };
        let mut at_box = vec![ir::NO_SPACE; (w as usize) * (h as usize)];
        for r in 0..h {
            for c in 0..w {
                let kept = side == 0 || (c + r >= side - 1 && c + r <= 3 * (side - 1));
                if kept {
                    at_box[(r * w + c) as usize] = geo.coords.len() as u32;
                    geo.coords.push((c + 1, r + 1));
                }
            }
        }
        if geo.coords.len() != n as usize {
            return; // a board too large was reported and has no spaces
        }
        geo.dirs = dirs.iter().map(|d| d.0).collect();
        // A grid's step table has all 8 directions, even without `diagonal`.
        let all: Vec<(u16, i64, i64)> = match b.shape {
            BoardShape::Grid { .. } => ir::GRID_STEPS
                .iter()
                .enumerate()
                .map(|(d, &(dc, dr))| (d as u16, dc, dr))
                .collect(),
            _ => dirs,
        };
        for s in 0..n as usize {
            let (c, r) = geo.coords[s];
            let (c, r) = (c as i64 - 1, r as i64 - 1);
            for &(d, dc, dr) in &all {
                let (x, y) = (c + dc, r + dr);
                if x >= 0 && y >= 0 && x < w as i64 && y < h as i64 {
                    geo.steps[s * ir::DIRECTION_COUNT + d as usize] =
                        at_box[(y * w as i64 + x) as usize];
                }
            }
        }
        self.game.boards[bid].geo = geo;
    }

    /// A graph board's spaces, edges and lines.
    fn graph_board(&mut self, bid: ir::BoardId, g: &ast::GraphDecl) {
        let board_name = self.game.boards[bid].name.clone();
        if g.spaces.len() > ir::MAX_BOARD_SPACES {
            let p = self.error(
                Code::Limit,
                g.spaces[ir::MAX_BOARD_SPACES].span,
                format!("a board has at most {} spaces", ir::MAX_BOARD_SPACES),
                "one space too many",
            );
            p.help = Some("see \"Limits\" in the language reference".into());
            return;
        }
        let mut index: HashMap<&str, u32> = HashMap::new();
        let mut names = vec![];
        for s in &g.spaces {
            if index.contains_key(s.name.as_str()) {
                let p = self.error(
                    Code::Duplicate,
                    s.span,
                    format!("space `{}` is declared twice in `{board_name}`", s.name),
                    "declared again",
                );
                p.help = Some("every space of a graph has its own name".into());
                continue;
            }
            index.insert(&s.name, names.len() as u32);
            names.push(s.name.clone());
        }
        if names.is_empty() {
            let sp = self.decl_spans.get(&Global::Board(bid)).copied();
            let p = self.error(
                Code::Board,
                sp.unwrap_or_default(),
                format!("graph board `{board_name}` has no spaces"),
                "no `spaces` here",
            );
            p.help = Some("write `graph { spaces a, b, c edges a - b, b - c }`".into());
        }
        let mut adj: Vec<Vec<u32>> = vec![vec![]; names.len()];
        if g.edges.len() > ir::MAX_GRAPH_EDGES {
            let p = self.error(
                Code::Limit,
                g.edges[ir::MAX_GRAPH_EDGES].0.span,
                format!("a graph has at most {} edges", ir::MAX_GRAPH_EDGES),
                "one edge too many",
            );
            p.help = Some("see \"Limits\" in the language reference".into());
        } else {
            let mut seen: HashSet<(u32, u32)> = HashSet::new();
            for (a, b) in &g.edges {
                let (Some(x), Some(y)) = (
                    self.graph_space(&index, a, &board_name),
                    self.graph_space(&index, b, &board_name),
                ) else {
                    continue;
                };
                if x == y {
                    let p = self.error(
                        Code::Board,
                        ast::Span::in_file(a.span.start, b.span.end, a.span.file),
                        format!("an edge from `{}` to itself", a.name),
                        "a space is not its own neighbour",
                    );
                    p.help = Some("edges join two different spaces".into());
                    continue;
                }
                if !seen.insert((x.min(y), x.max(y))) {
                    let p = self.error(
                        Code::Board,
                        ast::Span::in_file(a.span.start, b.span.end, a.span.file),
                        format!("the edge `{} - {}` is given twice", a.name, b.name),
                        "given again",
                    );
                    p.help = Some("edges are undirected: `a - b` is also `b - a`".into());
                    continue;
                }
                adj[x as usize].push(y);
                adj[y as usize].push(x);
            }
        }
        let mut lines = vec![];
        let mut line_names = vec![];
        if g.lines.len() > ir::MAX_GRAPH_LINES {
            let sp = g.lines[ir::MAX_GRAPH_LINES]
                .1
                .first()
                .map_or(ast::Span::default(), |i| i.span);
            let p = self.error(
                Code::Limit,
                sp,
                format!("a graph has at most {} lines", ir::MAX_GRAPH_LINES),
                "one line too many",
            );
            p.help = Some("see \"Limits\" in the language reference".into());
        } else {
            for (name, spaces) in &g.lines {
                let mut line = vec![];
                for s in spaces {
                    let Some(x) = self.graph_space(&index, s, &board_name) else {
                        continue;
                    };
                    if line.contains(&x) {
                        let p = self.error(
                            Code::Board,
                            s.span,
                            format!("this line names `{}` twice", s.name),
                            "already in the line",
                        );
                        p.help = Some("a line passes through each space once".into());
                    }
                    line.push(x);
                }
                if spaces.len() < 2 {
                    let sp = name
                        .as_ref()
                        .or(spaces.first())
                        .map_or(ast::Span::default(), |i| i.span);
                    let p = self.error(
                        Code::Board,
                        sp,
                        "a line needs at least 2 spaces",
                        "too short",
                    );
                    p.help = Some("write `line mill = a, b, c` or `lines a b c`".into());
                }
                if let Some(n) = name {
                    let k = line_names.len() as u32;
                    self.define(n, Global::Line(bid, k));
                    line_names.push((n.name.clone(), lines.len()));
                }
                lines.push(line);
            }
        }
        for a in &mut adj {
            a.sort_unstable();
        }
        let (adj_start, flat) = compress(&adj);
        let b = &mut self.game.boards[bid];
        b.space_names = names;
        b.adj_start = adj_start;
        b.adj = flat;
        // Per space, the lines holding it and where it first stands in each.
        let mut at: Vec<Vec<(u32, u32)>> = vec![vec![]; b.space_names.len()];
        for (li, line) in lines.iter().enumerate() {
            for (pos, &x) in line.iter().enumerate() {
                if let Some(row) = at.get_mut(x as usize) {
                    if row.last().is_none_or(|&(l, _)| l != li as u32) {
                        row.push((li as u32, pos as u32));
                    }
                }
            }
        }
        let (line_at_start, line_at) = compress(&at);
        b.geo.line_at_start = line_at_start;
        b.geo.line_at = line_at;
        b.geo.lines = lines;
        b.geo.line_names = line_names;
    }

    /// The index of a graph's space named by `s`; an error when the graph has none.
    fn graph_space(
        &mut self,
        index: &HashMap<&str, u32>,
        s: &ast::Ident,
        board: &str,
    ) -> Option<u32> {
        if let Some(&i) = index.get(s.name.as_str()) {
            return Some(i);
        }
        let p = self.error(
            Code::Board,
            s.span,
            format!("`{}` is not a space of `{board}`", s.name),
            "unknown space",
        );
        p.help = Some("declare it in the graph's `spaces`".into());
        None
    }

    /// `closed [a, b] when FLAG`: which spaces, when, and the adjacency without them.
    fn close_spaces(&mut self, bid: ir::BoardId, c: &ast::ClosedDecl) {
        let board = &self.game.boards[bid];
        let n = board.len() as usize;
        let mut closed = vec![false; n];
        let mut unknown = vec![];
        for s in &c.spaces {
            match board.space_names.iter().position(|x| *x == s.name) {
                Some(i) => closed[i] = true,
                None => unknown.push(s),
            }
        }
        let name = board.name.clone();
        for s in unknown {
            let p = self.error(
                Code::Board,
                s.span,
                format!("`{}` is not a space of `{name}`", s.name),
                "unknown space",
            );
            p.help = Some(format!("close spaces of `{name}` only"));
        }
        let mut when = None;
        if let Some(e) = &c.when {
            let (flag, want) = match &e.kind {
                ast::ExprKind::Unary(ast::UnOp::Not, x) => (&**x, false),
                _ => (e, true),
            };
            match (&flag.kind, self.globals.get(flag_name(flag)).copied()) {
                (ast::ExprKind::Bool(b), _) => {
                    if *b != want {
                        closed.iter_mut().for_each(|x| *x = false);
                    }
                }
                (ast::ExprKind::Name(_), Some((Global::Const(k), _)))
                    if matches!(self.game.consts[k].value, Value::Bool(_)) =>
                {
                    self.used.insert(Global::Const(k));
                    when = Some((k, want));
                }
                _ => {
                    let p = self.error(
                        Code::Board,
                        e.span,
                        "closed spaces depend on a constant flag",
                        "not a `const` flag",
                    );
                    p.help = Some(
                        "declare `const PIT = false`, switch it in a variant, and write \
                         `closed [...] when PIT` (or `when not PIT`)"
                            .into(),
                    );
                }
            }
        }
        let board = &self.game.boards[bid];
        let open: Vec<Vec<u32>> = (0..n as u32)
            .map(|s| {
                if closed[s as usize] {
                    vec![]
                } else {
                    board
                        .neighbours(s)
                        .iter()
                        .copied()
                        .filter(|t| !closed[*t as usize])
                        .collect()
                }
            })
            .collect();
        let (starts, flat) = compress(&open);
        let geo = &mut self.game.boards[bid].geo;
        geo.open_adj_start = starts;
        geo.open_adj = flat;
        geo.closed_when = when;
        geo.closed = if closed.iter().any(|x| *x) {
            closed
        } else {
            vec![]
        };
    }
}

/// The name of a flag written as a bare name (empty otherwise).
fn flag_name(e: &ast::Expr) -> &str {
    match &e.kind {
        ast::ExprKind::Name(n) => n,
        _ => "",
    }
}

/// Lists of neighbours as compressed rows: (row starts, neighbours).
fn compress<T: Copy>(lists: &[Vec<T>]) -> (Vec<u32>, Vec<T>) {
    let mut starts = vec![0u32];
    let mut flat = vec![];
    for l in lists {
        flat.extend_from_slice(l);
        starts.push(flat.len() as u32);
    }
    (starts, flat)
}
