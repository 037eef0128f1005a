//! Procedural macros of ptxkit: `ptx!` maps a PTX chain string onto zero-sized types,
//! `forms!` turns a family table (one row per line, PTX-ISA-like notation) into trait impls,
//! and the `define_*` macros declare the token types from the shared vocabulary.

use proc_macro::TokenStream;
use proc_macro2::{Delimiter, Span, TokenStream as TS, TokenTree};
use quote::{format_ident, quote, quote_spanned};

mod forms;
mod vocab;

fn err(span: Span, msg: &str) -> TokenStream {
    quote_spanned!(span=> ::core::compile_error!{ #msg }).into()
}

/// Declares one zero-sized type per opcode (`opcodes`) or modifier (`modifiers`).
#[proc_macro]
pub fn define_tokens(input: TokenStream) -> TokenStream {
    let which = input.to_string();
    let (list, what): (&[&str], &str) = match which.trim() {
        "opcodes" => (vocab::OPCODES, "opcode"),
        "modifiers" => (vocab::MODIFIERS, "modifier"),
        _ => return err(Span::call_site(), "define_tokens!(opcodes | modifiers)"),
    };
    let items = list.iter().map(|tok| {
        let id = format_ident!("{}", vocab::rust_ident(tok));
        let doc = format!("PTX {what} `{tok}`.");
        quote! {
            #[doc = #doc]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct #id;
            impl crate::ops::Token for #id { const TOKEN: &'static str = #tok; }
        }
    });
    quote!(#(#items)*).into()
}

/// The data-type tokens of the vocabulary, as `&[&str]` (checked against `ptxkit::types`).
#[proc_macro]
pub fn dtype_tokens(_: TokenStream) -> TokenStream {
    let l = vocab::DTYPES;
    quote!(&[#(#l),*]).into()
}

/// Opcode and modifier tokens of the vocabulary, as `(&[&str], &[&str])`.
#[proc_macro]
pub fn vocabulary(_: TokenStream) -> TokenStream {
    let o = vocab::OPCODES;
    let m = vocab::MODIFIERS;
    quote!((&[#(#o),*] as &[&str], &[#(#m),*] as &[&str])).into()
}

/// Splits a chain into its parts; errors name the offending part.
pub(crate) fn split_chain(chain: &str) -> Result<Vec<&str>, String> {
    if chain.is_empty() {
        return Err("ptx!: empty instruction string".into());
    }
    let parts: Vec<&str> = chain.split('.').collect();
    for (i, p) in parts.iter().enumerate() {
        if p.is_empty() {
            return Err(format!("ptx!: empty part at position {i} in `{chain}`"));
        }
    }
    if !vocab::is_opcode(parts[0]) {
        return Err(format!("ptx!: unknown opcode `{}` in `{chain}`", parts[0]));
    }
    for p in &parts[1..] {
        if !vocab::is_modifier(p) && !vocab::is_dtype(p) {
            return Err(format!("ptx!: unknown modifier `.{p}` in `{chain}`"));
        }
    }
    Ok(parts)
}

/// The Rust types `(opcode, (modifiers...))` for a checked chain.
pub(crate) fn chain_types(parts: &[&str]) -> (TS, TS) {
    let op = format_ident!("{}", vocab::rust_ident(parts[0]));
    let mods = parts[1..].iter().map(|p| {
        let id = format_ident!("{}", vocab::rust_ident(p));
        if vocab::is_dtype(p) {
            quote!(::ptxkit::types::#id)
        } else {
            quote!(::ptxkit::ops::m::#id)
        }
    });
    (quote!(::ptxkit::ops::op::#op), quote!((#(#mods,)*)))
}

fn split_commas(ts: TS) -> Vec<TS> {
    let mut out = vec![TS::new()];
    for tt in ts {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => out.push(TS::new()),
            _ => out.last_mut().unwrap().extend([tt]),
        }
    }
    if out.last().map_or(false, |t| t.is_empty()) {
        out.pop();
    }
    out
}

/// `ptx!(k, [@p | @!p,] "chain" [as variant] [=> dst], operands...)`
///
/// Maps the chain onto `Op<Opcode, (Modifiers...)>` and calls it. The result type, the
/// operand register classes and the side effects come from the form's trait impl; an
/// unknown opcode or modifier, or an empty part, is a compile error naming it.
#[proc_macro]
pub fn ptx(input: TokenStream) -> TokenStream {
    let args = split_commas(input.into());
    let mut it = args.into_iter();
    let Some(k) = it.next() else { return err(Span::call_site(), "ptx!(k, \"opcode.mods\", operands...)") };
    let mut next = it.next();
    let mut guard = quote!();
    if let Some(g) = &next {
        let mut toks = g.clone().into_iter().peekable();
        if matches!(toks.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '@') {
            toks.next();
            let neg = matches!(toks.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '!');
            if neg {
                toks.next();
            }
            let pred: TS = toks.collect();
            guard = quote!(::ptxkit::ops::guard_next(__k, #pred, #neg););
            next = it.next();
        }
    }
    let Some(head) = next else { return err(Span::call_site(), "ptx!: missing instruction string") };
    let mut head = head.into_iter();
    let (chain, span) = match head.next() {
        Some(TokenTree::Literal(l)) => {
            let s = l.to_string();
            if !(s.starts_with('"') && s.ends_with('"')) {
                return err(l.span(), "ptx!: the instruction must be a string literal");
            }
            (s[1..s.len() - 1].to_string(), l.span())
        }
        Some(t) => return err(t.span(), "ptx!: the instruction must be a string literal"),
        None => return err(Span::call_site(), "ptx!: missing instruction string"),
    };
    let mut variant = quote!(::ptxkit::ops::v::Plain);
    let mut dst: Option<TS> = None;
    let rest: Vec<TokenTree> = head.collect();
    let mut i = 0;
    while i < rest.len() {
        match &rest[i] {
            TokenTree::Ident(id) if id.to_string() == "as" => {
                let Some(TokenTree::Ident(v)) = rest.get(i + 1) else {
                    return err(id.span(), "ptx!: `as` needs a variant name");
                };
                let v = format_ident!("{}", vocab::rust_ident(&v.to_string()));
                variant = quote!(::ptxkit::ops::v::#v);
                i += 2;
            }
            TokenTree::Punct(p) if p.as_char() == '=' => {
                if !matches!(rest.get(i + 1), Some(TokenTree::Punct(q)) if q.as_char() == '>') {
                    return err(p.span(), "ptx!: expected `=>` before the destination");
                }
                dst = Some(rest[i + 2..].iter().cloned().collect());
                i = rest.len();
            }
            t => return err(t.span(), "ptx!: expected `as variant` or `=> destination` after the instruction"),
        }
    }
    let parts = match split_chain(&chain) {
        Ok(p) => p,
        Err(e) => return err(span, &e),
    };
    let (op, mods) = chain_types(&parts);
    let operands: Vec<TS> = it.collect();
    let names: Vec<_> = (0..operands.len()).map(|i| format_ident!("__a{}", i)).collect();
    let ty = quote!(::ptxkit::ops::Op<#op, #mods, #variant>);
    let call = match dst {
        None => quote!(<#ty as ::ptxkit::ops::Call<_>>::call(__k, (#(#names,)*))),
        Some(d) => quote!(<#ty as ::ptxkit::ops::Call<_>>::call_into(__k, #d, (#(#names,)*))),
    };
    let _ = Delimiter::None;
    quote!({
        #(let #names = #operands;)*
        let __k: &mut ::ptxkit::Kernel = &mut *#k;
        #guard
        #call
    })
    .into()
}

/// A family table: rows of `"pattern" "signature";` (see `ptxkit::ops` for the notation).
#[proc_macro]
pub fn forms(input: TokenStream) -> TokenStream {
    match forms::expand(input.into()) {
        Ok(ts) => ts.into(),
        Err((span, msg)) => err(span, &msg),
    }
}
