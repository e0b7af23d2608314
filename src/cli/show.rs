//! Text renderings for people: a game's structure, and a seat's view of a state.

use crate::engine::{State, View};
use crate::ir::{Arm, BoardShape, Dim, Game, Instr, Type, Visibility};

fn type_name(g: &Game, t: Type) -> String {
    match t {
        Type::Int => "int".into(),
        Type::Bool => "bool".into(),
        Type::Player => "Player".into(),
        Type::Enum(e) => g.enums[e].name.clone(),
        Type::Comp(c) => g.types[c].name.clone(),
        Type::Space(b) => g.boards[b].name.clone(),
        Type::Zone(c) => format!("zone of {}", g.types[c].name),
        Type::Action(s) => {
            let ps: Vec<String> = g.signatures[s].iter().map(|t| type_name(g, *t)).collect();
            if ps.is_empty() {
                "action".into()
            } else {
                format!("action({})", ps.join(", "))
            }
        }
        Type::Any => "any".into(),
    }
}

fn dims(g: &Game, d: &[Dim]) -> String {
    if d.is_empty() {
        return String::new();
    }
    let names: Vec<String> = d
        .iter()
        .map(|d| match d {
            Dim::Player => "Player".into(),
            Dim::Enum(e) => g.enums[*e].name.clone(),
            Dim::Board(b) => g.boards[*b].name.clone(),
            Dim::Range { lo, size } => format!("{lo}..{}", lo + *size as i64 - 1),
        })
        .collect();
    format!("[{}]", names.join(", "))
}

/// The structure of a game: components, zones, flow, actions, scoring.
pub fn explain(g: &Game) -> String {
    let mut s = String::new();
    let players = if g.min_players == g.max_players {
        g.min_players.to_string()
    } else {
        format!("{}-{}", g.min_players, g.max_players)
    };
    s += &format!("{} ({} players)\n", g.name, players);
    explain_variants(g, &mut s);
    explain_components(g, &mut s);
    explain_boards(g, &mut s);
    explain_zones(g, &mut s);
    explain_vars(g, &mut s);
    explain_actions(g, &mut s);
    explain_flow(g, &mut s);
    explain_scoring(g, &mut s);
    s
}

/// The variants, with the constants each sets.
fn explain_variants(g: &Game, s: &mut String) {
    if !g.variants.is_empty() {
        *s += "\nvariants\n";
        for v in &g.variants {
            let sets: Vec<String> = v
                .sets
                .iter()
                .map(|(c, val)| format!("{} = {}", g.consts[*c].name, g.show_static(*val)))
                .collect();
            *s += &format!(
                "  {:<14} {}{}\n",
                v.name,
                v.description.clone().unwrap_or_default(),
                if sets.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", sets.join(", "))
                }
            );
        }
    }
}

/// The component types, each with its number of components and its fields.
fn explain_components(g: &Game, s: &mut String) {
    *s += "\ncomponents\n";
    for (ti, t) in g.types.enumerate() {
        let n = g.comps.iter().filter(|c| c.ty == ti).count();
        let fields: Vec<String> = t
            .fields
            .iter()
            .map(|f| {
                format!(
                    "{}: {}",
                    f.name,
                    f.range
                        .map_or(type_name(g, f.ty), |(a, b)| format!("{a}..{b}"))
                )
            })
            .collect();
        *s += &format!("  {:<14} {n} ({})\n", t.name, fields.join(", "));
    }
}

/// The boards and their shapes.
fn explain_boards(g: &Game, s: &mut String) {
    if !g.boards.is_empty() {
        *s += "\nboards\n";
        for b in &g.boards {
            let shape = match b.shape {
                BoardShape::Grid {
                    width,
                    height,
                    diagonal,
                } => format!(
                    "grid {width}x{height}{}",
                    if diagonal { ", diagonal" } else { "" }
                ),
                BoardShape::Ring { size } => format!("ring of {size}"),
                BoardShape::Hex {
                    width,
                    height,
                    side,
                } => match side {
                    0 => format!("hex {width}x{height}"),
                    n => format!("hexagon of side {n}"),
                },
                BoardShape::Graph => format!(
                    "graph of {} spaces, {} edges, {} lines",
                    b.len(),
                    b.adj.len() / 2,
                    b.geo.lines.len()
                ),
            };
            *s += &format!("  {:<14} {shape}\n", b.name);
        }
    }
}

