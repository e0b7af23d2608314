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
    if !g.variants.is_empty() {
        s += "\nvariants\n";
        for v in &g.variants {
            let sets: Vec<String> = v
                .sets
                .iter()
                .map(|(c, val)| format!("{} = {}", g.consts[*c].name, g.show_static(*val)))
                .collect();
            s += &format!(
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
    s += "\ncomponents\n";
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
        s += &format!("  {:<14} {n} ({})\n", t.name, fields.join(", "));
    }
    if !g.boards.is_empty() {
        s += "\nboards\n";
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
            s += &format!("  {:<14} {shape}\n", b.name);
        }
    }
    s += "\nzones\n";
    for z in &g.zones {
        let vis = match z.visibility {
            Visibility::Public => "public",
            Visibility::Owner => "seen by its owner",
            Visibility::Hidden => "hidden",
            Visibility::Top => "top card public",
            Visibility::Secret => "secret, even at the end",
        };
        let start = g.comps.iter().filter(|c| z.has(c.zone)).count();
        s += &format!(
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
    if !g.vars.is_empty() {
        s += "\nvariables\n";
        for v in &g.vars {
            s += &format!(
                "  {:<14} {}\n",
                format!("{}{}", v.name, dims(g, &v.dims)),
                v.range
                    .map_or(type_name(g, v.ty), |(a, b)| format!("{a}..{b}"))
            );
        }
    }
    s += "\nactions\n";
    for a in &g.actions {
        let params: Vec<String> = a
            .params
            .iter()
            .map(|p| format!("{}: {}", p.name, type_name(g, p.ty)))
            .collect();
        s += &format!(
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
    s += "\nflow\n";
    let mut procs: Vec<crate::ir::ProcId> = g.setup.into_iter().collect();
    procs.push(g.flow);
    for p in procs {
        let proc = &g.procs[p];
        s += &format!("  {}:", proc.name);
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
                s += &format!(" choose {{{}}};", arms.join(" | "));
                any = true;
            }
        }
        s += if any { "\n" } else { " no decisions\n" };
    }
    s += &format!(
        "  ends: {} end condition(s), or when the flow finishes\n",
        g.end_when.len()
    );
    s += "\nscoring\n";
    s += &format!(
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
    s
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

/// A view drawn legibly: boards as grids, zones as rows, counters by name.
pub fn draw(g: &Game, st: &State, v: &View) -> String {
    let mut s = String::new();
    for (bi, b) in g.boards.enumerate() {
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
            for var in &g.vars {
                if var.dims == [Dim::Board(bi)] {
                    let val = crate::engine::show_value(g, st, st.var((var.base + sp) as usize));
                    if val != "none" {
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
        s += &format!("{}:\n", b.name);
        match b.shape {
            BoardShape::Grid { width, height, .. } => {
                let cells: Vec<String> = (0..width * height).map(cell).collect();
                let w = cells.iter().map(|c| c.len()).max().unwrap_or(1).max(2);
                s += &format!(
                    "     {}\n",
                    (0..width)
                        .map(|x| format!("{:<w$}", crate::ir::col_name(x)))
                        .collect::<Vec<_>>()
                        .join(" ")
                );
                for y in 0..height {
                    s += &format!(
                        "  {:>2} {}\n",
                        y + 1,
                        (0..width)
                            .map(|x| format!("{:<w$}", cells[(y * width + x) as usize]))
                            .collect::<Vec<_>>()
                            .join(" ")
                    );
                }
            }
            BoardShape::Ring { size } => {
                let cells: Vec<String> = (0..size)
                    .map(|i| format!("{}: {}", b.space_names[i as usize], cell(i)))
                    .collect();
                s += &format!("  {} (ring)\n", cells.join(" | "));
            }
            BoardShape::Hex { height, .. } => {
                // Rows from the top, each shifted half a cell right of the one below.
                for r in (1..=height).rev() {
                    let row: Vec<String> = (0..b.len())
                        .filter(|&i| b.coord(i).is_some_and(|c| c.1 == r))
                        .map(|i| format!("{}:{}", b.space_names[i as usize], cell(i)))
                        .collect();
                    s += &format!("  {}{}\n", " ".repeat(r as usize), row.join(" "));
                }
            }
            BoardShape::Graph => {
                let cells: Vec<String> = (0..b.len())
                    .map(|i| format!("{}: {}", b.space_names[i as usize], cell(i)))
                    .collect();
                s += &format!("  {} (graph)\n", cells.join(" | "));
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
                z.visible.join(" ")
            }
        } else if z.visible.is_empty() {
            format!("{} hidden", z.count)
        } else {
            format!("{} cards, top {}", z.count, z.visible.join(" "))
        };
        s += &format!("{:<22} {shown}\n", z.zone);
    }
    for (name, val) in &v.vars {
        if g.vars.iter().any(|x| {
            x.dims.len() == 1
                && matches!(x.dims[0], Dim::Board(_))
                && name.starts_with(&format!("{}[", x.name))
        }) {
            continue;
        }
        s += &format!("{name:<22} {val}\n");
    }
    s
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
