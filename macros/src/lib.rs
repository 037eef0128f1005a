//! Procedural macros of ptxkit. The family tables (`ptxkit-tables`: one file per family,
//! one row per line in PTX-ISA notation) are data that every macro here reads:
//!
//! - `ptx!(k, "chain", ...)` checks the chain against the tables when it expands (in table
//!   order or in another order ptxas accepts, per `tables/orders.tsv`), names the nearest
//!   legal chain when there is none, and calls the form, whose type it writes:
//!   `Form<Op<Opcode, (Modifiers..), Variant>, Dst, (Operands..)>`;
//! - `op!("chain")` names that type;
//! - `families!` declares the family modules and the selection impls of `select` rows,
//!   `define_tokens!` the opcode, modifier, variant and legal-value types the tables use.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TS, TokenTree};
use ptxkit_tables::{suggest, tables, vocab, Dst, Tables};
use quote::{format_ident, quote, quote_spanned};

mod gen;

fn err(span: Span, msg: &str) -> TokenStream {
    quote_spanned!(span=> ::core::compile_error!{ #msg }).into()
}

fn ident_arg(input: TokenStream) -> String {
    input.to_string().trim().to_string()
}

fn tables_or_err() -> Result<&'static Tables, TokenStream> {
    tables().map_err(|e| err(Span::call_site(), e))
}

/// Declares the token types the tables use: `opcodes` (`ops::op`), `modifiers` (`ops::m`),
/// `variants` (`ops::v`) or `legal` (`ops::legal`). For ptxkit's own use.
#[doc(hidden)]
#[proc_macro]
pub fn define_tokens(input: TokenStream) -> TokenStream {
    let t = match tables_or_err() {
        Ok(t) => t,
        Err(e) => return e,
    };
    match gen::define_tokens(t, &ident_arg(input)) {
        Ok(ts) => ts.into(),
        Err(e) => err(Span::call_site(), &e),
    }
}

/// `families!()`: a module per family table (its documentation from the table's header and
/// the selection impls of its `select` rows), and `FAMILY_NAMES`. For ptxkit's own use.
#[doc(hidden)]
#[proc_macro]
pub fn families(_: TokenStream) -> TokenStream {
    match tables_or_err() {
        Ok(t) => gen::families(t).into(),
        Err(e) => e,
    }
}

/// The data-type tokens the macros know, as `&[&str]` (checked against `ptxkit::types`).
/// For ptxkit's own use.
#[doc(hidden)]
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
/// table of the intrinsics). For ptxkit's own use.
#[doc(hidden)]
#[proc_macro]
pub fn mods(input: TokenStream) -> TokenStream {
    let (text, span) = match string_lit(TS::from(input).into_iter().next(), "mods!: the argument") {
        Ok(x) => x,
        Err((s, m)) => return err(s, &m),
    };
    let t = match tables() {
        Ok(t) => t,
        Err(e) => return err(span, e),
    };
    let parts: Vec<&str> = text.split('.').collect();
    if !t.by_opcode.contains_key(parts[0]) {
        return err(span, &format!("mods!: `{}` is not an opcode of any table", parts[0]));
    }
    if let Some(p) = parts[1..].iter().find(|p| !t.is_token(p)) {
        return err(span, &format!("mods!: `.{p}` is not a token of any table"));
    }
    gen::mods(&parts[1..]).into()
}

/// `ts` with every token at `span` (so that an error in it is reported there).
fn respan(ts: TS, span: Span) -> TS {
    ts.into_iter()
        .map(|mut t| {
            if let TokenTree::Group(g) = &t {
                let mut n = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                n.set_span(span);
                t = TokenTree::Group(n);
            } else {
                t.set_span(span);
            }
            t
        })
        .collect()
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
/// form; otherwise an error at the literal).
fn resolve(chain: &str, span: Span, variant: &str) -> Result<&'static ptxkit_tables::Form, (Span, String)> {
    let parts = split_chain(chain).map_err(|e| (span, e))?;
    let t = tables().map_err(|e| (span, e.to_string()))?;
    match t.resolve(&parts, variant) {
        Some(i) => Ok(&t.forms[i]),
        None => Err((span, suggest::explain(t, chain, &parts, variant))),
    }
}

/// `op!("chain" [as variant])`: the type of the form, `Form<Op<Opcode, (Modifiers..),
/// Variant>, Dst, (Operands..)>`, checked as `ptx!` checks a chain (any order ptxas accepts
/// names the table form).
#[proc_macro]
pub fn op(input: TokenStream) -> TokenStream {
    let mut it = TS::from(input).into_iter();
    let r = string_lit(it.next(), "op!: the instruction").and_then(|(chain, span)| {
        let variant = match (it.next(), it.next(), it.next()) {
            (None, _, _) => "plain".to_string(),
            (Some(TokenTree::Ident(a)), Some(TokenTree::Ident(v)), None) if a == "as" => v.to_string(),
            (Some(t), _, _) => return Err((t.span(), "op!: expected `as variant` after the instruction".to_string())),
        };
        resolve(&chain, span, &variant).map(gen::form)
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
/// Then it calls the form's type, `Form<Op<Opcode, (Modifiers..), Variant>, Dst,
/// (Operands..)>`, whose parameters fix the result type and the operand kinds. `@p` guards the instruction; `=> dst`
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
    let form = resolve(&chain, span, &variant)?;
    let ty = gen::form(form);
    let operands: Vec<TS> = it.collect();
    if operands.len() != form.srcs.len() {
        let kinds: Vec<String> = form.srcs.iter().map(|k| k.to_string()).collect();
        let takes = match kinds.len() {
            0 => "no operands".to_string(),
            1 => format!("1 operand, `{}`", kinds[0]),
            n => format!("{n} operands, `{}`", kinds.join(", ")),
        };
        let variant = if form.variant == "plain" { String::new() } else { format!(" as {}", form.variant) };
        return Err((span, format!("ptx!: `{}`{variant} takes {takes}; {} given", form.chain, operands.len())));
    }
    let names: Vec<_> = (0..operands.len()).map(|i| format_ident!("__a{}", i)).collect();
    // Each operand is lowered as its kind, written where the operand is, so a wrong one is
    // reported at itself, with what the instruction expects there.
    let opcode = form.chain.split('.').next().unwrap_or_default();
    let lower: Vec<TS> = operands
        .iter()
        .zip(&form.srcs)
        .zip(&names)
        .enumerate()
        .map(|(i, ((o, kind), name))| {
            // Resolved as the macro's own code is (the operand may come from another macro),
            // located at the operand.
            let at = Span::call_site().located_at(o.clone().into_iter().next().map_or(Span::call_site(), |t| t.span()));
            // A data operand of ld/st/cvt also takes a wider register (`r.wide()`).
            let kind =
                if ptxkit_tables::wide::src(opcode, i) { gen::wide_src(kind, ptxkit_tables::wide::braced(opcode)) } else { gen::src(kind) };
            respan(quote!(__o.push(::ptxkit::ops::Operand::<#kind>::lower(#name, __k));), at)
        })
        .collect();
    let lower = quote!(|__k: &mut ::ptxkit::Kernel, __o: &mut ::std::vec::Vec<::ptxkit::ops::Opnd>| { #(#lower)* });
    let (pred_let, g) = match guard {
        None => (quote!(), quote!(::core::option::Option::None)),
        Some((p, neg)) => (quote!(let __p = #p;), quote!(::ptxkit::ops::guard_of(__k, __p, #neg))),
    };
    let (dst_let, call) = match dst {
        None => (quote!(), quote!(::ptxkit::ops::emit_new::<#ty>(__k, __g, #lower))),
        // A register with a part selector (`d.h1()`) becomes the form's destination type.
        Some(d) if matches!(form.dst, Dst::Part(..)) => (
            quote!(let __d = ::ptxkit::ops::IntoDst::<<#ty as ::ptxkit::ops::Instr>::Out>::into_dst(#d);),
            quote!(::ptxkit::ops::emit::<#ty>(__k, __g, __d, #lower)),
        ),
        // A destination of ld/cvt may be a wider register (`r.wide()`), and one of ld in
        // braces (`r.braced()`): the call gives back what it was given.
        Some(d) if ptxkit_tables::wide::dst(opcode) => (
            {
                let b = if ptxkit_tables::wide::braced(opcode) { quote!(::ptxkit::ops::Braceable) } else { quote!(::ptxkit::ops::Bare) };
                quote!(let __w = #d; let __d = ::ptxkit::ops::WideDst::<<#ty as ::ptxkit::ops::Instr>::Out, #b>::into_dst(__w);)
            },
            quote!({ ::ptxkit::ops::emit_into::<#ty, _>(__k, __g, __d, #lower); __w }),
        ),
        Some(d) => (quote!(let __d = #d;), quote!(::ptxkit::ops::emit_into::<#ty, _>(__k, __g, __d, #lower))),
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
