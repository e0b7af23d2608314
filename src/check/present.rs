//! `present { }`: how the game is drawn, resolved into `ir::Presentation`. Every name is
//! checked as elsewhere; nothing here reaches the engine.

use super::names::Target;
use super::{Checker, Code, Global};
use crate::ir::present::{COLOURS, ZONE_ROLES};
use crate::ir::{BoardShape, Dim, Look};
use crate::syntax::ast::{self, Ident, LookArg, PresentItem};

/// The longest glyph and label, in characters.
const GLYPH_CHARS: usize = 2;
const LABEL_CHARS: usize = 6;

impl Checker {
    /// Resolves every `present` section of the file (several are read as one).
    pub(super) fn check_present(&mut self, file: &ast::File) {
        for d in &file.decls {
            let ast::DeclKind::Present(items) = &d.kind else {
                continue;
            };
            for item in items {
                match item {
                    PresentItem::Value {
                        enum_name,
                        value,
                        looks,
                    } => self.present_value(enum_name, value, looks),
                    PresentItem::Piece(vars) => vars.iter().for_each(|v| self.present_piece(v)),
                    PresentItem::Zone { zone, role } => self.present_zone(zone, role),
                    PresentItem::Shows { ty, looks, fields } => {
                        self.present_shows(ty, looks, fields)
                    }
                    PresentItem::Board { board, style } => self.present_board(board, style),
                }
            }
        }
    }

    /// The global a name declares, noted for editors, or an error naming `kind` (`an enum`).
    fn present_global(&mut self, name: &Ident, kind: &str) -> Option<Global> {
        let Some((g, _)) = self.globals.get(&name.name).copied() else {
            self.unknown_name(&name.name, name.span);
            return None;
        };
        let fits = match kind {
            "an enum" => matches!(g, Global::Enum(_)),
            "a variable" => matches!(g, Global::Var(_)),
            "a zone" => matches!(g, Global::Zone(_)),
            "a component type" => matches!(g, Global::Type(_)),
            _ => matches!(g, Global::Board(_)),
        };
        if !fits {
            let what = g.kind();
            let p = self.error(
                Code::Present,
                name.span,
                format!("`{}` is a {what}, not {kind}", name.name),
                format!("not {kind}"),
            );
            p.help = Some(format!("this line of `present` names {kind}"));
            return None;
        }
        self.note_use(name.span, Target::Global(g));
        Some(g)
    }

    /// An error for something said twice in the presentation.
    fn present_twice(&mut self, span: ast::Span, what: String) {
        let p = self.error(
            Code::Present,
            span,
            format!("{what} is presented twice"),
            "said again here",
        );
        p.help = Some("say each thing once in `present`: join the two lines".into());
    }

    fn present_value(&mut self, enum_name: &Ident, value: &Ident, looks: &[(Ident, LookArg)]) {
        let Some(Global::Enum(e)) = self.present_global(enum_name, "an enum") else {
            return;
        };
        let Some(v) = self.game.enums[e]
            .values
            .iter()
            .position(|x| *x == value.name)
        else {
            let values = self.game.enums[e].values.join(", ");
            let p = self.error(
                Code::UnknownName,
                value.span,
                format!("enum `{}` has no value `{}`", enum_name.name, value.name),
                "unknown value",
            );
            p.help = Some(format!("its values are: {values}"));
            return;
        };
        let v = v as u16;
        self.note_use(value.span, Target::Global(Global::EnumValue(e, v)));
        if self.game.present.look(e, v).is_some() {
            let what = format!("`{}.{}`", enum_name.name, value.name);
            self.present_twice(value.span, what);
            return;
        }
        let mut look = Look::default();
        for (word, arg) in looks {
            self.present_look(&mut look, word, arg);
        }
        self.game.present.looks.push(((e, v), look));
    }

    /// One part of a value's look: `glyph "x"`, `label "K"`, `colour red`.
    fn present_look(&mut self, look: &mut Look, word: &Ident, arg: &LookArg) {
        let twice = match word.name.as_str() {
            "glyph" => look.glyph.is_some(),
            "label" => look.label.is_some(),
            _ => look.colour.is_some(),
        };
        if twice {
            self.present_twice(word.span, format!("the {} of this value", word.name));
            return;
        }
        match (word.name.as_str(), arg) {
            ("colour", LookArg::Name(c)) => match COLOURS.iter().find(|(n, _)| *n == c.name) {
                Some((n, _)) => look.colour = Some(n),
                None => {
                    let names: Vec<&str> = COLOURS.iter().map(|(n, _)| *n).collect();
                    let p = self.error(
                        Code::Present,
                        c.span,
                        format!("`{}` is not a colour the page knows", c.name),
                        "unknown colour",
                    );
                    p.help = Some(format!("the colours are: {}", names.join(", ")));
                }
            },
            (w @ ("glyph" | "label"), LookArg::Text(t, span)) => {
                let most = if w == "glyph" {
                    GLYPH_CHARS
                } else {
                    LABEL_CHARS
                };
                let n = t.chars().count();
                if n == 0 || n > most {
                    let p = self.error(
                        Code::Present,
                        *span,
                        format!("a {w} is 1 to {most} characters, not {n}"),
                        format!("{n} characters"),
                    );
                    p.help = Some(format!("a {w} is drawn inside a space: keep it short"));
                } else if w == "glyph" {
                    look.glyph = Some(t.clone());
                } else {
                    look.label = Some(t.clone());
                }
            }
            (w, arg) => {
                let span = match arg {
                    LookArg::Text(_, s) => *s,
                    LookArg::Name(n) => n.span,
                };
                let (want, example) = if w == "colour" {
                    ("a colour's name", "colour red")
                } else {
                    ("a string", "glyph \"♚\"")
                };
                let p = self.error(
                    Code::Present,
                    span,
                    format!("`{w}` takes {want}"),
                    format!("not {want}"),
                );
                p.help = Some(format!("as in `{example}`"));
            }
        }
    }

