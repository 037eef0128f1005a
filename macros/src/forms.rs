//! Code generation from the tables: one `impl Form` per form (`forms!(family)`), and the
//! token types the tables use (`define_tokens!`).

use crate::notation::{Dst, Src};
use crate::tables::{tables, Tables};
use crate::vocab::{self, rust_ident};
use proc_macro2::{Literal, TokenStream as TS};
use quote::{format_ident, quote};

fn dtype(t: &str) -> (TS, TS) {
    let id = format_ident!("{}", rust_ident(t));
    (quote!(::ptxkit::types::#id), quote!(::ptxkit::types::DType::#id))
}

fn space(s: Option<&str>) -> (TS, TS) {
    match s {
        None => (quote!(::ptxkit::ops::Generic), quote!(::ptxkit::ops::Space::Generic)),
        Some("tmem") => (quote!(::ptxkit::ops::Tmem), quote!(::ptxkit::ops::Space::Tmem)),
        Some(s) => {
            let id = format_ident!("{}", rust_ident(s));
            (quote!(::ptxkit::ops::m::#id), quote!(::ptxkit::ops::Space::#id))
        }
    }
}

fn len(n: u32) -> (Literal, Literal) {
    (Literal::usize_unsuffixed(n as usize), Literal::u16_unsuffixed(n as u16))
}

/// (Rust type, run-time `DstKind`) of a destination.
fn dst(d: &Dst) -> (TS, TS) {
    match d {
        Dst::None => (quote!(()), quote!(::ptxkit::ops::DstKind::None)),
        Dst::Sink => (quote!(()), quote!(::ptxkit::ops::DstKind::Sink)),
        Dst::Val(t) => {
            let (t, v) = dtype(t);
            (quote!(::ptxkit::Reg<#t>), quote!(::ptxkit::ops::DstKind::Val(#v)))
        }
        Dst::Pair(a, b) => {
            let ((ta, va), (tb, vb)) = (dtype(a), dtype(b));
            (quote!((::ptxkit::Reg<#ta>, ::ptxkit::Reg<#tb>)), quote!(::ptxkit::ops::DstKind::Pair(#va, #vb)))
        }
        Dst::Vec(t, n) => {
            let ((t, v), (n, n16)) = (dtype(t), len(*n));
            (quote!([::ptxkit::Reg<#t>; #n]), quote!(::ptxkit::ops::DstKind::Vec(#v, #n16)))
        }
        Dst::VecPred(t, n) => {
            let ((t, v), (n, n16)) = (dtype(t), len(*n));
            (quote!(([::ptxkit::Reg<#t>; #n], ::ptxkit::Reg<::ptxkit::types::Pred>)), quote!(::ptxkit::ops::DstKind::VecPred(#v, #n16)))
        }
        Dst::Tied(t, n) => {
            let ((t, v), (n, n16)) = (dtype(t), len(*n));
            (quote!(::ptxkit::ops::Acc<#t, #n>), quote!(::ptxkit::ops::DstKind::Tied(#v, #n16)))
        }
        Dst::Multi(ds) => {
            let (ts, vs): (Vec<TS>, Vec<TS>) = ds.iter().map(dst).unzip();
            (quote!((#(#ts,)*)), quote!(::ptxkit::ops::DstKind::Multi(&[#(#vs),*])))
        }
        Dst::Part(t, set) => {
            let ((t, v), (st, sv)) = (dtype(t), sel_set(set));
            (quote!(::ptxkit::ops::PartDst<#t, #st>), quote!(::ptxkit::ops::DstKind::Part(#v, #sv)))
        }
        Dst::SinkPair(t) => {
            let (t, v) = dtype(t);
            (quote!(::ptxkit::Reg<#t>), quote!(::ptxkit::ops::DstKind::SinkPair(#v)))
        }
    }
}

/// (the set's type in `ops::sel`, its `SelSet` value) of a named selector set.
fn sel_set(name: &str) -> (TS, TS) {
    let v = vocab::SELECTORS.iter().find(|(n, _)| *n == name).map_or("Scalar", |(_, v)| *v);
    let id = format_ident!("{}", v);
    (quote!(::ptxkit::ops::sel::#id), quote!(::ptxkit::ops::SelSet::#id))
}

/// (Rust kind type, run-time `Kind`) of a source operand.
fn src(s: &Src) -> (TS, TS) {
    match s {
        Src::Val(t) => {
            let (t, v) = dtype(t);
            (t, quote!(::ptxkit::ops::Kind::Val(#v)))
        }
        Src::Addr(sp, elem) => {
            let (st, sv) = space(sp.as_deref());
            match elem {
                None => (quote!(::ptxkit::ops::Addr<#st, ::ptxkit::ops::AnyElem>), quote!(::ptxkit::ops::Kind::Addr(#sv, None))),
                Some(e) => {
                    let (t, v) = dtype(e);
                    (quote!(::ptxkit::ops::Addr<#st, #t>), quote!(::ptxkit::ops::Kind::Addr(#sv, Some(#v))))
                }
            }
        }
        Src::Vec(t, n) => {
            let ((t, v), (n, n16)) = (dtype(t), len(*n));
            (quote!(::ptxkit::ops::Vector<#t, #n>), quote!(::ptxkit::ops::Kind::Vec(#v, #n16)))
        }
        Src::Imm(t) => {
            let (t, v) = dtype(t);
            (quote!(::ptxkit::ops::Imm<#t>), quote!(::ptxkit::ops::Kind::Imm(#v)))
        }
        Src::ImmIn(t, vals, name) => {
            let (t, v) = dtype(t);
            let l = format_ident!("{}", name);
            (quote!(::ptxkit::ops::ImmIn<#t, ::ptxkit::ops::legal::#l>), quote!(::ptxkit::ops::Kind::ImmIn(#v, &[#(#vals),*])))
        }
        Src::Label => (quote!(::ptxkit::ops::LabelOp), quote!(::ptxkit::ops::Kind::Label)),
        Src::Targets => (quote!(::ptxkit::ops::TargetsOp), quote!(::ptxkit::ops::Kind::Targets)),
        Src::Part(t, set, neg) => {
            let (t, v) = dtype(t);
            let (st, sv) = match set {
                Some(set) => {
                    let (st, sv) = sel_set(set);
                    (st, quote!(::core::option::Option::Some(#sv)))
                }
                None => (quote!(::ptxkit::ops::sel::Whole), quote!(::core::option::Option::None)),
            };
            let kind = if *neg { quote!(::ptxkit::ops::Negated) } else { quote!(::ptxkit::ops::Selectable) };
            (quote!(#kind<#t, #st>), quote!(::ptxkit::ops::Kind::Part { ty: #v, sel: #sv, neg: #neg }))
        }
        Src::HandleAddr(handles, cs) => {
            let names: Vec<&str> = handles.iter().map(String::as_str).collect();
            let which = match names[..] {
                ["tmap"] => quote!(TensorMap),
                ["tex"] => quote!(Texture),
                ["tex", "smp"] => quote!(TextureSampler),
                ["smp"] => quote!(Sampler),
                _ => quote!(Surface),
            };
            let kinds = names.iter().map(|h| {
                let id = format_ident!("{}", rust_ident(h));
                quote!(::ptxkit::ops::h::#id)
            });
            let (ct, pads, cv) = coord_list(cs);
            (
                quote!(::ptxkit::ops::HandleAddr<(#(#kinds,)*), #ct, #pads>),
                quote!(::ptxkit::ops::Kind::HandleAddr(::ptxkit::ops::Handles::#which, &[#(#cv),*])),
            )
        }
        Src::Coords(cs) => {
            let (ct, pads, cv) = coord_list(cs);
            (quote!(::ptxkit::ops::Coords<#ct, #pads>), quote!(::ptxkit::ops::Kind::Coords(&[#(#cv),*])))
        }
    }
}

/// A coordinate list: the tuple of its element kinds, the number of ignored elements
/// (trailing), and its run-time `Coord`s.
fn coord_list(cs: &[crate::notation::Coord]) -> (TS, Literal, Vec<TS>) {
    let kinds = cs.iter().filter(|(_, pad)| !pad).map(|(t, _)| dtype(t).0);
    let pads = cs.iter().filter(|(_, pad)| *pad).count();
    let run = cs
        .iter()
        .map(|(t, pad)| {
            let v = dtype(t).1;
            if *pad {
                quote!(::ptxkit::ops::Coord::Pad(#v))
            } else {
                quote!(::ptxkit::ops::Coord::Val(#v))
            }
        })
        .collect();
    (quote!((#(#kinds,)*)), Literal::usize_unsuffixed(pads), run)
}

/// `(Opcode key type, (modifier types...))` of a chain's parts.
pub fn chain_types(parts: &[impl AsRef<str>]) -> (TS, TS) {
    let key = format_ident!("{}", crate::tables::key_of(parts));
    let mods = parts[1..].iter().map(|p| {
        let p = p.as_ref();
        let id = format_ident!("{}", rust_ident(p));
        if vocab::is_dtype(p) {
            quote!(::ptxkit::types::#id)
        } else {
            quote!(::ptxkit::ops::m::#id)
        }
    });
    (quote!(::ptxkit::ops::op::#key), quote!((#(#mods,)*)))
}

pub fn variant_type(v: &str) -> TS {
    let id = format_ident!("{}", rust_ident(v));
    quote!(::ptxkit::ops::v::#id)
}

/// `forms!(family)`: the family's impls; its `FORMS`, one static array of descriptors that
/// the impls point into (so listing the forms costs no trait resolution, and the
/// descriptors are one item, not one per form); and the operand-kind types and arrays
/// shared by the forms that take the same operands.
pub fn expand(family: &str) -> Result<TS, String> {
    let t = tables()?;
    let fam = t.family(family).ok_or_else(|| format!("forms!: no table `{family}` (macros/src/vocab.rs lists them)"))?;
    let mut shared: Vec<TS> = vec![];
    let mut sigs: std::collections::HashMap<String, (proc_macro2::Ident, proc_macro2::Ident)> = std::collections::HashMap::new();
    let mut impls = vec![];
    let mut list = vec![];
    for (n, &i) in fam.forms.iter().enumerate() {
        let f = &t.forms[i];
        let (key, mods) = chain_types(&f.parts);
        let var = variant_type(&f.variant);
        let (dt, dv) = dst(&f.dst);
        let (sts, svs): (Vec<TS>, Vec<TS>) = f.srcs.iter().map(src).unzip();
        let sig = quote!(#(#sts,)*).to_string();
        let next = sigs.len();
        let (src_ty, src_kinds) = sigs
            .entry(sig)
            .or_insert_with(|| {
                let (ty, kinds) = (format_ident!("Src{}", next), format_ident!("SRC{}", next));
                let len = svs.len();
                shared.push(quote! {
                    #[doc(hidden)]
                    pub type #ty = (#(#sts,)*);
                    #[doc(hidden)]
                    pub static #kinds: [::ptxkit::ops::Kind; #len] = [#(#svs),*];
                });
                (ty, kinds)
            })
            .clone();
        let (chain, vname) = (&f.chain, &f.variant);
        let effects = vocab::EFFECTS.contains(&f.parts[0].as_str());
        impls.push(quote! {
            impl ::ptxkit::ops::Form<#mods, #var> for #key {
                type Dst = #dt;
                type Src = #src_ty;
                const DESC: &'static ::ptxkit::ops::FormDesc = &FORMS[#n];
            }
        });
        list.push(quote!(::ptxkit::ops::FormDesc { chain: #chain, variant: #vname, dst: #dv, src: &#src_kinds, effects: #effects }));
    }
    let count = list.len();
    let doc = format!(
        "Every form of the `{family}` family ({} forms), for enumeration (ptxas checks, the ISA sweep). \
         The table they expand from (`macros/tables/{family}.forms`):\n\n```text\n{}```",
        fam.forms.len(),
        fam.source
    );
    Ok(quote! {
        #(#shared)*
        #(#impls)*
        #[doc = #doc]
        pub static FORMS: [::ptxkit::ops::FormDesc; #count] = [#(#list),*];
    })
}

/// `families!()`: `&[(name, FORMS)]` over every table.
pub fn families() -> Result<TS, String> {
    let t = tables()?;
    let items = t.families.iter().map(|f| {
        let (name, m) = (f.name, format_ident!("{}", f.name));
        quote!((#name, &#m::FORMS))
    });
    Ok(quote!(&[#(#items),*]))
}

fn zst(id: &proc_macro2::Ident, doc: &str) -> TS {
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct #id;
    }
}

/// The token types: `modifiers`, `keys`, `variants` or `legal`.
pub fn define_tokens(which: &str) -> Result<TS, String> {
    let t: &Tables = tables()?;
    let items: Vec<TS> = match which {
        "modifiers" => t.modifiers.iter().map(|m| zst(&format_ident!("{}", rust_ident(m)), &format!("PTX modifier `.{m}`."))).collect(),
        "keys" => t
            .keys
            .iter()
            .map(|(k, (op, cache, last))| {
                let with = if cache.is_empty() { String::new() } else { format!(" with `.{cache}`") };
                let doc = if op == last || last.is_empty() {
                    format!("The forms of `{op}`.")
                } else {
                    format!("The forms of `{op}`{with} whose chain ends in `.{last}`.")
                };
                zst(&format_ident!("{}", k), &doc)
            })
            .collect(),
        "variants" => vocab::VARIANTS.iter().map(|(v, d)| zst(&format_ident!("{}", rust_ident(v)), d)).collect(),
        "legal" => t
            .legal
            .iter()
            .map(|(name, (text, vals))| {
                let id = format_ident!("{}", name);
                let z = zst(&id, &format!("Legal immediates `{text}`."));
                quote! {
                    #z
                    impl crate::ops::Legal for #id { const VALUES: &'static [i64] = &[#(#vals),*]; }
                    #( impl crate::ops::Admits<#vals> for #id {} )*
                }
            })
            .collect(),
        _ => return Err("define_tokens!(modifiers | keys | variants | legal)".into()),
    };
    Ok(quote!(#(#items)*))
}
