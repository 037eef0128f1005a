//! Procedural macros of ptxkit. The family tables (`macros/tables/*.forms`, one row per
//! line in PTX-ISA notation) are data that every macro here reads:
//!
//! - `forms!(family)` expands a family into one `impl Form` per form;
//! - `ptx!(k, "chain", ...)` checks the chain against the tables when it expands (in table
//!   order or in another order ptxas accepts, per `macros/tables/orders.tsv`), names the
//!   nearest legal chain when there is none, and calls the form;
//! - `define_tokens!` declares the modifier, key, variant and legal-value types the tables
//!   use, and `families!` lists the families.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TS, TokenTree};
use quote::{format_ident, quote, quote_spanned};

mod forms;
mod notation;
#[allow(dead_code)] // `fingerprint` and `write` serve the sweep and the tests, which include the file by path
mod orders;
mod suggest;
mod tables;
mod vocab;

fn err(span: Span, msg: &str) -> TokenStream {
    quote_spanned!(span=> ::core::compile_error!{ #msg }).into()
}

fn ident_arg(input: TokenStream) -> String {
    input.to_string().trim().to_string()
}

/// Declares the token types the tables use: `modifiers` (`ops::m`), `keys` (`ops::op`),
/// `variants` (`ops::v`) or `legal` (`ops::legal`).
#[proc_macro]
pub fn define_tokens(input: TokenStream) -> TokenStream {
    match forms::define_tokens(&ident_arg(input)) {
        Ok(ts) => ts.into(),
        Err(e) => err(Span::call_site(), &e),
    }
}

/// `forms!(family)`: the family's impls, from `macros/tables/<family>.forms`.
#[proc_macro]
pub fn forms(input: TokenStream) -> TokenStream {
    match forms::expand(&ident_arg(input)) {
        Ok(ts) => ts.into(),
        Err(e) => err(Span::call_site(), &e),
    }
}

/// `families!()`: `&[(name, family::FORMS), ...]` over every table, in table order.
#[proc_macro]
pub fn families(_: TokenStream) -> TokenStream {
    match forms::families() {
        Ok(ts) => ts.into(),
        Err(e) => err(Span::call_site(), &e),
    }
}

/// The data-type tokens the macros know, as `&[&str]` (checked against `ptxkit::types`).
#[proc_macro]
pub fn dtype_tokens(_: TokenStream) -> TokenStream {
    let l = vocab::DTYPES;
    quote!(&[#(#l),*]).into()
}

/// Splits a chain into its parts; errors name the offending part.
fn split_chain(chain: &str) -> Result<Vec<&str>, String> {
    if chain.is_empty() {
        return Err("ptx!: empty instruction string".into());
    }
    let parts: Vec<&str> = chain.split('.').collect();
    for (i, p) in parts.iter().enumerate() {
        if p.is_empty() {
            return Err(format!("ptx!: empty part at position {i} in `{chain}`"));
        }
    }
    Ok(parts)
}

fn string_lit(t: Option<TokenTree>, what: &str) -> Result<(String, Span), (Span, String)> {
    match t {
        // A literal passed through a `macro_rules!` fragment arrives in an invisible group.
        Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::None => {
            let mut inner = g.stream().into_iter();
            match (inner.next(), inner.next()) {
                (Some(t), None) => string_lit(Some(t), what),
                _ => Err((g.span(), format!("{what} must be a string literal"))),
            }
        }
        Some(TokenTree::Literal(l)) => {
            let s = l.to_string();
            if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
                Ok((s[1..s.len() - 1].to_string(), l.span()))
            } else {
                Err((l.span(), format!("{what} must be a string literal")))
            }
        }
        Some(t) => Err((t.span(), format!("{what} must be a string literal"))),
        None => Err((Span::call_site(), format!("{what} is missing"))),
    }
}

/// `mods!("ld.acquire.gpu")`: the modifier types of a chain's parts after its opcode,
/// `(m::Acquire, m::Gpu)`, for code that composes chains from typed pieces (the ordering
/// table of the intrinsics).
#[proc_macro]
pub fn mods(input: TokenStream) -> TokenStream {
    let (text, span) = match string_lit(TS::from(input).into_iter().next(), "mods!: the argument") {
        Ok(x) => x,
        Err((s, m)) => return err(s, &m),
    };
    let t = match tables::tables() {
        Ok(t) => t,
        Err(e) => return err(span, e),
    };
    let parts: Vec<&str> = text.split('.').collect();
    if !t.by_opcode.contains_key(parts[0]) {
        return err(span, &format!("mods!: `{}` is not an opcode of any table", parts[0]));
    }
    let mut out = vec![];
    for p in &parts[1..] {
        if !t.is_token(p) {
            return err(span, &format!("mods!: `.{p}` is not a token of any table"));
        }
        let id = format_ident!("{}", vocab::rust_ident(p));
        out.push(if vocab::is_dtype(p) { quote!(::ptxkit::types::#id) } else { quote!(::ptxkit::ops::m::#id) });
    }
    quote!((#(#out,)*)).into()
}

/// Splits on the top-level commas, not those between the generic arguments of a turbofish
/// (`a.halves::<3, 0>()`: angle brackets are no token groups).
fn split_commas(ts: TS) -> Vec<TS> {
    let mut out = vec![TS::new()];
    let (mut angle, mut colons) = (0u32, 0u32);
    for tt in ts {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' && angle == 0 => {
                out.push(TS::new());
                colons = 0;
                continue;
            }
            TokenTree::Punct(p) if p.as_char() == '<' && (angle > 0 || colons >= 2) => angle += 1,
            TokenTree::Punct(p) if p.as_char() == '>' && angle > 0 => angle -= 1,
            _ => {}
        }
        colons = match &tt {
            TokenTree::Punct(p) if p.as_char() == ':' => colons + 1,
            _ => 0,
        };
        out.last_mut().expect("one group at least").extend([tt]);
    }
    if out.last().is_some_and(|t| t.is_empty()) {
        out.pop();
    }
    out
}

/// The form a chain names (its table order, or another order ptxas accepts for exactly one
/// form; otherwise an error at the literal), with its key, modifier and variant types.
fn resolve(chain: &str, span: Span, variant: &str) -> Result<(usize, TS, TS, TS), (Span, String)> {
    let parts = split_chain(chain).map_err(|e| (span, e))?;
    let t = tables::tables().map_err(|e| (span, e.to_string()))?;
    let form = match t.index.get(&(chain.to_string(), variant.to_string())) {
        Some(&i) => i,
        None => match t.reordered(&parts, variant).map_err(|e| (span, e.to_string()))?[..] {
            [i] => i,
            _ => return Err((span, suggest::explain(t, chain, &parts, variant))),
        },
    };
    let (key, mods) = forms::chain_types(&t.forms[form].parts);
    Ok((form, key, mods, forms::variant_type(variant)))
}

/// `Op<Key, (Modifiers...), Variant>` of the form a chain names.
fn op_type(chain: &str, span: Span, variant: &str) -> Result<TS, (Span, String)> {
    let (_, key, mods, var) = resolve(chain, span, variant)?;
    Ok(quote!(::ptxkit::ops::Op<#key, #mods, #var>))
}

/// `op!("chain" [as variant])`: the type of the form, `Op<Key, (Modifiers...), Variant>`,
/// checked as `ptx!` checks a chain (any order ptxas accepts names the table form).
#[proc_macro]
pub fn op(input: TokenStream) -> TokenStream {
    let mut it = TS::from(input).into_iter();
    let r = string_lit(it.next(), "op!: the instruction").and_then(|(chain, span)| {
        let variant = match (it.next(), it.next(), it.next()) {
            (None, _, _) => "plain".to_string(),
            (Some(TokenTree::Ident(a)), Some(TokenTree::Ident(v)), None) if a == "as" => v.to_string(),
            (Some(t), _, _) => return Err((t.span(), "op!: expected `as variant` after the instruction".to_string())),
        };
        op_type(&chain, span, &variant)
    });
    match r {
        Ok(ts) => ts.into(),
        Err((span, msg)) => err(span, &msg),
    }
}

/// `ptx!(k, [@p | @!p,] "chain" [as variant] [=> dst], operands...)`
///
/// Checks the chain against the family tables when it expands. The parts may come in any
/// order ptxas accepts (`ld.global.relaxed.gpu.u32` is `ld.relaxed.gpu.global.u32`: the
/// rules measured with ptxas in `macros/tables/orders.tsv`); the call is the table form's, and
/// prints in table order. An unknown opcode or modifier, an order ptxas rejects
/// (`mul.u32.wide`) or a misspelt part is a compile error naming the nearest legal chain.
/// Then it calls `Op<Key, (Modifiers...), Variant>`, whose impl fixes the result type and
/// the operand kinds. `@p` guards the instruction; `=> dst`
/// writes an existing destination (and is required for a tied accumulator).
#[proc_macro]
pub fn ptx(input: TokenStream) -> TokenStream {
    match ptx_impl(input.into()) {
        Ok(ts) => ts.into(),
        Err((span, msg)) => err(span, &msg),
    }
}

fn ptx_impl(input: TS) -> Result<TS, (Span, String)> {
    let mut it = split_commas(input).into_iter();
    let k = it.next().ok_or((Span::call_site(), "ptx!(k, \"opcode.mods\", operands...)".to_string()))?;
    let mut next = it.next();
    let mut guard = None;
    if let Some(g) = &next {
        let mut toks = g.clone().into_iter().peekable();
        if matches!(toks.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '@') {
            toks.next();
            let neg = matches!(toks.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '!');
            if neg {
                toks.next();
            }
            guard = Some((toks.collect::<TS>(), neg));
            next = it.next();
        }
    }
    let mut head = next.ok_or((Span::call_site(), "ptx!: missing instruction string".to_string()))?.into_iter();
    let (chain, span) = string_lit(head.next(), "ptx!: the instruction")?;
    let mut variant = "plain".to_string();
    let mut dst: Option<TS> = None;
    let rest: Vec<TokenTree> = head.collect();
    let mut i = 0;
    while i < rest.len() {
        match &rest[i] {
            TokenTree::Ident(id) if id == "as" => {
                let Some(TokenTree::Ident(v)) = rest.get(i + 1) else {
                    return Err((id.span(), "ptx!: `as` needs a variant name".into()));
                };
                variant = v.to_string();
                i += 2;
            }
            TokenTree::Punct(p) if p.as_char() == '=' => {
                if !matches!(rest.get(i + 1), Some(TokenTree::Punct(q)) if q.as_char() == '>') {
                    return Err((p.span(), "ptx!: expected `=>` before the destination".into()));
                }
                dst = Some(rest[i + 2..].iter().cloned().collect());
                i = rest.len();
            }
            t => return Err((t.span(), "ptx!: expected `as variant` or `=> destination` after the instruction".into())),
        }
    }
    let (form, key, mods, var) = resolve(&chain, span, &variant)?;
    let t = tables::tables().map_err(|e| (span, e.to_string()))?;
    let ty = quote!(::ptxkit::ops::Op<#key, #mods, #var>);
    let operands: Vec<TS> = it.collect();
    let names: Vec<_> = (0..operands.len()).map(|i| format_ident!("__a{}", i)).collect();
    let (pred_let, g) = match guard {
        None => (quote!(), quote!(::core::option::Option::None)),
        Some((p, neg)) => (quote!(let __p = #p;), quote!(::ptxkit::ops::guard_of(__k, __p, #neg))),
    };
    let (dst_let, call) = match dst {
        None => (quote!(), quote!(<#ty as ::ptxkit::ops::Call<_>>::call_if(__k, __g, (#(#names,)*)))),
        // A register with a part selector (`d.h1()`) becomes the form's destination type.
        Some(d) if matches!(t.forms[form].dst, notation::Dst::Part(..)) => (
            quote!(let __d = ::ptxkit::ops::IntoDst::<<#key as ::ptxkit::ops::Form<#mods, #var>>::Dst>::into_dst(#d);),
            quote!(<#ty as ::ptxkit::ops::Call<_>>::call_into_if(__k, __g, __d, (#(#names,)*))),
        ),
        Some(d) => (quote!(let __d = #d;), quote!(<#ty as ::ptxkit::ops::Call<_>>::call_into_if(__k, __g, __d, (#(#names,)*)))),
    };
    Ok(quote!({
        #(let #names = #operands;)*
        #pred_let
        #dst_let
        let __k: &mut ::ptxkit::Kernel = &mut *#k;
        let __g = #g;
        #call
    }))
}
