//! The verifier: every pass's output is checked by it in tests (as regalloc2 checks its
//! own), so a pass cannot hand the interpreter a malformed function.

use super::*;
use crate::ir::Game;

/// Checks a function against the rules of the form: registers defined once and used only
/// where their definition dominates the use (a parameter of the function; a parameter or an
/// earlier instruction of the same block; or a block every path from the entry to the use
/// passes through), types as each instruction needs them, targets that exist with arguments matching
/// their parameters, a result of the declared type. The first fault, in words.
pub fn verify(f: &Func, g: &Game) -> Result<(), String> {
    let n = f.regs.len();
    let mut defined = vec![false; n];
    // Where each register is defined: its block (`usize::MAX`: a parameter of the function).
    let mut home = vec![usize::MAX; n];
    let mut define = |r: Reg, what: &str| -> Result<(), String> {
        match defined.get_mut(r.0 as usize) {
            None => Err(format!("{what}: r{} has no type", r.0)),
            Some(d) if *d => Err(format!("{what}: r{} is defined twice", r.0)),
            Some(d) => {
                *d = true;
                Ok(())
            }
        }
    };
    for &p in &f.params {
        define(p, "parameter")?;
    }
    if f.blocks.is_empty() {
        return Err("no blocks".into());
    }
    if !f.blocks[0].params.is_empty() {
        return Err("the entry block has parameters".into());
    }
    for (i, b) in f.blocks.iter().enumerate() {
        for &p in &b.params {
            define(p, &format!("b{i}"))?;
            home[p.0 as usize] = i;
        }
        for inst in &b.insts {
            define(inst.dst(), &format!("b{i}"))?;
            home[inst.dst().0 as usize] = i;
        }
        for t in b.term.targets() {
            if t.0 as usize >= f.blocks.len() {
                return Err(format!("b{i}: no block b{}", t.0));
            }
        }
    }
    let dom = dominators(f);
    for (i, b) in f.blocks.iter().enumerate() {
        // Registers of the function's parameters and of the blocks that dominate this one.
        let mut scope = vec![false; n];
        for (r, &h) in home.iter().enumerate() {
            if defined[r] && (h == usize::MAX || (h != i && dom[i][h])) {
                scope[r] = true;
            }
        }
        for &p in &b.params {
            scope[p.0 as usize] = true;
        }
        for inst in &b.insts {
            let mut bad = None;
            inst.uses(&mut |r| {
                if !scope.get(r.0 as usize).copied().unwrap_or(false) {
                    bad = Some(r);
                }
            });
            if let Some(r) = bad {
                return Err(format!(
                    "b{i}: {inst:?} reads r{}, not defined before it here",
                    r.0
                ));
            }
            check_types(f, g, inst).map_err(|e| format!("b{i}: {inst:?}: {e}"))?;
            scope[inst.dst().0 as usize] = true;
        }
        let mut bad = None;
        b.term.uses(&mut |r| {
            if !scope.get(r.0 as usize).copied().unwrap_or(false) {
                bad = Some(r);
            }
        });
        if let Some(r) = bad {
            return Err(format!("b{i}: the end reads r{}, not defined here", r.0));
        }
        let target = |t: &Target| -> Result<(), String> {
            let Some(to) = f.blocks.get(t.block.0 as usize) else {
                return Err(format!("b{i}: no block b{}", t.block.0));
            };
            if to.params.len() != t.args.len() {
                return Err(format!(
                    "b{i}: b{} takes {} arguments, given {}",
                    t.block.0,
                    to.params.len(),
                    t.args.len()
                ));
            }
            for (a, p) in t.args.iter().zip(&to.params) {
                if f.ty(*a) != f.ty(*p) {
                    return Err(format!(
                        "b{i}: argument r{} to b{} has another type",
                        a.0, t.block.0
                    ));
                }
            }
            Ok(())
        };
        match &b.term {
            Term::Jump(t) => target(t)?,
            Term::Branch { cond, yes, no } => {
                if f.ty(*cond) != Ty::Bool {
                    return Err(format!("b{i}: a branch on r{}, not a truth value", cond.0));
                }
                target(yes)?;
                target(no)?;
            }
            Term::Return(r) => {
                if f.ty(*r) != f.ret {
                    return Err(format!("b{i}: returns r{} of another type", r.0));
                }
            }
            Term::Fail(_) => {}
        }
    }
    Ok(())
}

/// `dom[b][a]`: block `a` dominates block `b` (every path from the entry to `b` passes
/// through `a`). Blocks no path reaches are dominated by every block.
fn dominators(f: &Func) -> Vec<Vec<bool>> {
    let n = f.blocks.len();
    let mut preds = vec![vec![]; n];
    for (i, b) in f.blocks.iter().enumerate() {
        for t in b.term.targets() {
            preds[t.0 as usize].push(i);
        }
    }
    let mut dom = vec![vec![true; n]; n];
    dom[0] = vec![false; n];
    dom[0][0] = true;
    loop {
        let mut changed = false;
        for b in 1..n {
            let mut d = vec![true; n];
            for &p in &preds[b] {
                for (x, y) in d.iter_mut().zip(&dom[p]) {
                    *x &= *y;
                }
            }
            d[b] = true;
            if d != dom[b] {
                dom[b] = d;
                changed = true;
            }
        }
        if !changed {
            return dom;
        }
    }
}

