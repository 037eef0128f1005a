//! The PTX printer and the module-level checks (version inference, target support).

use super::dtype::RegClass;
use super::ir::{CallStmt, Callee, Opnd, RegRef, Stmt};
use super::isa;
use super::kernel::{BodyKind, Directive, Kernel};
use super::module::{Item, Module, DYN_SMEM};
use super::names::sym_name;
use super::{Error, Version};
use std::fmt::Write;

/// Appends `s`. Short strings (chains, register prefixes, digits, separators: most of the
/// text) are copied inline, as one or two overlapping words; `push_str` calls `memcpy`,
/// whose call overhead was the printer's largest cost in the builder bench's profile.
#[inline(always)]
fn put(out: &mut String, s: &str) {
    let (src, n) = (s.as_ptr(), s.len());
    if n > 32 {
        out.push_str(s);
        return;
    }
    out.reserve(32);
    // SAFETY: `reserve` left room for 32 bytes past the length, and `n <= 32`. The reads
    // stay inside `s` (two words of `w` bytes cover `w <= n <= 2w` bytes, overlapping), the
    // writes inside the spare capacity, and the bytes written are `s`'s, which is UTF-8.
    unsafe {
        let v = out.as_mut_vec();
        let dst = v.as_mut_ptr().add(v.len());
        if n >= 16 {
            (dst as *mut u128).write_unaligned((src as *const u128).read_unaligned());
            (dst.add(n - 16) as *mut u128).write_unaligned((src.add(n - 16) as *const u128).read_unaligned());
        } else if n >= 8 {
            (dst as *mut u64).write_unaligned((src as *const u64).read_unaligned());
            (dst.add(n - 8) as *mut u64).write_unaligned((src.add(n - 8) as *const u64).read_unaligned());
        } else if n >= 4 {
            (dst as *mut u32).write_unaligned((src as *const u32).read_unaligned());
            (dst.add(n - 4) as *mut u32).write_unaligned((src.add(n - 4) as *const u32).read_unaligned());
        } else if n > 0 {
            *dst = *src;
            *dst.add(n / 2) = *src.add(n / 2);
            *dst.add(n - 1) = *src.add(n - 1);
        }
        v.set_len(v.len() + n);
    }
}

/// Appends a register's name: its prefix (`%r`, `%pa_r`, `%rv_rd`, ...) and index.
fn reg(out: &mut String, r: RegRef) {
    if r.space() == super::ir::RegSpace::Named {
        return put(out, sym_name(r.idx()));
    }
    let (space, class) = r.prefix();
    let (space, class) = (space.as_bytes(), class.as_bytes());
    let v = r.idx() as u64;
    out.reserve(32);
    // SAFETY: `reserve` left 32 bytes past the length; the prefix takes at most 6 and the
    // index (below 2^27) at most 9. Every byte written is ASCII.
    unsafe {
        let buf = out.as_mut_vec();
        let mut dst = buf.as_mut_ptr().add(buf.len());
        for part in [space, class] {
            std::ptr::copy_nonoverlapping(part.as_ptr(), dst, part.len());
            dst = dst.add(part.len());
        }
        let n = space.len() + class.len() + digits(dst, v);
        buf.set_len(buf.len() + n);
    }
}

/// Appends the decimal digits of `v`.
fn num(out: &mut String, v: u64) {
    out.reserve(20);
    // SAFETY: `reserve` left room for the at most 20 digits past the length; every byte
    // written is an ASCII digit, so the string stays UTF-8.
    unsafe {
        let buf = out.as_mut_vec();
        let n = digits(buf.as_mut_ptr().add(buf.len()), v);
        buf.set_len(buf.len() + n);
    }
}

/// Writes the decimal digits of `v` at `dst`, from the last digit back, and returns how
/// many. (Building them in a stack buffer and copying that out made the copy's wide load
/// wait on the digits' narrow stores: a third of the printer's time.)
///
/// # Safety
/// `dst` must be valid for writing 20 bytes.
#[inline(always)]
unsafe fn digits(dst: *mut u8, v: u64) -> usize {
    if v < 10 {
        *dst = b'0' + v as u8;
        return 1;
    }
    let n = v.ilog10() as usize + 1;
    let (mut v, mut i) = (v, n);
    while v >= 100 {
        let d = (v % 100) as usize * 2;
        v /= 100;
        i -= 2;
        std::ptr::copy_nonoverlapping(PAIRS.as_ptr().add(d), dst.add(i), 2);
    }
    if v >= 10 {
        std::ptr::copy_nonoverlapping(PAIRS.as_ptr().add(v as usize * 2), dst, 2);
    } else {
        *dst = b'0' + v as u8;
    }
    n
}