/// The zones: their index, how many, of which type, who sees them, how many components
/// each starts with.
fn explain_zones(g: &Game, s: &mut String) {
    *s += "\nzones\n";
    for z in &g.zones {
        let vis = match z.visibility {
            Visibility::Public => "public",
            Visibility::Owner => "seen by its owner",
            Visibility::Hidden => "hidden",
            Visibility::Top => "top card public",
            Visibility::Secret => "secret, even at the end",
        };
        let start = g.comps.iter().filter(|c| z.has(c.zone)).count();
        *s += &format!(
            "  {:<14} {} of {}, {vis}{}\n",
            format!("{}{}", z.name, dims(g, &z.dims)),
            z.count,
            g.types[z.ty].name,
            if start > 0 {
                format!(", starts with {start}")
            } else {
                String::new()
            }
        );
    }
}

/// The variables, with their index and type.
fn explain_vars(g: &Game, s: &mut String) {
    if !g.vars.is_empty() {
        *s += "\nvariables\n";
        for v in &g.vars {
            *s += &format!(
                "  {:<14} {}\n",
                format!("{}{}", v.name, dims(g, &v.dims)),
                v.range
                    .map_or(type_name(g, v.ty), |(a, b)| format!("{a}..{b}"))
            );
        }
    }
}

/// The actions, with their parameters.
fn explain_actions(g: &Game, s: &mut String) {
    *s += "\nactions\n";
    for a in &g.actions {
        let params: Vec<String> = a
            .params
            .iter()
            .map(|p| format!("{}: {}", p.name, type_name(g, p.ty)))
            .collect();
        *s += &format!(
            "  {}({}){}\n",
            a.name,
            params.join(", "),
            if a.guard.is_some() {
                " when its guard holds"
            } else {
                ""
            }
        );
    }
}

/// The setup and the flow, with the choices each offers, and how the game ends.
fn explain_flow(g: &Game, s: &mut String) {
    *s += "\nflow\n";
    let mut procs: Vec<crate::ir::ProcId> = g.setup.into_iter().collect();
    procs.push(g.flow);
    for p in procs {
        let proc = &g.procs[p];
        *s += &format!("  {}:", proc.name);
        let mut any = false;
        for i in &proc.code {
            if let Instr::Choose(c) = i {
                let arms: Vec<String> = g.choices[*c]
                    .arms
                    .iter()
                    .map(|a| match a {
                        Arm::Action(ai) => g.actions[*ai].name.clone(),
                        Arm::Inline { label: Some(l), .. } => l.clone(),
                        Arm::Inline { binds, .. } => binds
                            .iter()
                            .map(|b| b.name.clone())
                            .collect::<Vec<_>>()
                            .join(", "),
                    })
                    .collect();
                *s += &format!(" choose {{{}}};", arms.join(" | "));
                any = true;
            }
        }
        *s += if any { "\n" } else { " no decisions\n" };
    }
    *s += &format!(
        "  ends: {} end condition(s), or when the flow finishes\n",
        g.end_when.len()
    );
}

/// How the game is scored: scores, tie-breakers and ties.
fn explain_scoring(g: &Game, s: &mut String) {
    *s += "\nscoring\n";
    *s += &format!(
        "  {}; {} tie-breaker(s); ties {}\n",
        if g.score.is_some() {
            "a score per player"
        } else {
            "no score (winners come from `win`)"
        },
        g.tiebreaks.len(),
        if g.ties_shared {
            "shared"
        } else {
            "are a draw"
        }
    );
}

/// A component's name and the fields its name does not show (markers, a level, ...).
fn with_state(g: &Game, st: &State, c: crate::ir::CompId, seat: Option<u8>) -> String {
    let comp = &g.comps[c];
    let mut s = crate::engine::show_comp_for(g, st, c, seat);
    for (fi, f) in g.types[comp.ty].fields.iter().enumerate() {
        let in_name = comp
            .name
            .iter()
            .any(|p| matches!(p, crate::ir::NamePart::Field(x) if *x as usize == fi));
        if !in_name {
            let v = st.field(c, fi as u16, g);
            let shown = if crate::engine::field_visible(g, st, c, fi as u16, seat) {
                crate::engine::show_value(g, st, v)
            } else {
                "?".into()
            };
            s += &format!(" {}={shown}", f.name);
        }
    }
    s
}

