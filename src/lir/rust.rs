//! Rust source for functions of the low-level IR (issue 36, step 3: the second back end
//! measured against Cranelift's). Each function becomes a plain Rust function over the
//! runtime of [`super::rt`]: registers are `i64` locals, blocks the arms of a `match` in a
//! loop, block arguments assignments on the edges; every read of the state goes through
//! [`super::rt::Rt`], whose indexes are checked, so the source has no `unsafe`.
//!
//! [`emit`] writes one module: `pub static FUNCS: &[Generated]`, the functions in the order
//! given. Built with the crate (`examples/lir_rust.rs`), it runs as the interpreter would.

use super::*;
use crate::ir::Game;
use std::fmt::Write;

/// The type of an emitted function.
pub type Generated = fn(&mut rt::Rt, &[i64]) -> Result<i64, Fail>;

/// The source of a module holding `funcs`, in order, in `FUNCS`.
pub fn emit(g: &Game, funcs: &[&Func]) -> String {
    let mut s = String::from(
        "// Written by rulebook::lir::rust::emit; do not edit.\n\
         #[allow(unused_imports)]\n\
         use rulebook::ir::{BoardId, EnumId, TypeId};\n\
         use rulebook::lir::rt::{self, Rt};\n\
         use rulebook::lir::{Area, Arith, Cmp, Fail, Held, Place, Ty, Unary};\n\n",
    );
    for (i, f) in funcs.iter().enumerate() {
        function(&mut s, g, i, f);
    }
    s.push_str("pub static FUNCS: &[rulebook::lir::rust::Generated] = &[");
    for i in 0..funcs.len() {
        let _ = write!(s, "f{i}, ");
    }
    s.push_str("];\n");
    s
}

fn function(s: &mut String, g: &Game, i: usize, f: &Func) {
    let _ = writeln!(s, "// {}", f.name.replace('\n', " "));
    let _ = writeln!(
        s,
        "#[allow(unused_mut, unused_assignments, unused_variables, clippy::all)]\n\
         pub fn f{i}(c: &mut Rt, a: &[i64]) -> Result<i64, Fail> {{"
    );
    let _ = writeln!(s, "    let mut r = [0i64; {}];", f.regs.len());
    for (k, p) in f.params.iter().enumerate() {
        let _ = writeln!(s, "    r[{}] = a[{k}];", p.0);
    }
    if f.scratch > 0 {
        let _ = writeln!(s, "    c.take_scratch({});", f.scratch);
    }
    s.push_str("    let mut at = 0u32;\n    loop {\n        match at {\n");
    for (k, b) in f.blocks.iter().enumerate() {
        let _ = writeln!(s, "            {k} => {{");
        let _ = writeln!(s, "                c.spend({})?;", b.insts.len() + 1);
        for inst in &b.insts {
            let _ = writeln!(s, "                {}", inst_src(g, f, inst));
        }
        for line in term_src(f, &b.term) {
            let _ = writeln!(s, "                {line}");
        }
        s.push_str("            }\n");
    }
    s.push_str("            _ => unreachable!(),\n        }\n    }\n}\n\n");
}

fn area_src(a: Area) -> String {
    format!("Area {{ at: {}, words: {} }}", a.at, a.words)
}

fn r(x: Reg) -> String {
    format!("r[{}]", x.0)
}

