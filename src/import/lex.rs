//! The tokens of PTX text, each with its position: words (names, opcodes, numbers, which
//! PTX does not separate lexically), dotted words (`.global`, `.b32`, `.2d`,
//! `.shared::cluster`), strings, and punctuation. Comments are skipped. Every step consumes
//! at least one character, so no input makes the lexer loop.

use super::ast::Span;
use super::error::ParseError;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    /// A name, an opcode, a number or a label: `ld`, `%r1`, `$L__BB0_2`, `0x1F`, `1.5e3`,
    /// `0f3F800000`, `_`.
    Atom,
    /// `.` followed by a word, the dot included: `.global`, `.v4`, `.2d`, `.shared::cta`.
    Dotted,
    /// `"…"`, quotes included.
    Str,
    /// One punctuation character: `{ } ( ) [ ] , ; : @ ! + - | < > =`.
    Punct(char),
    /// The end of the input.
    End,
}

/// A token: its kind, its text (a slice of the source) and where it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token<'s> {
    pub tok: Tok,
    pub text: &'s str,
    pub span: Span,
    /// Byte offset of the token in the source.
    pub at: usize,
}

/// A character of a word: PTX identifiers are `[A-Za-z0-9_$%]`, and numbers add `.` only
/// inside a decimal float, which [`lex`] handles.
fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '%'
}

/// The tokens of `src`, ending with [`Tok::End`]. An unterminated string or comment, or a
/// character PTX does not use, is an error at its position.
pub fn lex(src: &str) -> Result<Vec<Token<'_>>, ParseError> {
    let mut out = Vec::new();
    let bytes = src.as_bytes();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    // Advances over `n` bytes of ASCII-or-not text, keeping line and column.
    let advance = |i: &mut usize, line: &mut u32, col: &mut u32, n: usize| {
        for ch in src[*i..*i + n].chars() {
            if ch == '\n' {
                *line += 1;
                *col = 1;
            } else {
                *col += 1;
            }
        }
        *i += n;
    };
    while i < bytes.len() {
        let c = src[i..].chars().next().unwrap_or('\0');
        let span = Span { line, col };
        if c.is_whitespace() {
            advance(&mut i, &mut line, &mut col, c.len_utf8());
            continue;
        }
        if src[i..].starts_with("//") {
            let n = src[i..].find('\n').unwrap_or(src.len() - i);
            advance(&mut i, &mut line, &mut col, n);
            continue;
        }
        if src[i..].starts_with("/*") {
            let Some(n) = src[i + 2..].find("*/") else {
                return Err(ParseError::new(span, "the end of the comment `*/`", "the end of the input"));
            };
            advance(&mut i, &mut line, &mut col, n + 4);
            continue;
        }
        let n = if c == '"' {
            let mut j = i + 1;
            loop {
                match bytes.get(j) {
                    None | Some(b'\n') => return Err(ParseError::new(span, "the closing `\"` of the string", "the end of the line")),
                    Some(b'\\') => j += 2,
                    Some(b'"') => break j + 1 - i,
                    Some(_) => j += 1,
                }
            }
        } else if c == '.' && src[i + 1..].chars().next().is_some_and(word_char) {
            1 + word_len(&src[i + 1..])
        } else if word_char(c) {
            let w = word_len(&src[i..]);
            // A decimal float: digits, `.`, digits, an exponent (`1.5`, `2.5e-3`).
            let digits = src[i..i + w].bytes().all(|b| b.is_ascii_digit());
            if digits && src[i + w..].starts_with('.') && src[i + w + 1..].starts_with(|ch: char| ch.is_ascii_digit()) {
                let mut j = i + w + 1;
                j += src[j..].bytes().take_while(u8::is_ascii_digit).count();
                if src[j..].starts_with(['e', 'E']) {
                    let k = j + 1 + src[j + 1..].starts_with(['+', '-']) as usize;
                    if src[k..].starts_with(|ch: char| ch.is_ascii_digit()) {
                        j = k + src[k..].bytes().take_while(u8::is_ascii_digit).count();
                    }
                }
                j - i
            } else {
                // An exponent with a sign inside a word (`1e-3`) is one word too.
                let mut n = w;
                if digits_then_e(&src[i..i + w]) && src[i + w..].starts_with(['+', '-']) {
                    let more = src[i + w + 1..].bytes().take_while(u8::is_ascii_digit).count();
                    if more > 0 {
                        n = w + 1 + more;
                    }
                }
                n
            }
        } else if "{}()[],;:@!+-|<>=".contains(c) {
            1
        } else {
            return Err(ParseError::new(span, "a PTX token", &format!("`{}`", c.escape_default())));
        };
        let tok = match c {
            '"' => Tok::Str,
            '.' => Tok::Dotted,
            c if word_char(c) => Tok::Atom,
            c => Tok::Punct(c),
        };
        out.push(Token { tok, text: &src[i..i + n], span, at: i });
        advance(&mut i, &mut line, &mut col, n);
    }
    out.push(Token { tok: Tok::End, text: "", span: Span { line, col }, at: src.len() });
    Ok(out)
}