/// One part of a drawn view: a board (its title, its rows, the column letters under a grid)
/// or the line of one zone or variable. [`changes`] compares views part by part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The board's title; empty for a zone's or a variable's line.
    pub head: Vec<String>,
    /// The board's rows (the top row first), or the one line of a zone or variable.
    pub body: Vec<String>,
    /// The column letters under a grid.
    pub foot: Vec<String>,
}

impl Block {
    fn line(text: String) -> Block {
        Block {
            head: Vec::new(),
            body: vec![text],
            foot: Vec::new(),
        }
    }
}

/// A view drawn legibly: boards as grids, zones as rows, counters by name.
pub fn draw(g: &Game, st: &State, v: &View) -> String {
    let mut s = String::new();
    for b in draw_blocks(g, st, v) {
        for line in b.head.iter().chain(&b.body).chain(&b.foot) {
            s += line;
            s.push('\n');
        }
    }
    s
}

/// The lines of `new` that differ from `old` (two drawings of views of the same seat), each
/// changed row of a board under the board's title and above its column letters; `None` when
/// the two are not drawn alike (then the whole view is worth drawing again), an empty text
/// when nothing changed.
pub fn changes(old: &[Block], new: &[Block]) -> Option<String> {
    if old.len() != new.len() {
        return None;
    }
    let mut s = String::new();
    for (o, n) in old.iter().zip(new) {
        if o.body.len() != n.body.len() {
            return None;
        }
        let changed: Vec<&String> = o
            .body
            .iter()
            .zip(&n.body)
            .filter(|(a, b)| a != b)
            .map(|(_, b)| b)
            .collect();
        if changed.is_empty() {
            continue;
        }
        for line in n.head.iter().chain(changed).chain(&n.foot) {
            s += line;
            s.push('\n');
        }
    }
    Some(s)
}

/// The lines of one board, each space's cell given by `cell`: a grid with row 1 at the bottom
/// (as it is printed on paper and drawn by the page), hexes in rows with the first row at the
/// bottom, each shifted half a cell right of the one below, rings and graphs space by space.
fn board_block(
    g: &Game,
    bi: crate::ir::BoardId,
    title: String,
    cell: &dyn Fn(u32) -> String,
) -> Block {
    let b = &g.boards[bi];
    let mut block = Block {
        head: vec![title],
        body: Vec::new(),
        foot: Vec::new(),
    };
    match b.shape {
        BoardShape::Grid { width, height, .. } => {
            let cells: Vec<String> = (0..width * height).map(cell).collect();
            let w = cells
                .iter()
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(1)
                .max(2);
            for y in (0..height).rev() {
                block.body.push(format!(
                    "  {:>2} {}",
                    y + 1,
                    (0..width)
                        .map(|x| format!("{:<w$}", cells[(y * width + x) as usize]))
                        .collect::<Vec<_>>()
                        .join(" ")
                        .trim_end()
                ));
            }
            block.foot.push(format!(
                "     {}",
                (0..width)
                    .map(|x| format!("{:<w$}", crate::ir::col_name(x)))
                    .collect::<Vec<_>>()
                    .join(" ")
                    .trim_end()
            ));
        }
        BoardShape::Ring { size } => {
            let cells: Vec<String> = (0..size)
                .map(|i| format!("{}: {}", b.space_names[i as usize], cell(i)))
                .collect();
            block.body.push(format!("  {} (ring)", cells.join(" | ")));
        }
        BoardShape::Hex { height, .. } => {
            for r in (1..=height).rev() {
                let row: Vec<String> = (0..b.len())
                    .filter(|&i| b.coord(i).is_some_and(|c| c.1 == r))
                    .map(|i| format!("{}:{}", b.space_names[i as usize], cell(i)))
                    .collect();
                block
                    .body
                    .push(format!("  {}{}", " ".repeat(r as usize), row.join(" ")));
            }
        }
        BoardShape::Graph => {
            let cells: Vec<String> = (0..b.len())
                .map(|i| format!("{}: {}", b.space_names[i as usize], cell(i)))
                .collect();
            block.body.push(format!("  {} (graph)", cells.join(" | ")));
        }
    }
    block
}

/// A variable's value as a board's cell: `.` for none; an enum value the rules' `present`
/// section gives a label or a glyph, as that (the label first: it is written for a terminal).
fn var_cell(g: &Game, st: &State, slot: usize) -> String {
    let x = st.var(slot);
    if let crate::ir::Value::Enum(e, i) = x {
        if let Some(l) = g.present.look(e, i) {
            if let Some(t) = l.label.as_ref().or(l.glyph.as_ref()) {
                return t.clone();
            }
        }
    }
    let val = crate::engine::show_value(g, st, x);
    if val == "none" {
        ".".into()
    } else {
        val
    }
}

