//! Reading PTX text: a lexer and parser for the PTX that ptxas accepts ([`parse`]), into a
//! syntax tree that keeps every spelling ([`ast`]), a printer that writes it back
//! ([`print`]), the resolution of each instruction to its typed form ([`resolve`]), and
//! the module of a text (`Module::from_ptx`, which fails with an [`ImportError`]), and the
//! builder code that makes it ([`to_rust`], the `ptx2rs` example).

pub mod ast;
mod error;
pub mod lex;
mod module;
pub mod parse;
pub mod print;
pub mod resolve;
mod rust;

pub use module::ImportError;
pub use rust::to_rust;
