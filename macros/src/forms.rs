//! `forms!`: a family table in PTX-ISA-like notation, expanded to one trait impl per form.
//!
//! Row: `"pattern" "signature" [as variant];`
//!
//! Pattern: the opcode, then parts. `.tok` is a literal part; `.<set>` is one member of a
//! named set (vocab::SETS) or of an inline list `.<a|b>`; `.<T:set>` also binds `T` to the
//! member; `{...|...}` is an optional group of alternatives; `(...|...)` a required one.
//!
//! Signature: `dst = src, src, ...`. A dst is `-` (none), a type, `X|Y` (a grouped pair),
//! or `V(T)` (a braced vector whose length comes from `V`, bound to `v2`/`v4` or written
//! literally). A src is a type, `[T]` (an address of `T` in the chain's state space; `[]`
//! any element), `V(T)`, `imm(T)` (an immediate only) or `label`. Types are data-type
//! tokens or variables bound in the pattern.

use crate::vocab;
use proc_macro2::{Span, TokenStream as TS, TokenTree};
use quote::{format_ident, quote};
use std::collections::HashSet;

type Res<T> = Result<T, (Span, String)>;

#[derive(Clone, Debug)]
enum Elem {
    Lit(String),
    Choice(Option<String>, Vec<String>),
    Group(bool, Vec<Vec<Elem>>),
}

struct P<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> P<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn word(&mut self) -> String {
        let st = self.i;
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || c == b'_' || c == b':' {
                self.i += 1;
            } else {
                break;
            }
        }
        String::from_utf8_lossy(&self.s[st..self.i]).into_owned()
    }
    fn seq(&mut self) -> Result<Vec<Elem>, String> {
        let mut out = vec![];
        loop {
            match self.peek() {
                None | Some(b'|') | Some(b'}') | Some(b')') => return Ok(out),
                Some(b'.') => {
                    self.i += 1;
                    if self.peek() == Some(b'<') {
                        self.i += 1;
                        let st = self.i;
                        while self.peek().map_or(false, |c| c != b'>') {
                            self.i += 1;
                        }
                        if self.peek() != Some(b'>') {
                            return Err("unclosed `<`".into());
                        }
                        let body = String::from_utf8_lossy(&self.s[st..self.i]).into_owned();
                        self.i += 1;
                        let (var, set) = match body.split_once(':') {
                            Some((v, s)) if !v.contains(':') && !s.starts_with(':') => (Some(v.to_string()), s.to_string()),
                            _ => (None, body.clone()),
                        };
                        let members: Vec<String> = if set.contains('|') {
                            set.split('|').map(str::to_string).collect()
                        } else {
                            vocab::set(&set).ok_or(format!("unknown set `{set}`"))?.iter().map(|s| s.to_string()).collect()
                        };
                        out.push(Elem::Choice(var, members));
                    } else {
                        let w = self.word();
                        if w.is_empty() {
                            return Err("empty part".into());
                        }
                        out.push(Elem::Lit(w));
                    }
                }
                Some(c @ (b'{' | b'(')) => {
                    self.i += 1;
                    let close = if c == b'{' { b'}' } else { b')' };
                    let mut alts = vec![self.seq()?];
                    while self.peek() == Some(b'|') {
                        self.i += 1;
                        alts.push(self.seq()?);
                    }
                    if self.peek() != Some(close) {
                        return Err("unclosed group".into());
                    }
                    self.i += 1;
                    out.push(Elem::Group(c == b'{', alts));
                }
                Some(c) => return Err(format!("unexpected `{}`", c as char)),
            }
        }
    }
}

type Exp = (Vec<String>, Vec<(String, String)>);

fn expand_seq(seq: &[Elem]) -> Vec<Exp> {
    let mut acc: Vec<Exp> = vec![(vec![], vec![])];
    for e in seq {
        let opts: Vec<Exp> = match e {
            Elem::Lit(w) => vec![(vec![w.clone()], vec![])],
            Elem::Choice(v, ms) => ms.iter().map(|m| (vec![m.clone()], v.iter().map(|v| (v.clone(), m.clone())).collect())).collect(),
            Elem::Group(opt, alts) => {
                let mut o: Vec<Exp> = if *opt { vec![(vec![], vec![])] } else { vec![] };
                for a in alts {
                    o.extend(expand_seq(a));
                }
                o
            }
        };
        let mut next = vec![];
        for (t, b) in &acc {
            for (t2, b2) in &opts {
                let mut t = t.clone();
                t.extend(t2.iter().cloned());
                let mut b = b.clone();
                b.extend(b2.iter().cloned());
                next.push((t, b));
            }
        }
        acc = next;
    }
    acc
}