/// A view drawn as [`Block`]s: each board with the zones and variables indexed by its spaces
/// in its cells, then a board per seat of each variable indexed by a player and a board, then
/// the other zones and variables a line each. Only what the view's seat may see is drawn: a
/// variable of a board the seat may not see is left out of the cells and named in the title
/// (`grid (mark hidden from you)`), a player's board it may not see is one line, and the
/// secret fields of a zone's components are written after their names
/// (`wheel-1(value=2)`) only where the seat sees them.
pub fn draw_blocks(g: &Game, st: &State, v: &View) -> Vec<Block> {
    let mut out = Vec::new();
    for (bi, b) in g.boards.enumerate() {
        let mut hidden = Vec::new();
        for (vid, var) in g.vars.enumerate() {
            if var.dims == [Dim::Board(bi)]
                && !crate::engine::var_visible(g, st, vid, var.base as usize, v.seat)
            {
                hidden.push(var.name.clone());
            }
        }
        let cell = |sp: u32| -> String {
            let mut parts = vec![];
            for z in &g.zones {
                if z.dims == [Dim::Board(bi)] {
                    let inst = crate::ir::InstId(z.base.0 + sp);
                    if let Some(zv) = v
                        .zones
                        .iter()
                        .find(|x| x.zone == g.zone_instance_name(inst))
                    {
                        if zv.count > 0 && zv.open {
                            parts.extend(
                                st.zone(inst).iter().map(|&c| with_state(g, st, c, v.seat)),
                            );
                        } else if zv.count > 0 {
                            parts.push(if zv.visible.is_empty() {
                                format!("{}?", zv.count)
                            } else {
                                zv.visible.join(",")
                            });
                        }
                    }
                }
            }
            for (vid, var) in g.vars.enumerate() {
                let slot = (var.base + sp) as usize;
                if var.dims == [Dim::Board(bi)]
                    && crate::engine::var_visible(g, st, vid, slot, v.seat)
                {
                    let val = var_cell(g, st, slot);
                    if val != "." {
                        parts.push(val);
                    }
                }
            }
            if parts.is_empty() {
                ".".into()
            } else {
                parts.join(" ")
            }
        };
        let layers = g
            .zones
            .iter()
            .filter(|z| z.dims == [Dim::Board(bi)])
            .count()
            + g.vars.iter().filter(|x| x.dims == [Dim::Board(bi)]).count();
        if !hidden.is_empty() && hidden.len() == layers {
            // Nothing on this board is for the seat's eyes: one line, not a board of blanks.
            out.push(Block::line(format!(
                "{:<22} hidden from you ({})",
                b.name,
                hidden.join(", ")
            )));
            continue;
        }
        let title = if hidden.is_empty() {
            format!("{}:", b.name)
        } else {
            format!("{} ({} hidden from you):", b.name, hidden.join(", "))
        };
        out.push(board_block(g, bi, title, &cell));
    }
    // A variable indexed by a player and a board: one board per seat in play.
    for (vid, var) in g.vars.enumerate() {
        let (Some(Dim::Player), Some(&Dim::Board(bi)), 2) =
            (var.dims.first(), var.dims.get(1), var.dims.len())
        else {
            continue;
        };
        for p in 0..st.players.min(var.sizes[0] as u8) {
            let base = (var.base + p as u32 * var.sizes[1]) as usize;
            let name = format!("{}[{}]", var.name, crate::ir::player_name(p));
            if crate::engine::var_visible(g, st, vid, base, v.seat) {
                let cell = |sp: u32| var_cell(g, st, base + sp as usize);
                out.push(board_block(
                    g,
                    bi,
                    format!("{name} on {}:", g.boards[bi].name),
                    &cell,
                ));
            } else {
                out.push(Block::line(format!("{name:<22} hidden")));
            }
        }
    }
    for z in &v.zones {
        let board_zone = g.zones.iter().any(|d| {
            d.dims.len() == 1
                && matches!(d.dims[0], Dim::Board(_))
                && z.zone.starts_with(&format!("{}[", d.name))
        });
        if board_zone {
            continue;
        }
        let shown = if z.open {
            if z.visible.is_empty() {
                "-".to_string()
            } else {
                with_secrets(g, st, z, v.seat).join(" ")
            }
        } else if z.visible.is_empty() {
            format!("{} hidden", z.count)
        } else {
            format!(
                "{} cards, top {}",
                z.count,
                with_secrets(g, st, z, v.seat).join(" ")
            )
        };
        out.push(Block::line(format!("{:<22} {shown}", z.zone)));
    }
    for (name, val) in &v.vars {
        let drawn = g.vars.iter().any(|x| {
            let on_board = matches!(x.dims[..], [Dim::Board(_)] | [Dim::Player, Dim::Board(_)]);
            on_board && name.starts_with(&format!("{}[", x.name))
        });
        if !drawn {
            out.push(Block::line(format!("{name:<22} {val}")));
        }
    }
    out
}

