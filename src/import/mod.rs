//! Reading PTX text: a lexer and parser for the PTX that ptxas accepts ([`parse`]), into a
//! syntax tree that keeps every spelling ([`ast`]), a printer that writes it back
//! ([`print`]), and the resolution of each instruction to its typed form ([`resolve`]).

pub mod ast;
mod error;
pub mod lex;
pub mod parse;
pub mod print;
pub mod resolve;