const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

fn opnd(out: &mut String, k: &Kernel, o: &Opnd) {
    match o {
        Opnd::Reg(r) => reg(out, *r),
        Opnd::NotPred(r) => {
            out.push('!');
            reg(out, *r)
        }
        Opnd::Int(v) => {
            let v = v.get() as i64;
            if v < 0 {
                out.push('-');
            }
            num(out, v.unsigned_abs())
        }
        Opnd::UInt(v) => num(out, v.get()),
        Opnd::F32(b) => {
            let _ = write!(out, "0f{b:08X}");
        }
        Opnd::F64(b) => {
            let _ = write!(out, "0d{:016X}", b.get());
        }
        Opnd::Addr(r, off) => {
            out.push('[');
            reg(out, *r);
            offset(out, *off);
        }
        Opnd::SymAddr(s, off) => {
            out.push('[');
            put(out, sym_name(*s));
            offset(out, *off);
        }
        Opnd::AddrZero(r) => {
            out.push('[');
            reg(out, *r);
            put(out, "+0]");
        }
        Opnd::SymAddrZero(s) => {
            out.push('[');
            put(out, sym_name(*s));
            put(out, "+0]");
        }
        Opnd::Sym(s) => put(out, sym_name(*s)),
        Opnd::Vec { start, len } => braced(out, k, k.run(*start, *len as usize)),
        Opnd::HandleAddr { start, handles, coords } => {
            let run = k.run(*start, *handles as usize + *coords as usize);
            let (h, c) = run.split_at(*handles as usize);
            out.push('[');
            list(out, k, h);
            if !c.is_empty() {
                out.push_str(", ");
                braced(out, k, c);
            }
            out.push(']');
        }
        Opnd::Pair(a, b) => {
            reg(out, *a);
            out.push('|');
            reg(out, *b);
        }
        Opnd::SinkPair(p) => {
            out.push_str("_|");
            reg(out, *p);
        }
        Opnd::Part { reg: r, sel, neg } => {
            if *neg {
                out.push('-');
            }
            reg(out, *r);
            sel.write(out);
        }
        Opnd::VecPred { start, len, pred } => {
            braced(out, k, k.run(*start, *len as usize));
            out.push('|');
            reg(out, *pred);
        }
        Opnd::Label(id) => match &k.labels[*id as usize].name {
            Some(n) => put(out, n),
            None => {
                put(out, "$L__");
                num(out, *id as u64)
            }
        },
        Opnd::Sink => out.push('_'),
    }
}

/// An address operand's offset and its closing bracket: `+8]`, `+-8]`, `]`.
fn offset(out: &mut String, off: i32) {
    if off > 0 {
        out.push('+');
        num(out, off as u64);
    } else if off < 0 {
        put(out, "+-");
        num(out, off.unsigned_abs() as u64);
    }
    out.push(']');
}

fn braced(out: &mut String, k: &Kernel, v: &[Opnd]) {
    out.push('{');
    list(out, k, v);
    out.push('}');
}

fn guard(out: &mut String, g: &super::ir::Guard) {
    if let Some((r, neg)) = g {
        out.push('@');
        if *neg {
            out.push('!');
        }
        reg(out, *r);
        out.push(' ');
    }
}

fn list(out: &mut String, k: &Kernel, ops: &[Opnd]) {
    for (i, o) in ops.iter().enumerate() {
        if i > 0 {
            put(out, ", ");
        }
        opnd(out, k, o);
    }
}

fn callee(out: &mut String, c: &Callee) {
    match c {
        Callee::Direct(name) => out.push_str(name),
        Callee::Indirect(r) => reg(out, *r),
    }
}

/// The `.param` type of a value of register class `c` (predicates have none: the builder
/// refuses them before a call is made).
fn param_type(c: RegClass) -> &'static str {
    match c {
        RegClass::B8 => "b8",
        RegClass::B16 => "b16",
        RegClass::Pred | RegClass::B32 => "b32",
        RegClass::B64 => "b64",
        RegClass::B128 => "b128",
    }
}