    fn present_piece(&mut self, name: &Ident) {
        let Some(Global::Var(v)) = self.present_global(name, "a variable") else {
            return;
        };
        if !matches!(self.game.vars[v].dims[..], [Dim::Board(_)]) {
            let p = self.error(
                Code::Present,
                name.span,
                format!("`{}` is not indexed by a board alone", name.name),
                "not a variable of a board's spaces",
            );
            p.help = Some(
                "a piece is a variable with one value per space: `var kind[field]: Kind`".into(),
            );
            return;
        }
        if self.game.present.pieces.contains(&v) {
            self.present_twice(name.span, format!("`{}`", name.name));
            return;
        }
        self.game.present.pieces.push(v);
    }

    fn present_zone(&mut self, name: &Ident, role: &Ident) {
        let Some(Global::Zone(z)) = self.present_global(name, "a zone") else {
            return;
        };
        let on_board = self.game.zones[z]
            .dims
            .iter()
            .any(|d| matches!(d, Dim::Board(_)));
        if on_board {
            let p = self.error(
                Code::Present,
                name.span,
                format!("zone `{}` lies on a board's spaces", name.name),
                "drawn on its board",
            );
            p.help = Some("roles are for zones off the board: hands, rows, decks, piles".into());
            return;
        }
        let Some(r) = ZONE_ROLES.iter().find(|r| **r == role.name) else {
            let p = self.error(
                Code::Present,
                role.span,
                format!("`{}` is not a zone's role", role.name),
                "unknown role",
            );
            p.help = Some(format!("the roles are: {}", ZONE_ROLES.join(", ")));
            return;
        };
        if self.game.present.role(z).is_some() {
            self.present_twice(role.span, format!("the role of zone `{}`", name.name));
            return;
        }
        self.game.present.zones.push((z, r));
    }

    fn present_shows(&mut self, ty: &Ident, looks: &[(Ident, LookArg)], fields: &[Ident]) {
        let Some(Global::Type(t)) = self.present_global(ty, "a component type") else {
            return;
        };
        if looks.is_empty() && fields.is_empty() {
            let p = self.error(
                Code::Present,
                ty.span,
                format!("this line says nothing of `{}`", ty.name),
                "no look, no field",
            );
            p.help = Some(format!(
                "give it a look or the fields it shows: `component {} glyph \"■\"` or `component {} shows ...`",
                ty.name, ty.name
            ));
            return;
        }
        let p = &self.game.present;
        if p.shows(t).is_some() || p.comp_look(t).is_some() {
            self.present_twice(ty.span, format!("component type `{}`", ty.name));
            return;
        }
        if !looks.is_empty() {
            let mut look = Look::default();
            for (word, arg) in looks {
                self.present_look(&mut look, word, arg);
            }
            self.game.present.comp_looks.push((t, look));
        }
        if fields.is_empty() {
            return;
        }
        let mut shown: Vec<u16> = Vec::new();
        for f in fields {
            let Some(i) = self.game.types[t]
                .fields
                .iter()
                .position(|x| x.name == f.name)
            else {
                let names: Vec<String> = self.game.types[t]
                    .fields
                    .iter()
                    .map(|x| x.name.clone())
                    .collect();
                let p = self.error(
                    Code::UnknownName,
                    f.span,
                    format!("`{}` has no field `{}`", ty.name, f.name),
                    "unknown field",
                );
                p.help = Some(format!("its fields are: {}", names.join(", ")));
                continue;
            };
            self.note_use(f.span, Target::Field(t, i as u16));
            if shown.contains(&(i as u16)) {
                self.present_twice(f.span, format!("field `{}`", f.name));
                continue;
            }
            shown.push(i as u16);
        }
        self.game.present.shows.push((t, shown));
    }

    fn present_board(&mut self, name: &Ident, style: &Ident) {
        let Some(Global::Board(b)) = self.present_global(name, "a board") else {
            return;
        };
        let checkered = match style.name.as_str() {
            "checkered" => true,
            "plain" => false,
            _ => {
                let p = self.error(
                    Code::Present,
                    style.span,
                    format!("`{}` is not a board's style", style.name),
                    "unknown style",
                );
                p.help = Some("a board is `checkered` or `plain`".into());
                return;
            }
        };
        if checkered && !matches!(self.game.boards[b].shape, BoardShape::Grid { .. }) {
            let p = self.error(
                Code::Present,
                style.span,
                format!("board `{}` is not a grid", name.name),
                "only a grid's squares alternate",
            );
            p.help = Some("`checkered` is for boards made by `grid(w, h)`".into());
            return;
        }
        if self.game.present.checkered(b).is_some() {
            self.present_twice(style.span, format!("the style of board `{}`", name.name));
            return;
        }
        self.game.present.boards.push((b, checkered));
    }
}