/// The types an instruction's registers must have: values computed from values here, reads
/// of the state and the game in [`check_read_types`].
fn check_types(f: &Func, g: &Game, inst: &Inst) -> Result<(), String> {
    let t = |r: Reg| f.ty(r);
    let want = |ok: bool, what: &str| if ok { Ok(()) } else { Err(what.to_string()) };
    match *inst {
        Inst::Const { dst, value } => want(
            match t(dst) {
                Ty::Int => true,
                Ty::Bool => (0..=2).contains(&value),
                _ => (0..=ID_NONE).contains(&value),
            },
            "a constant out of its type",
        ),
        Inst::Read { dst, what } => want(
            match what {
                Read::Me | Read::Current => t(dst) == Ty::Player,
                Read::PlayerCount => t(dst) == Ty::Int,
                Read::Const(c) => (c.0 as usize) < g.consts.len(),
            },
            "a read of another type",
        ),
        Inst::Index { dst, acc, .. } => want(
            t(dst) == Ty::Int && acc.is_none_or(|a| t(a) == Ty::Int),
            "an index that is not a number",
        ),
        Inst::Arith { dst, a, b, .. } => want(
            t(dst) == Ty::Int && t(a) == Ty::Int && t(b) == Ty::Int,
            "arithmetic on something that is not a number",
        ),
        Inst::Neg { dst, a } => want(t(dst) == Ty::Int && t(a) == Ty::Int, "`-` of a non-number"),
        Inst::Cmp { dst, op, a, b } => want(
            t(dst) == Ty::Bool
                && match op {
                    Cmp::Eq | Cmp::Ne => true,
                    _ => t(a) == Ty::Int && t(b) == Ty::Int,
                },
            "an order comparison of something that is not a number",
        ),
        Inst::Not { dst, a } => want(
            t(dst) == Ty::Bool && t(a) == Ty::Bool,
            "`not` of a non-truth",
        ),
        Inst::Unary { dst, op, a } => want(
            match op {
                Unary::Abs => t(a) == Ty::Int && t(dst) == Ty::Int,
                Unary::Next | Unary::Prev => t(a) == Ty::Player && t(dst) == Ty::Player,
                Unary::Seat => t(a) == Ty::Int && t(dst) == Ty::Player,
                Unary::Ord => matches!(t(a), Ty::Enum(_) | Ty::Player) && t(dst) == Ty::Int,
                Unary::Col | Unary::Row => matches!(t(a), Ty::Space(_)) && t(dst) == Ty::Int,
                Unary::Opposite => matches!(t(a), Ty::Enum(_)) && t(dst) == t(a),
            },
            "a built-in function on operands of other types",
        ),
        Inst::Step { dst, space, dir } => want(
            matches!(t(space), Ty::Space(_)) && t(dst) == t(space) && matches!(t(dir), Ty::Enum(_)),
            "a step that is not from a space in a direction",
        ),
        Inst::Cast { .. } => Ok(()),
        Inst::Out { dst, .. } => want(t(dst) == Ty::Int, "an output's register not a number"),
        Inst::Near { dst, space, k } => want(
            matches!(t(space), Ty::Space(_)) && t(dst) == t(space) && t(k) == Ty::Int,
            "a neighbour that is not of a space by a number",
        ),
        Inst::Class { dst, comp } => want(
            matches!((t(dst), t(comp)), (Ty::Comp(a), Ty::Comp(b)) if a == b),
            "the class of something that is not a component",
        ),
        Inst::Twin { dst, comp } => want(
            matches!(t(comp), Ty::Comp(_)) && t(dst) == Ty::Bool,
            "a twin of something that is not a component",
        ),
        Inst::Closed { dst, space } => want(
            t(dst) == Ty::Bool && matches!(t(space), Ty::Space(_)),
            "closedness of something that is not a space",
        ),
        Inst::Clear { dst, area } => {
            want(t(dst) == Ty::Int, "a clearing's register not a number")?;
            check_area(f, area, 1)
        }
        Inst::Mark { dst, area, x } | Inst::Marked { dst, area, x } => {
            want(
                t(dst) == Ty::Bool && is_id(t(x)),
                "a mark of something that is not an id",
            )?;
            check_area(f, area, 1)
        }
        Inst::NextMarked { dst, area, from } => {
            want(
                t(dst) == Ty::Int && t(from) == Ty::Int,
                "a search of a set from something that is not a number",
            )?;
            check_area(f, area, 1)
        }
        Inst::Push { dst, area, x } => {
            want(
                t(dst) == Ty::Int && is_id(t(x)),
                "a push of something that is not an id",
            )?;
            check_area(f, area, 1)
        }
        Inst::Store { dst, area, .. } => {
            want(t(dst) == Ty::Int, "a store's register not a number")?;
            check_area(f, area, 1)
        }
        Inst::Load { area, .. } => check_area(f, area, 1),
        Inst::SetVar { dst, var, index, a } => {
            let Some(def) = g.vars.get(var) else {
                return Err("no such variable".into());
            };
            want(
                t(dst) == Ty::Int && Ty::of(def.ty) == Some(t(a)),
                "a write of another type",
            )?;
            want(
                index.is_some() != def.sizes.is_empty() && index.is_none_or(|i| t(i) == Ty::Int),
                "an index that does not fit the variable",
            )
        }
        Inst::Pop { dst, area } => {
            want(is_id(t(dst)), "a pop into something that is not an id")?;
            check_area(f, area, 1)
        }
        Inst::Var { .. }
        | Inst::Field { .. }
        | Inst::Zone { .. }
        | Inst::Held { .. }
        | Inst::Seek { .. }
        | Inst::ZoneAt { .. }
        | Inst::Place { .. } => check_read_types(f, g, inst),
    }
}

