//! A syntax error of PTX text.

use super::ast::Span;
use std::fmt;

/// A syntax error: where, what the parser expected there, and what it found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub span: Span,
    pub expected: String,
    pub found: String,
}

impl ParseError {
    pub(crate) fn new(span: Span, expected: &str, found: &str) -> ParseError {
        ParseError { span, expected: expected.to_string(), found: found.to_string() }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "line {}, column {}: expected {}, found {}", self.span.line, self.span.col, self.expected, self.found)
    }
}

impl std::error::Error for ParseError {}