/// A call with the `.param` ABI, the `i`-th statement of its body: a block declaring a
/// `.param` per argument and result (and, for a call through a register, the
/// `.callprototype` of the parameter list), the stores, the call under the call's guard,
/// and the loads (ptxas refuses a guard on `st.param`/`ld.param` of a call's variables; where
/// the call does not run, the loaded values are undefined, as a guarded `.reg` call leaves
/// its result registers).
fn param_call(out: &mut String, k: &Kernel, c: &CallStmt, i: usize) {
    let class = |o: &Opnd| match o {
        Opnd::Reg(r) => r.class(),
        _ => RegClass::B32,
    };
    let decls = |out: &mut String, vals: &[Opnd], proto: bool, prefix: &str| {
        for (j, v) in vals.iter().enumerate() {
            if j > 0 {
                out.push_str(", ");
            }
            let _ = if proto { write!(out, ".param .{} _", param_type(class(v))) } else { write!(out, "{prefix}{j}") };
        }
    };
    out.push_str("\t{\n");
    for (vals, prefix) in [(&c.args, "__ptxkit_arg"), (&c.rets, "__ptxkit_ret")] {
        for (j, v) in vals.iter().enumerate() {
            let _ = writeln!(out, "\t.param .{} {prefix}{j};", param_type(class(v)));
        }
    }
    if let Callee::Indirect(_) = c.func {
        let _ = write!(out, "\t__ptxkit_proto_{i}: .callprototype ");
        if !c.rets.is_empty() {
            out.push('(');
            decls(out, &c.rets, true, "");
            out.push_str(") ");
        }
        out.push_str("_ (");
        decls(out, &c.args, true, "");
        out.push_str(");\n");
    }
    for (j, v) in c.args.iter().enumerate() {
        let _ = write!(out, "\tst.param.{} [__ptxkit_arg{j}], ", param_type(class(v)));
        opnd(out, k, v);
        out.push_str(";\n");
    }
    out.push('\t');
    guard(out, &c.guard);
    out.push_str(if c.uni { "call.uni " } else { "call " });
    if !c.rets.is_empty() {
        out.push('(');
        decls(out, &c.rets, false, "__ptxkit_ret");
        out.push_str("), ");
    }
    callee(out, &c.func);
    out.push_str(", (");
    decls(out, &c.args, false, "__ptxkit_arg");
    out.push(')');
    if let Callee::Indirect(_) = c.func {
        let _ = write!(out, ", __ptxkit_proto_{i}");
    }
    out.push_str(";\n");
    for (j, v) in c.rets.iter().enumerate() {
        let _ = write!(out, "\tld.param.{} ", param_type(class(v)));
        opnd(out, k, v);
        let _ = writeln!(out, ", [__ptxkit_ret{j}];");
    }
    out.push_str("\t}\n");
}