/// Whether a register type holds an id (a seat, an enum value, a component, a space, a
/// zone instance).
fn is_id(t: Ty) -> bool {
    !matches!(t, Ty::Int | Ty::Bool)
}

/// An area of at least `min` words inside the function's scratch words, which are at most
/// [`MAX_SCRATCH`].
fn check_area(f: &Func, a: Area, min: u32) -> Result<(), String> {
    if a.words < min || a.at.checked_add(a.words).is_none_or(|e| e > f.scratch) {
        return Err(format!("an area outside the scratch words ({a:?})"));
    }
    if f.scratch > MAX_SCRATCH {
        return Err("more scratch words than a function may use".into());
    }
    Ok(())
}

/// The types of an instruction that reads the state or the game's tables: a variable, a
/// field, a zone instance, what it holds, where a component is.
fn check_read_types(f: &Func, g: &Game, inst: &Inst) -> Result<(), String> {
    let t = |r: Reg| f.ty(r);
    let want = |ok: bool, what: &str| if ok { Ok(()) } else { Err(what.to_string()) };
    match *inst {
        Inst::Var { dst, var, index } => {
            let Some(def) = g.vars.get(var) else {
                return Err("no such variable".into());
            };
            want(Ty::of(def.ty) == Some(t(dst)), "a variable of another type")?;
            want(
                index.is_some() != def.sizes.is_empty() && index.is_none_or(|i| t(i) == Ty::Int),
                "an index that does not fit the variable",
            )
        }
        Inst::Field { dst, comp, field } => {
            let Ty::Comp(ty) = t(comp) else {
                return Err("a field of something that is not a component".into());
            };
            let Some(fd) = g.types.get(ty).and_then(|d| d.fields.get(field as usize)) else {
                return Err("no such field".into());
            };
            want(Ty::of(fd.ty) == Some(t(dst)), "a field of another type")
        }
        Inst::Zone { dst, zone, index } => {
            let Some(def) = g.zones.get(zone) else {
                return Err("no such zone".into());
            };
            want(
                t(dst) == Ty::Zone(def.ty)
                    && index.is_some() != def.sizes.is_empty()
                    && index.is_none_or(|i| t(i) == Ty::Int),
                "a zone instance that does not fit the zone",
            )
        }
        Inst::Held { dst, what, zone } => {
            let Ty::Zone(ct) = t(zone) else {
                return Err("contents of something that is not a zone".into());
            };
            want(
                t(dst)
                    == match what {
                        Held::Count => Ty::Int,
                        Held::Empty => Ty::Bool,
                        Held::Top | Held::Bottom => Ty::Comp(ct),
                    },
                "contents of another type",
            )
        }
        Inst::Seek {
            dst,
            var,
            value,
            from,
        } => {
            let def = g.vars.get(var).ok_or("a variable that does not exist")?;
            want(
                def.dims.len() == 1
                    && Ty::of(def.ty) == Some(t(value))
                    && t(dst) == Ty::Int
                    && t(from) == Ty::Int,
                "a seek in a variable of another type or not of one dimension",
            )
        }
        Inst::ZoneAt { dst, zone, k } => {
            let Ty::Zone(ct) = t(zone) else {
                return Err("a component of something that is not a zone".into());
            };
            want(
                t(dst) == Ty::Comp(ct) && t(k) == Ty::Int,
                "a zone's component of another type",
            )
        }
        Inst::Place { dst, what, comp } => {
            let Ty::Comp(ct) = t(comp) else {
                return Err("the place of something that is not a component".into());
            };
            want(
                match what {
                    Place::Zone => t(dst) == Ty::Zone(ct),
                    Place::Owner => t(dst) == Ty::Player,
                    Place::Space => matches!(t(dst), Ty::Space(_)),
                },
                "a place of another type",
            )
        }
        // The others are checked by `check_types`, which sends only reads here.
        _ => Ok(()),
    }
}