/// The length of the word at the start of `s`: word characters, and `::` between them
/// (`shared::cluster`, `mbarrier::complete_tx::bytes`).
fn word_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut n = 0;
    loop {
        while n < b.len() && word_char(b[n] as char) {
            n += 1;
        }
        if n > 0 && s[n..].starts_with("::") && s[n + 2..].starts_with(word_char) {
            n += 2;
        } else {
            return n;
        }
    }
}

/// `1e`, `25E`: digits then an exponent letter (a decimal float whose exponent has a sign).
fn digits_then_e(w: &str) -> bool {
    let b = w.as_bytes();
    b.len() >= 2 && matches!(b[b.len() - 1], b'e' | b'E') && b[..b.len() - 1].iter().all(u8::is_ascii_digit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<(Tok, &str)> {
        lex(s).unwrap().into_iter().map(|t| (t.tok, t.text)).collect()
    }

    #[test]
    fn chains_names_numbers_and_punctuation() {
        let w = words("@!%p1 cp.async.bulk.shared::cluster.global [%r1+16], 0f3F800000, -1.5e-3; // x\n$L__BB0_2: /* c */ 1e-3");
        assert_eq!(
            w,
            [
                (Tok::Punct('@'), "@"),
                (Tok::Punct('!'), "!"),
                (Tok::Atom, "%p1"),
                (Tok::Atom, "cp"),
                (Tok::Dotted, ".async"),
                (Tok::Dotted, ".bulk"),
                (Tok::Dotted, ".shared::cluster"),
                (Tok::Dotted, ".global"),
                (Tok::Punct('['), "["),
                (Tok::Atom, "%r1"),
                (Tok::Punct('+'), "+"),
                (Tok::Atom, "16"),
                (Tok::Punct(']'), "]"),
                (Tok::Punct(','), ","),
                (Tok::Atom, "0f3F800000"),
                (Tok::Punct(','), ","),
                (Tok::Punct('-'), "-"),
                (Tok::Atom, "1.5e-3"),
                (Tok::Punct(';'), ";"),
                (Tok::Atom, "$L__BB0_2"),
                (Tok::Punct(':'), ":"),
                (Tok::Atom, "1e-3"),
                (Tok::End, ""),
            ]
        );
    }

    #[test]
    fn positions_and_errors() {
        let t = lex("a\n  .b \"s\\\"t\"").unwrap();
        assert_eq!((t[1].span.line, t[1].span.col), (2, 3));
        assert_eq!(t[2].text, "\"s\\\"t\"");
        let e = lex("mov.u32 %r1, #3;").unwrap_err();
        assert_eq!((e.span.line, e.span.col), (1, 14));
        assert!(lex("/* open").unwrap_err().to_string().contains("`*/`"));
        assert!(lex("\"open\n").unwrap_err().to_string().contains("closing"));
    }
}