fn inst_src(g: &Game, f: &Func, inst: &Inst) -> String {
    let d = r(inst.dst());
    let ty = |x: Reg| format!("Ty::{:?}", f.ty(x));
    let rhs = match *inst {
        Inst::Const { value, .. } => format!("{value}i64"),
        Inst::Read { dst, what } => match what {
            Read::Me => "c.me".into(),
            Read::Current => "c.current".into(),
            Read::PlayerCount => "c.players".into(),
            Read::Const(k) => format!("c.constant({}, {})?", k.0, ty(dst)),
        },
        Inst::Var { dst, var, index } => {
            let def = &g.vars[var];
            let k = match index {
                Some(i) => format!("rt::below({}, {})?", r(i), def.count),
                None => format!("rt::below(0, {})?", def.count),
            };
            format!("c.var({} + {k}, {})?", def.base, ty(dst))
        }
        Inst::Index { acc, x, size, .. } => {
            let none = f.ty(x).none();
            let pos = if (0..size as i64).contains(&none) {
                format!(
                    "{{ if {} == {none} {{ return Err(Fail::Index); }} rt::below({}, {size})? }}",
                    r(x),
                    r(x)
                )
            } else {
                format!("rt::below({}, {size})?", r(x))
            };
            match acc {
                Some(a) => format!("{} * {size} + {pos}", r(a)),
                None => pos,
            }
        }
        Inst::Field { dst, comp, field } => {
            format!("c.field({}, {field}, {})?", r(comp), ty(dst))
        }
        Inst::Arith { op, a, b, .. } => format!("rt::arith(Arith::{op:?}, {}, {})?", r(a), r(b)),
        Inst::Neg { a, .. } => format!("rt::arith(Arith::Sub, 0, {})?", r(a)),
        Inst::Cmp { op, a, b, .. } => match op {
            Cmp::Eq | Cmp::Ne => {
                let same = if rt::raw_equal(f.ty(a), f.ty(b)) {
                    format!("{} == {}", r(a), r(b))
                } else {
                    format!(
                        "({} == {} && {} == {})",
                        r(a),
                        f.ty(a).none(),
                        r(b),
                        f.ty(b).none()
                    )
                };
                let not = if op == Cmp::Ne { "!" } else { "" };
                format!("({not}({same})) as i64")
            }
            _ => format!("rt::order(Cmp::{op:?}, {}, {})?", r(a), r(b)),
        },
        Inst::Not { a, .. } => format!("rt::not({})?", r(a)),
        Inst::Unary { op, a, .. } => format!("c.unary(Unary::{op:?}, {}, {})?", ty(a), r(a)),
        Inst::Cast { a, .. } => r(a),
        Inst::Closed { space, .. } => match f.ty(space) {
            Ty::Space(b) => format!("c.closed({}, {})", b.0, r(space)),
            _ => "return Err(Fail::Type)".into(),
        },
        Inst::ZoneAt { zone, k, .. } => format!("c.zone_at({}, {})?", r(zone), r(k)),
        Inst::Twin { comp, .. } => format!("c.twin({})", r(comp)),
        Inst::Class { comp, .. } => format!("c.class({})?", r(comp)),
        Inst::Near { space, k, .. } => match f.ty(space) {
            Ty::Space(b) => format!("c.near({}, {}, {})", b.0, r(space), r(k)),
            _ => "return Err(Fail::Type)".into(),
        },
        Inst::Seek {
            var, value, from, ..
        } => format!("c.seek({}, {}, {})", var.0, r(value), r(from)),
        Inst::Step { space, dir, .. } => match f.ty(space) {
            Ty::Space(b) => format!("c.step({}, {}, {})", b.0, r(space), r(dir)),
            _ => "return Err(Fail::Type)".into(),
        },
        Inst::Zone { zone, index, .. } => {
            let def = &g.zones[zone];
            let k = index.map_or("0".to_string(), r);
            format!("{} + rt::below({k}, {})?", def.base.0, def.count)
        }
        Inst::Held { what, zone, .. } => format!("c.held(Held::{what:?}, {})?", r(zone)),
        Inst::Place { what, comp, .. } => format!("c.place(Place::{what:?}, {})", r(comp)),
        Inst::Out { a, .. } => format!("c.out({}, {})", ty(a), r(a)),
        Inst::Clear { area, .. } => format!("c.clear({})", area_src(area)),
        Inst::Mark { area, x, .. } => format!("c.mark({}, {}, true)?", area_src(area), r(x)),
        Inst::Marked { area, x, .. } => format!("c.mark({}, {}, false)?", area_src(area), r(x)),
        Inst::NextMarked { area, from, .. } => {
            format!("c.next_marked({}, {})", area_src(area), r(from))
        }
        Inst::Push { area, x, .. } => format!("c.push({}, {})?", area_src(area), r(x)),
        Inst::Pop { area, .. } => format!("c.pop({})", area_src(area)),
        Inst::Store { area, x, .. } => format!("c.store({}, {})", area_src(area), r(x)),
        Inst::Load { area, .. } => format!("c.load({})", area_src(area)),
        Inst::SetVar { var, index, a, .. } => format!(
            "c.set_var({}, {}, {})?",
            var.0,
            index.map_or("0".to_string(), r),
            r(a)
        ),
    };
    format!("{d} = {rhs};")
}

/// Assignments of a target's arguments (all read first), then the jump.
fn goto(f: &Func, t: &Target) -> String {
    let params = &f.blocks[t.block.0 as usize].params;
    if params.is_empty() {
        return format!("at = {};", t.block.0);
    }
    let reads: Vec<String> = t.args.iter().map(|a| r(*a)).collect();
    let writes: Vec<String> = params.iter().map(|p| r(*p)).collect();
    format!(
        "{{ let t = ({},); {} }} at = {};",
        reads.join(", "),
        writes
            .iter()
            .enumerate()
            .map(|(k, w)| format!("{w} = t.{k};"))
            .collect::<Vec<_>>()
            .join(" "),
        t.block.0
    )
}

fn term_src(f: &Func, t: &Term) -> Vec<String> {
    match t {
        Term::Jump(t) => vec![goto(f, t)],
        Term::Branch { cond, yes, no } => vec![
            format!("match {} {{", r(*cond)),
            format!("    1 => {{ {} }}", goto(f, yes)),
            format!("    0 => {{ {} }}", goto(f, no)),
            "    _ => return Err(Fail::NoneValue),".into(),
            "}".into(),
        ],
        Term::Return(x) => vec![format!("return Ok({});", r(*x))],
        Term::Fail(e) => vec![format!("return Err(Fail::{e:?});")],
    }
}
