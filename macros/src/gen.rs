//! The Rust types of a form, written from its table row: `Form<Op<Opcode, (Modifiers..),
//! Variant>, Dst, (Operands..)>`, which `ptx!` calls and `op!` names, and the items
//! `families!` declares (the token types, the family modules, the selection impls).
//!
//! A form is a type, not an impl: its destination and operand kinds are its type
//! parameters, so the crate holds no code per form and the type checker sees only the
//! forms a program uses.

use proc_macro2::{Literal, TokenStream as TS};
use ptxkit_tables::notation::Coord;
use ptxkit_tables::vocab::{self, rust_ident};
use ptxkit_tables::{Dst, Form, Src, Tables};
use quote::{format_ident, quote};

fn dtype(t: &str) -> TS {
    let id = format_ident!("{}", rust_ident(t));
    quote!(::ptxkit::types::#id)
}

fn space(s: Option<&str>) -> TS {
    match s {
        None => quote!(::ptxkit::ops::Generic),
        Some("tmem") => quote!(::ptxkit::ops::Tmem),
        Some(s) => {
            let id = format_ident!("{}", rust_ident(s));
            quote!(::ptxkit::ops::m::#id)
        }
    }
}

fn len(n: u32) -> Literal {
    Literal::usize_unsuffixed(n as usize)
}

/// The type of a selector set in `ops::sel`.
fn sel_set(name: &str) -> TS {
    let v = vocab::SELECTORS.iter().find(|(n, _)| *n == name).map_or("Scalar", |(_, v)| *v);
    let id = format_ident!("{}", v);
    quote!(::ptxkit::ops::sel::#id)
}

/// The destination kind of a form (`ops::DstSpec`): what the call returns and how it prints.
pub fn dst(d: &Dst) -> TS {
    match d {
        Dst::None => quote!(()),
        Dst::Sink => quote!(::ptxkit::ops::Sink),
        Dst::Val(t) => dtype(t),
        Dst::Pair(a, b) => {
            let (a, b) = (dtype(a), dtype(b));
            quote!(::ptxkit::ops::Pair<#a, #b>)
        }
        Dst::Vec(t, n) => {
            let (t, n) = (dtype(t), len(*n));
            quote!(::ptxkit::ops::Vector<#t, #n>)
        }
        Dst::Tied(t, n) => {
            let (t, n) = (dtype(t), len(*n));
            quote!(::ptxkit::ops::Acc<#t, #n>)
        }
        Dst::VecPred(t, n) => {
            let (t, n) = (dtype(t), len(*n));
            quote!(::ptxkit::ops::VecPred<#t, #n>)
        }
        Dst::Multi(ds) => {
            let ts = ds.iter().map(dst);
            quote!((#(#ts,)*))
        }
        Dst::Part(t, set) => {
            let (t, s) = (dtype(t), sel_set(set));
            quote!(::ptxkit::ops::PartDst<#t, #s>)
        }
        Dst::SinkPair(t) => {
            let t = dtype(t);
            quote!(::ptxkit::ops::SinkPair<#t>)
        }
    }
}

/// The kind a data operand of ld/st/cvt is lowered as: a value of its type or a wider
/// register (`ops::Widenable`), alone or in a vector; `braced`: a lone one may also be
/// written in braces (`ops::Braceable`, st's).
pub fn wide_src(s: &Src, braced: bool) -> TS {
    match s {
        Src::Val(t) if braced => {
            let t = dtype(t);
            quote!(::ptxkit::ops::Widenable<#t, ::ptxkit::ops::Braceable>)
        }
        Src::Val(t) => {
            let t = dtype(t);
            quote!(::ptxkit::ops::Widenable<#t>)
        }
        Src::Vec(t, n) => {
            let (t, n) = (dtype(t), len(*n));
            quote!(::ptxkit::ops::Vector<::ptxkit::ops::Widenable<#t>, #n>)
        }
        other => src(other),
    }
}

/// The kind of a source operand (`ops::OperandKind`).
pub fn src(s: &Src) -> TS {
    match s {
        Src::Val(t) => dtype(t),
        Src::Addr(sp, elem) => {
            let st = space(sp.as_deref());
            let e = elem.as_deref().map_or(quote!(::ptxkit::ops::AnyElem), dtype);
            quote!(::ptxkit::ops::Addr<#st, #e>)
        }
        Src::Vec(t, n) => {
            let (t, n) = (dtype(t), len(*n));
            quote!(::ptxkit::ops::Vector<#t, #n>)
        }
        Src::Imm(t) => {
            let t = dtype(t);
            quote!(::ptxkit::ops::Imm<#t>)
        }
        Src::ImmIn(t, _, name) => {
            let (t, l) = (dtype(t), format_ident!("{}", name));
            quote!(::ptxkit::ops::ImmIn<#t, ::ptxkit::ops::legal::#l>)
        }
        Src::Label => quote!(::ptxkit::ops::LabelOp),
        Src::Targets => quote!(::ptxkit::ops::TargetsOp),
        Src::Part(t, set, neg) => {
            let t = dtype(t);
            let st = set.as_deref().map_or(quote!(::ptxkit::ops::sel::Whole), sel_set);
            let kind = if *neg { quote!(::ptxkit::ops::Negated) } else { quote!(::ptxkit::ops::Selectable) };
            quote!(#kind<#t, #st>)
        }
        Src::HandleAddr(handles, cs) => {
            let kinds = handles.iter().map(|h| {
                let id = format_ident!("{}", rust_ident(h));
                quote!(::ptxkit::ops::h::#id)
            });
            let (ct, pads) = coord_list(cs);
            quote!(::ptxkit::ops::HandleAddr<(#(#kinds,)*), #ct, #pads>)
        }
        Src::Coords(cs) => {
            let (ct, pads) = coord_list(cs);
            quote!(::ptxkit::ops::Coords<#ct, #pads>)
        }
    }
}

/// A coordinate list: the tuple of its element kinds and the number of ignored elements
/// after them.
fn coord_list(cs: &[Coord]) -> (TS, Literal) {
    let kinds = cs.iter().filter(|(_, pad)| !pad).map(|(t, _)| dtype(t));
    let pads = cs.iter().filter(|(_, pad)| *pad).count();
    (quote!((#(#kinds,)*)), Literal::usize_unsuffixed(pads))
}

/// The modifier types of a chain's parts after its opcode: `(m::Rn, types::F32)`.
pub fn mods(parts: &[impl AsRef<str>]) -> TS {
    let mods = parts.iter().map(|p| {
        let p = p.as_ref();
        let id = format_ident!("{}", rust_ident(p));
        if vocab::is_dtype(p) {
            quote!(::ptxkit::types::#id)
        } else {
            quote!(::ptxkit::ops::m::#id)
        }
    });
    quote!((#(#mods,)*))
}

/// `Op<op::Opcode, (Modifiers..), v::Variant>`: the name of a form.
pub fn op(f: &Form) -> TS {
    let opcode = format_ident!("{}", rust_ident(&f.parts[0]));
    let mods = mods(&f.parts[1..]);
    let var = format_ident!("{}", rust_ident(&f.variant));
    quote!(::ptxkit::ops::Op<::ptxkit::ops::op::#opcode, #mods, ::ptxkit::ops::v::#var>)
}

/// `Form<Op<..>, Dst, (Operands..)>`: the form as a type.
pub fn form(f: &Form) -> TS {
    let (op, d) = (op(f), dst(&f.dst));
    let srcs = f.srcs.iter().map(src);
    quote!(::ptxkit::ops::Form<#op, #d, (#(#srcs,)*)>)
}

fn zst(id: &proc_macro2::Ident, doc: &str, hidden: bool) -> TS {
    let hide = if hidden { quote!(#[doc(hidden)]) } else { quote!() };
    quote! {
        #[doc = #doc]
        #hide
        #[derive(Clone, Copy, Debug, Default)]
        pub struct #id;
    }
}

/// Hidden token types (a page per token would be most of the crate's documentation), each
/// naming its trait's `NAME`, and the module documentation that lists them instead:
/// `shown` is how a token is written (`.rn`), `what` its kind (`modifier`).
fn hidden_tokens<'a>(
    tokens: impl Iterator<Item = &'a String>,
    shown: impl Fn(&str) -> String,
    what: &str,
    tr: TS,
    intro: &str,
) -> (String, Vec<TS>) {
    let (mut list, mut items) = (vec![], vec![]);
    for tok in tokens {
        let (ty, written) = (rust_ident(tok), shown(tok));
        let id = format_ident!("{}", ty);
        let z = zst(&id, &format!("The {what} `{written}`."), true);
        items.push(quote!(#z impl #tr for #id { const NAME: &'static str = #tok; }));
        list.push(format!("`{written}` `{ty}`"));
    }
    (format!("{intro}\n\n{}", list.join(" · ")), items)
}

/// The token modules: `op` (opcodes), `m` (modifiers), `v` (variants) and `legal` (sets of
/// legal immediates), each a zero-sized type per token the tables use.
pub fn define_tokens(t: &Tables, which: &str) -> Result<TS, String> {
    let (name, doc, items): (&str, String, Vec<TS>) = match which {
        "opcodes" => {
            let intro = "Opcodes: one type per first part of a chain, what `Op<op::Fma, ..>` names. Each opcode and its type:";
            let (doc, items) = hidden_tokens(t.by_opcode.keys(), str::to_string, "opcode", quote!(crate::ops::Opcode), intro);
            ("op", doc, items)
        }
        "modifiers" => {
            let intro = "Modifier types (`m::Rn`, `m::SharedCta`): every modifier the tables use, as a type; data types are in \
                         [`crate::types`]. Each modifier and its type:";
            let (doc, items) = hidden_tokens(t.modifiers.iter(), |m| format!(".{m}"), "modifier", quote!(crate::ops::Part), intro);
            ("m", doc, items)
        }
        "numbered" => {
            // Not a module: the impls of `ops::num::Spell` for the modifiers spelled by numbers.
            let impls = t.modifiers.iter().filter_map(|tok| {
                let (ty, nums) = vocab::numbered(tok)?;
                let (ty, id) = (format_ident!("{}", ty), format_ident!("{}", rust_ident(tok)));
                let nums = nums.iter().map(|&n| Literal::u32_unsuffixed(n));
                Some(quote!(#[diagnostic::do_not_recommend] impl crate::ops::num::Spell for crate::ops::num::#ty<#(#nums),*> { type Part = crate::ops::m::#id; }))
            });
            return Ok(quote!(#(#impls)*));
        }
        "variants" => {
            let items = t
                .variants
                .iter()
                .map(|(v, d)| {
                    let id = format_ident!("{}", rust_ident(v));
                    let z = zst(&id, d, false);
                    quote!(#z impl crate::ops::Variant for #id { const NAME: &'static str = #v; })
                })
                .collect();
            ("v", "Form variants: the same chain with another operand layout (`ptx!(k, \"...\" as pair)`).".to_string(), items)
        }
        "legal" => {
            let items = t
                .legal
                .iter()
                .map(|(name, (text, vals))| {
                    let id = format_ident!("{}", name);
                    let z = zst(&id, &format!("Legal immediates `{text}`."), false);
                    quote! {
                        #z
                        impl crate::ops::Legal for #id { const VALUES: &'static [i64] = &[#(#vals),*]; }
                        #( #[diagnostic::do_not_recommend] impl crate::ops::Admits<#vals> for #id {} )*
                    }
                })
                .collect();
            ("legal", "Sets of legal immediates (`imm(s32: -1|1)` in a table is `ImmIn<S32, legal::Lm1or1>`).".to_string(), items)
        }
        _ => return Err("define_tokens!(opcodes | modifiers | numbered | variants | legal)".into()),
    };
    let name = format_ident!("{}", name);
    Ok(quote! {
        #[doc = #doc]
        pub mod #name {
            #(#items)*
        }
    })
}

/// `families!()`: a module per family (its documentation from the table's header, its
/// forms listed at run time, the selection impls of its `select` rows) and the list of
/// family names.
pub fn families(t: &Tables) -> TS {
    let mods = t.families.iter().enumerate().map(|(i, fam)| {
        let name = format_ident!("{}", fam.name);
        let doc =
            format!("{}\n# The table\n\n`tables/forms/{}.forms`, one row per line:\n\n```text\n{}```\n", fam.doc, fam.name, fam.source);
        let selects = fam.forms.iter().map(|&j| &t.forms[j]).filter(|f| f.select).map(|f| {
            let opcode = format_ident!("{}", rust_ident(&f.parts[0]));
            let (mods, var, form) = (mods(&f.parts[1..]), format_ident!("{}", rust_ident(&f.variant)), form(f));
            quote!(#[doc(hidden)] #[diagnostic::do_not_recommend] impl crate::ops::Select<#mods, crate::ops::v::#var> for crate::ops::op::#opcode { type Form = #form; })
        });
        quote! {
            #[doc = #doc]
            pub mod #name {
                /// Every form of the family, from its table (expanded on first use).
                pub fn forms() -> &'static [crate::ops::FormDesc] {
                    crate::ops::families()[#i].1
                }
                #(#selects)*
            }
        }
    });
    let names = t.families.iter().map(|f| f.name);
    quote! {
        #(#mods)*
        /// The family names, in table order.
        pub const FAMILY_NAMES: &[&str] = &[#(#names),*];
    }
}