const SPACES: &[&str] = &["global", "shared", "shared::cta", "shared::cluster", "local", "const", "param"];

struct Ctx<'a> {
    binds: &'a [(String, String)],
    space: Option<&'a str>,
}

impl Ctx<'_> {
    fn dtype(&self, name: &str) -> Result<String, String> {
        let v = self.binds.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.clone()).unwrap_or(name.to_string());
        if vocab::is_dtype(&v) {
            Ok(v)
        } else {
            Err(format!("`{name}` is neither a data type nor a bound variable"))
        }
    }
    fn bound(&self, name: &str) -> String {
        self.binds.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.clone()).unwrap_or(name.to_string())
    }
    fn ty(dt: &str) -> (TS, TS) {
        let id = format_ident!("{}", vocab::rust_ident(dt));
        (quote!(::ptxkit::types::#id), quote!(::ptxkit::types::DType::#id))
    }
    fn vec(&self, s: &str) -> Result<Option<(String, usize)>, String> {
        let Some((v, rest)) = s.split_once('(') else { return Ok(None) };
        let t = rest.strip_suffix(')').ok_or("unclosed `(`")?;
        let n = match self.bound(v).as_str() {
            "v2" => 2,
            "v4" => 4,
            "v8" => 8,
            o => return Err(format!("`{o}` is not a vector width")),
        };
        Ok(Some((self.dtype(t)?, n)))
    }
    fn space(&self) -> (TS, TS) {
        match self.space {
            Some(s) => {
                let id = format_ident!("{}", vocab::rust_ident(s));
                (quote!(::ptxkit::ops::m::#id), quote!(::ptxkit::ops::Space::#id))
            }
            None => (quote!(::ptxkit::ops::Generic), quote!(::ptxkit::ops::Space::Generic)),
        }
    }
    /// (Rust kind type, runtime kind value) of a source operand.
    fn src(&self, s: &str) -> Result<(TS, TS), String> {
        if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            let (sp, spv) = self.space();
            if inner.is_empty() {
                return Ok((quote!(::ptxkit::ops::Addr<#sp, ::ptxkit::ops::AnyElem>), quote!(::ptxkit::ops::Kind::Addr(#spv, None))));
            }
            let (t, tv) = Self::ty(&self.dtype(inner)?);
            return Ok((quote!(::ptxkit::ops::Addr<#sp, #t>), quote!(::ptxkit::ops::Kind::Addr(#spv, Some(#tv)))));
        }
        if s == "label" {
            return Ok((quote!(::ptxkit::ops::LabelOp), quote!(::ptxkit::ops::Kind::Label)));
        }
        if let Some(inner) = s.strip_prefix("imm(").and_then(|r| r.strip_suffix(')')) {
            let (t, tv) = Self::ty(&self.dtype(inner)?);
            return Ok((quote!(::ptxkit::ops::Imm<#t>), quote!(::ptxkit::ops::Kind::Imm(#tv))));
        }
        if let Some((dt, n)) = self.vec(s)? {
            let (t, tv) = Self::ty(&dt);
            let n8 = n as u8;
            return Ok((quote!(::ptxkit::ops::Vector<#t, #n>), quote!(::ptxkit::ops::Kind::Vec(#tv, #n8))));
        }
        let (t, tv) = Self::ty(&self.dtype(s)?);
        Ok((t, quote!(::ptxkit::ops::Kind::Val(#tv))))
    }
    fn dst(&self, s: &str) -> Result<(TS, TS), String> {
        if s == "-" {
            return Ok((quote!(()), quote!(::ptxkit::ops::DstKind::None)));
        }
        if let Some((a, b)) = s.split_once('|') {
            let (ta, va) = Self::ty(&self.dtype(a)?);
            let (tb, vb) = Self::ty(&self.dtype(b)?);
            return Ok((quote!((::ptxkit::Reg<#ta>, ::ptxkit::Reg<#tb>)), quote!(::ptxkit::ops::DstKind::Pair(#va, #vb))));
        }
        if let Some((dt, n)) = self.vec(s)? {
            let (t, tv) = Self::ty(&dt);
            let n8 = n as u8;
            return Ok((quote!([::ptxkit::Reg<#t>; #n]), quote!(::ptxkit::ops::DstKind::Vec(#tv, #n8))));
        }
        let (t, tv) = Self::ty(&self.dtype(s)?);
        Ok((quote!(::ptxkit::Reg<#t>), quote!(::ptxkit::ops::DstKind::Val(#tv))))
    }
}

struct Row {
    pat: String,
    sig: String,
    variant: Option<String>,
    span: Span,
}

fn rows(input: TS) -> Res<Vec<Row>> {
    let toks: Vec<TokenTree> = input.into_iter().collect();
    let mut out = vec![];
    let mut i = 0;
    let lit = |t: &TokenTree| -> Res<String> {
        match t {
            TokenTree::Literal(l) => {
                let s = l.to_string();
                if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
                    Ok(s[1..s.len() - 1].to_string())
                } else {
                    Err((l.span(), "forms!: expected a string literal".into()))
                }
            }
            t => Err((t.span(), "forms!: expected a string literal".into())),
        }
    };
    while i < toks.len() {
        let span = toks[i].span();
        let pat = lit(&toks[i])?;
        let sig = lit(toks.get(i + 1).ok_or((span, "forms!: row without signature".to_string()))?)?;
        i += 2;
        let mut variant = None;
        if matches!(toks.get(i), Some(TokenTree::Ident(id)) if id.to_string() == "as") {
            match toks.get(i + 1) {
                Some(TokenTree::Ident(v)) => variant = Some(v.to_string()),
                _ => return Err((span, "forms!: `as` needs a variant name".into())),
            }
            i += 2;
        }
        match toks.get(i) {
            Some(TokenTree::Punct(p)) if p.as_char() == ';' => i += 1,
            _ => return Err((span, "forms!: expected `;` after a row".into())),
        }
        out.push(Row { pat, sig, variant, span });
    }
    Ok(out)
}

pub fn expand(input: TS) -> Res<TS> {
    let mut impls = vec![];
    let mut list = vec![];
    let mut seen = HashSet::new();
    for row in rows(input)? {
        let e = |m: String| (row.span, format!("forms!: row `{}`: {m}", row.pat));
        let b = row.pat.as_bytes();
        let mut p = P { s: b, i: 0 };
        let opcode = p.word();
        let seq = p.seq().map_err(e)?;
        if p.i != b.len() {
            return Err(e(format!("unexpected `{}`", &row.pat[p.i..])));
        }
        let (dst_s, src_s) = row.sig.split_once('=').ok_or_else(|| e("signature needs `=`".into()))?;
        let srcs: Vec<&str> = src_s.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
        for (toks, binds) in expand_seq(&seq) {
            let mut parts = vec![opcode.as_str()];
            parts.extend(toks.iter().map(String::as_str));
            let chain = parts.join(".");
            crate::split_chain(&chain).map_err(|m| e(m))?;
            let vname = row.variant.clone().unwrap_or("plain".into());
            if !seen.insert((chain.clone(), vname.clone())) {
                return Err(e(format!("form `{chain}` appears twice")));
            }
            let space = toks.iter().map(String::as_str).find(|t| SPACES.contains(t));
            let cx = Ctx { binds: &binds, space };
            let (dt, dv) = cx.dst(dst_s.trim()).map_err(|m| e(m))?;
            let mut sts = vec![];
            let mut svs = vec![];
            for s in &srcs {
                let (t, v) = cx.src(s).map_err(|m| e(m))?;
                sts.push(t);
                svs.push(v);
            }
            let (op, mods) = crate::chain_types(&parts);
            let vid = format_ident!("{}", vocab::rust_ident(&vname));
            let var = quote!(::ptxkit::ops::v::#vid);
            impls.push(quote! {
                impl ::ptxkit::ops::Form<#mods, #var> for #op {
                    type Dst = #dt;
                    type Src = (#(#sts,)*);
                    const DESC: &'static ::ptxkit::ops::FormDesc = &::ptxkit::ops::FormDesc {
                        chain: #chain, variant: #vname, dst: #dv, src: &[#(#svs),*],
                    };
                }
            });
            list.push(quote!(<#op as ::ptxkit::ops::Form<#mods, #var>>::DESC));
        }
    }
    Ok(quote! {
        #(#impls)*
        /// Every form of this family's table, for enumeration (ptxas sweeps, tests).
        pub static FORMS: &[&::ptxkit::ops::FormDesc] = &[#(#list),*];
    })
}