/// The names of a zone's visible components (as the view gives them), each followed by the
/// secret fields its name does not show that `seat` may see: its own secrets, or those
/// revealed to it. Another seat's secrets are not written, not even as `?`.
fn with_secrets(
    g: &Game,
    st: &State,
    z: &crate::engine::ZoneView,
    seat: Option<u8>,
) -> Vec<String> {
    let Some(inst) = g
        .instances
        .ids()
        .find(|&i| g.zone_instance_name(i) == z.zone)
    else {
        return z.visible.clone();
    };
    let items = st.zone(inst);
    // The view shows every component of an open zone, or the top one.
    if items.len() < z.visible.len() {
        return z.visible.clone(); // drawn from another state than the view's
    }
    let shown = &items[items.len() - z.visible.len()..];
    z.visible
        .iter()
        .zip(shown)
        .map(|(name, &c)| {
            let comp = &g.comps[c];
            if crate::engine::show_comp_for(g, st, c, seat) != *name {
                return name.clone(); // drawn from another state than the view's
            }
            let secrets: Vec<String> = g.types[comp.ty]
                .fields
                .iter()
                .enumerate()
                .filter(|(fi, f)| {
                    f.seen_by.is_some()
                        && !comp.name.iter().any(
                            |p| matches!(p, crate::ir::NamePart::Field(x) if *x as usize == *fi),
                        )
                        && crate::engine::field_visible(g, st, c, *fi as u16, seat)
                })
                .map(|(fi, f)| {
                    format!(
                        "{}={}",
                        f.name,
                        crate::engine::show_value(g, st, st.field(c, fi as u16, g))
                    )
                })
                .collect();
            if secrets.is_empty() {
                name.clone()
            } else {
                format!("{name}({})", secrets.join(", "))
            }
        })
        .collect()
}

/// Scores and winners, two lines.
pub fn outcome(o: &crate::engine::Outcome) -> String {
    let scores: Vec<String> = o
        .scores
        .iter()
        .enumerate()
        .map(|(i, s)| format!("p{} {s}", i + 1))
        .collect();
    let winners = if o.kind == crate::engine::OutcomeKind::Lost {
        "every player lost".to_string()
    } else if o.winners.is_empty() {
        "no winner".to_string()
    } else {
        format!(
            "winner(s): {}",
            o.winners
                .iter()
                .map(|w| format!("p{}", w + 1))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    format!("scores: {}\n{winners}\n", scores.join(", "))
}

#[cfg(test)]
mod tests {
    // Issue 38: `play` prints a value the rules' `present` section labels by its label (its
    // glyph when it has no label), other values as written, and the columns stay aligned.
    #[test]
    fn a_labelled_value_is_printed_by_its_label() {
        let text = "game \"T\"\nplayers 2\nenum Kind { pawn, king, queen }\nboard grid = grid(3, 1)\n\
                    var kind[grid]: Kind\nsetup { kind[a1] = king  kind[b1] = queen  kind[c1] = pawn }\n\
                    action pass() { end draw }\nflow { turn seat(0) { choose { pass } } }\n\
                    present {\n value Kind.king label \"K\"\n value Kind.queen glyph \"♛\"\n}\n";
        let g = crate::check::load("t.rules", text).game.expect("valid");
        let st = g
            .start(&crate::engine::Config::seeded(2, 1))
            .expect("starts");
        let drawn = super::draw(&g, &st, &g.view(&st, Some(0)));
        assert!(
            drawn.contains("   1 K    ♛    pawn\n     a    b    c"),
            "{drawn}"
        );
    }
}