/// Prints one body.
/// `body`'s text; `files` numbers the source files of its `.loc` lines (from 1).
fn body(out: &mut String, k: &Kernel, files: &[&str]) {
    let entry = k.kind == BodyKind::Entry;
    if let Some(h) = &k.header {
        out.push_str(h);
        out.push('\n');
    } else if entry {
        let linkage = if k.linkage.is_empty() { ".visible " } else { k.linkage };
        let _ = write!(out, "{linkage}.entry {}(", k.name);
        for (i, p) in k.params.iter().enumerate() {
            out.push_str(if i == 0 { "\n\t" } else { ",\n\t" });
            out.push_str(p);
        }
        out.push_str(if k.params.is_empty() { ")\n" } else { "\n)\n" });
        for d in &k.directives {
            use Directive::*;
            let _ = match d {
                MaxNTid(x, y, z) | ReqNTid(x, y, z) | ReqNCtaPerCluster(x, y, z) => writeln!(out, "{} {x}, {y}, {z}", d.keyword()),
                MinNCtaPerSm(n) | MaxNReg(n) | MaxClusterRank(n) => writeln!(out, "{} {n}", d.keyword()),
                ExplicitCluster => writeln!(out, "{}", d.keyword()),
            };
        }
    } else {
        out.push_str(k.linkage);
        out.push_str(".func ");
        if !k.func_rets.is_empty() {
            out.push('(');
            for (i, r) in k.func_rets.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, ".reg .{} ", r.class().decl());
                reg(out, *r);
            }
            out.push_str(") ");
        } else if !k.func_ret_params.is_empty() {
            let _ = write!(out, "({}) ", k.func_ret_params.join(", "));
        }
        let _ = write!(out, "{}(", k.name);
        for (i, r) in k.func_params.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, ".reg .{} ", r.class().decl());
            reg(out, *r);
        }
        // `.param` parameters (a function of the `.param` ABI has no `.reg` ones).
        out.push_str(&k.params.join(", "));
        out.push_str(")\n");
    }
    out.push_str("{\n");
    for l in &k.locals {
        out.push('\t');
        out.push_str(l);
        out.push('\n');
    }
    for c in super::dtype::RegClass::ALL {
        let n = k.nregs[c as usize];
        if n > 0 {
            let _ = writeln!(out, "\t.reg .{} {}<{}>;", c.decl(), c.prefix(), n + 1);
        }
    }
    for r in &k.named {
        let _ = write!(out, "\t.reg .{} ", r.class().decl());
        reg(out, *r);
        out.push_str(";\n");
    }
    out.push('\n');
    // The next recorded location, and the last one printed (a `.loc` only where it changes).
    let mut locs = k.locs.iter().peekable();
    let mut last_loc = None;
    for (i, s) in k.stmts.iter().enumerate() {
        match s {
            Stmt::Ins { form, start, len, guard: g } => {
                if let Some(&(_, at)) = locs.next_if(|(si, _)| *si as usize == i) {
                    let key = (at.file(), at.line(), at.column());
                    if last_loc != Some(key) {
                        let file = files.iter().position(|f| *f == at.file()).map_or(0, |p| p + 1);
                        let _ = writeln!(out, "\t.loc {file} {} {}", at.line(), at.column());
                        last_loc = Some(key);
                    }
                }
                out.push('\t');
                guard(out, &g.unpack());
                put(out, k.forms[*form as usize].chain);
                let ops = k.run(*start, *len as usize);
                if !ops.is_empty() {
                    out.push(' ');
                    list(out, k, ops);
                }
                put(out, ";\n");
            }
            Stmt::Call(c) => {
                let c = &k.calls[*c as usize];
                if c.param {
                    param_call(out, k, c, i);
                    continue;
                }
                out.push('\t');
                guard(out, &c.guard);
                out.push_str(if c.uni { "call.uni " } else { "call " });
                if !c.rets.is_empty() {
                    out.push('(');
                    list(out, k, &c.rets);
                    out.push_str("), ");
                }
                callee(out, &c.func);
                out.push_str(", (");
                list(out, k, &c.args);
                out.push(')');
                if let Some(p) = &c.proto {
                    out.push_str(", ");
                    out.push_str(p);
                }
                out.push_str(";\n");
            }
            Stmt::Label(id) => {
                match &k.labels[*id as usize].name {
                    Some(n) => out.push_str(n),
                    None => {
                        out.push_str("$L__");
                        num(out, *id as u64)
                    }
                }
                out.push_str(":\n");
            }
            Stmt::Targets { label, start, len } => {
                opnd(out, k, &Opnd::Label(*label));
                out.push_str(": .branchtargets ");
                list(out, k, k.run(*start, *len as usize));
                out.push_str(";\n");
            }
            Stmt::Comment(c) => {
                out.push_str("\t// ");
                out.push_str(&k.texts[*c as usize]);
                out.push('\n');
            }
            Stmt::Raw(r) => {
                out.push('\t');
                out.push_str(&k.texts[*r as usize]);
                out.push_str(";\n");
            }
            Stmt::Text(t) => {
                out.push_str(&k.texts[*t as usize]);
                out.push('\n');
            }
        }
    }
    out.push_str("}\n");
}

/// The `.version` a module needs: the newest its target and instructions need, or the one
/// it asks for if that is new enough.
fn infer_version(m: &Module) -> Result<Version, Error> {
    let target = m.target;
    if m.unchecked {
        return Ok(m.version.unwrap_or(Version::MAX));
    }
    let mut need = isa::target_version(target).ok_or(Error::NoIsaData { instruction: format!("target {target}") })?;
    let mut why: Option<(String, String)> = None;
    // Every body was checked against the target when it was added (`Kernel::check_target`):
    // what is left is the newest version its instructions need.
    for item in &m.items {
        let Item::Body(k) = item else { continue };
        for (key, req) in k.isa_reqs() {
            let r = req.ok_or_else(|| Error::NoIsaData { instruction: key.to_string() })?;
            if r.version > need {
                need = r.version;
                why = Some((k.name.to_string(), key.into_owned()));
            }
        }
    }
    if m.version.is_none() && need > m.version_limit {
        let (kernel, instruction) = why.unwrap_or_else(|| (String::new(), format!("target {target}")));
        return Err(Error::NeedsNewerIsa { kernel, instruction, needs: need.to_string(), limit: m.version_limit.to_string() });
    }
    if let Some(v) = m.version {
        if v < need {
            let (kernel, instruction) = why.unwrap_or_else(|| (String::new(), format!("target {target}")));
            return Err(Error::VersionTooOld { kernel, instruction, needs: need.to_string(), version: v.to_string() });
        }
        return Ok(v);
    }
    Ok(need)
}

impl Module {
    /// The whole module as PTX text, with `.version` inferred and every instruction
    /// checked against the target. A module one of whose kernels or functions failed to
    /// build (its `Module::kernel` or `Module::func` returned an error) has no text: the
    /// error says which and why.
    pub fn to_ptx(&self) -> Result<String, Error> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        module(self)
    }
}

fn module(m: &Module) -> Result<String, Error> {
    let version = infer_version(m)?;
    let mut out =
        String::with_capacity(m.items.iter().map(|i| if let Item::Body(k) = i { k.stmts.len() * 40 } else { 64 }).sum::<usize>() + 256);
    let _ = write!(
        out,
        "//\n// Generated by ptxkit {}\n//\n\n.version {version}\n.target {}{}",
        env!("CARGO_PKG_VERSION"),
        m.target,
        if m.tex_mode == super::desc::TexMode::Independent { ", texmode_independent" } else { "" }
    );
    for o in &m.target_options {
        let _ = write!(out, ", {o}");
    }
    out.push_str("\n.address_size 64\n\n");
    // The source files line info names, numbered from 1 in order of first use.
    let mut files: Vec<&str> = vec![];
    for item in &m.items {
        if let Item::Body(k) = item {
            for (_, at) in &k.locs {
                if !files.contains(&at.file()) {
                    files.push(at.file());
                }
            }
        }
    }
    for (i, f) in files.iter().enumerate() {
        let _ = writeln!(out, ".file {} \"{}\"", i + 1, f.replace('\\', "/").replace('"', "'"));
    }
    if !files.is_empty() {
        out.push('\n');
    }
    let dyn_align = m.items.iter().filter_map(|i| if let Item::Body(k) = i { k.dyn_smem } else { None }).max();
    if let Some(a) = dyn_align {
        let _ = writeln!(out, ".extern .shared .align {a} .b8 {DYN_SMEM}[];\n");
    }
    for item in &m.items {
        match item {
            Item::Var(s) => {
                out.push_str(s);
                out.push_str("\n\n");
            }
            Item::Body(k) => {
                body(&mut out, k, &files);
                out.push('\n');
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{num, put};

    /// `num` writes the same digits as `format!` at every length, at and around each power
    /// of ten, and after text already in the string.
    #[test]
    fn num_prints_every_length() {
        let mut vals = vec![0u64, 1, 9, u64::MAX, u64::MAX - 1];
        for p in 1..=19 {
            let t = 10u64.pow(p);
            vals.extend([t - 1, t, t + 1, t + t / 2 + 7]);
        }
        for v in vals {
            for prefix in ["", "%r"] {
                let mut out = String::from(prefix);
                num(&mut out, v);
                assert_eq!(out, format!("{prefix}{v}"));
            }
        }
    }

    /// `put` appends exactly the string, at every length around its word sizes, to strings
    /// with and without spare capacity.
    #[test]
    fn put_appends_every_length() {
        let text: String = (0..64u8).map(|i| (b'!' + i) as char).collect();
        for prefix in ["", "x", "%rd12, "] {
            for n in 0..=40 {
                let s = &text[..n];
                for mut out in [String::new(), String::with_capacity(prefix.len() + n), String::with_capacity(256)] {
                    out.push_str(prefix);
                    put(&mut out, s);
                    assert_eq!(out, format!("{prefix}{s}"), "length {n}");
                }
            }
        }
        let mut out = String::from("é");
        put(&mut out, "ü→");
        assert_eq!(out, "éü→");
    }
}
