//! The tokens of PTX text, each with its position: words (names, opcodes, numbers, which
//! PTX does not separate lexically), dotted words (`.global`, `.b32`, `.2d`,
//! `.shared::cluster`), strings, and punctuation. Comments are skipped.
//!
//! The [`Lexer`] streams: each call scans one token from the text's bytes, so no token list
//! is built. Everything outside comments and strings is ASCII, so a token's column is its
//! byte distance from an anchor whose column is known: the start of its line, or the end of
//! the last comment, string or non-ASCII space on the line (where characters are counted,
//! once). Every step consumes at least one byte, and every slice of the text ends at an
//! ASCII byte or at the end, so no input makes the lexer loop or cut a character.

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

/// The class of each byte, as bits (tested bit by bit, the most frequent first: a match on
/// the class compiles to a jump table, which costs a mispredicted branch a byte).
const WORD: u8 = 1;
const SPACE: u8 = 2;
const PUNCT: u8 = 4;
const DOT: u8 = 8;
const QUOTE: u8 = 16;
/// What starts a comment, a non-ASCII space or no token: `/`, every non-ASCII byte (which
/// [`Lexer::scan`] decodes) and what PTX does not use.
const SLOW: u8 = 32;

/// Words are `[A-Za-z0-9_$%]`; spaces are those of `char::is_whitespace` below 128.
const CLASS: [u8; 256] = {
    let mut t = [SLOW; 256];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        t[c] = match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'$' | b'%' => WORD,
            b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r' => SPACE,
            b'{' | b'}' | b'(' | b')' | b'[' | b']' | b',' | b';' | b':' | b'@' | b'!' | b'+' | b'-' | b'|' | b'<' | b'>' | b'=' => PUNCT,
            b'.' => DOT,
            b'"' => QUOTE,
            _ => SLOW,
        };
        c += 1;
    }
    t
};

pub(crate) fn is_word(b: Option<&u8>) -> bool {
    b.is_some_and(|&c| CLASS[c as usize] & WORD != 0)
}

/// A streaming lexer over `src`. It holds the current token (its kind, text and start),
/// with the line and anchor that give its position; [`Lexer::bump`] lexes the next one.
#[derive(Clone)]
pub struct Lexer<'s> {
    src: &'s str,
    tok: Tok,
    text: &'s str,
    start: usize,
    /// The line of `start`.
    line: u32,
    /// A byte offset whose column is `anchor_col`, with only ASCII and no line break between
    /// it and `start`.
    anchor: usize,
    anchor_col: u32,
    error: Option<ParseError>,
}

impl<'s> Lexer<'s> {
    /// A lexer at the first token of `src`.
    pub fn new(src: &'s str) -> Lexer<'s> {
        let mut lx = Lexer { src, tok: Tok::End, text: "", start: 0, line: 1, anchor: 0, anchor_col: 1, error: None };
        lx.scan(0);
        lx
    }

    /// What the current token is.
    #[inline]
    pub fn tok(&self) -> Tok {
        self.tok
    }
    /// The current token's text.
    #[inline]
    pub fn text(&self) -> &'s str {
        self.text
    }
    /// The byte offset of the current token.
    #[inline]
    pub fn at(&self) -> usize {
        self.start
    }
    /// The line of the current token.
    #[inline]
    pub fn line(&self) -> u32 {
        self.line
    }
    /// The position of the current token.
    pub fn span(&self) -> Span {
        self.span_at(self.start)
    }
    /// The current token.
    pub fn token(&self) -> Token<'s> {
        Token { tok: self.tok, text: self.text, span: self.span(), at: self.start }
    }

    /// The current token, and the lexer at the next one.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Token<'s> {
        let t = self.token();
        self.bump();
        t
    }

    /// On to the next token; at [`Tok::End`], nothing.
    #[inline]
    pub fn bump(&mut self) {
        let end = self.start + self.text.len();
        match self.tok {
            Tok::End => {}
            // An escaped line break or a non-ASCII character inside.
            Tok::Str => {
                self.pass(self.start, end);
                self.scan(end);
            }
            // Punctuation that touches the token (`%r1,`, `[%rd1]`) needs no scan.
            _ => match self.src.as_bytes().get(end) {
                Some(&c) if CLASS[c as usize] & PUNCT != 0 => self.set(Tok::Punct(c as char), end, end + 1),
                _ => self.scan(end),
            },
        }
    }

    /// On to the token at or after byte `end`, for a caller that has read the text from the
    /// current token up to `end` itself and found only ASCII and no line break there (so
    /// the line and the anchor still hold).
    pub(crate) fn skip_to(&mut self, end: usize) {
        debug_assert!(self.src.as_bytes()[self.start..end].iter().all(|&c| c.is_ascii() && c != b'\n'));
        self.scan(end);
    }

    /// The current dotted word and those that touch it (`.global.nc.v4.f32` after `ld`), as
    /// one text, the lexer moved past them: what [`Lexer::bump`] over each gives, in one step.
    pub fn take_dotted(&mut self) -> &'s str {
        let b = self.src.as_bytes();
        let start = self.start;
        let mut end = start + self.text.len();
        while b.get(end) == Some(&b'.') && is_word(b.get(end + 1)) {
            end = word_end(b, end + 1);
        }
        self.scan(end);
        &self.src[start..end]
    }

    /// The first character that is no token, if the lexer met one: an unterminated string
    /// or comment, or a character PTX does not use, at its position.
    pub fn error(&self) -> Option<&ParseError> {
        self.error.as_ref()
    }

    /// The position of byte `at` of the current line (at or after the anchor).
    fn span_at(&self, at: usize) -> Span {
        let d = u32::try_from(at - self.anchor).unwrap_or(u32::MAX);
        Span { line: self.line, col: self.anchor_col.saturating_add(d) }
    }

    /// Moves the anchor past `self.src[from..to]`, text of any kind (a comment, a string, a
    /// non-ASCII space): its line breaks are counted, and so are the characters after the
    /// last of them where any is not ASCII.
    fn pass(&mut self, from: usize, to: usize) {
        let seg = &self.src.as_bytes()[from..to];
        let (start, col) = match seg.iter().rposition(|&c| c == b'\n') {
            Some(k) => {
                let breaks = seg.iter().filter(|&&c| c == b'\n').count();
                self.line = self.line.saturating_add(u32::try_from(breaks).unwrap_or(u32::MAX));
                (from + k + 1, 1)
            }
            None => (self.anchor, self.anchor_col),
        };
        let rest = &self.src.as_bytes()[start.max(from)..to];
        if rest.is_ascii() {
            self.anchor = start;
            self.anchor_col = col;
        } else {
            // Characters are the bytes that do not continue one.
            let chars = self.src.as_bytes()[start..to].iter().filter(|&&c| c & 0xC0 != 0x80).count();
            self.anchor = to;
            self.anchor_col = col.saturating_add(u32::try_from(chars).unwrap_or(u32::MAX));
        }
    }

    /// The lexer stops at `at` with `expected`, having found `found`: [`Tok::End`] from now on.
    #[cold]
    fn fail(&mut self, at: usize, expected: &str, found: &str) {
        self.error = Some(ParseError::new(self.span_at(at), expected, found));
        self.set(Tok::End, at, at);
    }

    fn set(&mut self, tok: Tok, start: usize, end: usize) {
        self.tok = tok;
        self.start = start;
        self.text = &self.src[start..end];
    }

    /// Past the comment or the non-ASCII space at `i`, if one starts there; `None` where a
    /// token (or no token: an error) starts, and at a comment that does not end (the lexer
    /// stopped).
    #[cold]
    fn skip_slow(&mut self, i: usize) -> Option<usize> {
        let b = self.src.as_bytes();
        let end = match b.get(i..i + 2) {
            Some(b"//") => self.src[i..].find('\n').map_or(b.len(), |n| i + n),
            Some(b"/*") => match self.src[i + 2..].find("*/") {
                Some(n) => i + n + 4,
                None => {
                    self.fail(i, "the end of the comment `*/`", "the end of the input");
                    return None;
                }
            },
            _ => {
                let ch = self.src[i..].chars().next().filter(|c| !c.is_ascii() && c.is_whitespace())?;
                i + ch.len_utf8()
            }
        };
        self.pass(i, end);
        Some(end)
    }

    /// The end of the string that starts at `i`, or the error of one that the line ends.
    #[cold]
    fn string(&mut self, i: usize) {
        let b = self.src.as_bytes();
        let mut j = i + 1;
        loop {
            match b.get(j) {
                None | Some(b'\n') => return self.fail(i, "the closing `\"` of the string", "the end of the line"),
                Some(b'\\') => j += 2,
                Some(b'"') => return self.set(Tok::Str, i, j + 1),
                Some(_) => j += 1,
            }
        }
    }

    /// Lexes the token after the spaces and comments at `i`: ASCII spaces, words and
    /// punctuation here, the rest in [`Lexer::scan_slow`] (so that this path stays short).
    fn scan(&mut self, mut i: usize) {
        let b = self.src.as_bytes();
        loop {
            while let Some(&c) = b.get(i) {
                let class = CLASS[c as usize];
                if class & SPACE != 0 {
                    i += 1;
                    if c == b'\n' {
                        self.line = self.line.saturating_add(1);
                        self.anchor = i;
                        self.anchor_col = 1;
                    }
                } else if class & WORD != 0 {
                    return self.set(Tok::Atom, i, atom_end(b, i));
                } else if class & PUNCT != 0 {
                    return self.set(Tok::Punct(c as char), i, i + 1);
                } else if class & DOT != 0 && is_word(b.get(i + 1)) {
                    return self.set(Tok::Dotted, i, word_end(b, i + 1));
                } else {
                    break;
                }
            }
            match self.scan_slow(i) {
                Some(end) => i = end,
                None => return,
            }
        }
    }

    /// [`Lexer::scan`] at the end of the input, a string or what is no token (the token
    /// set, `None`), or at a comment or a non-ASCII space (skipped: where to go on).
    #[cold]
    fn scan_slow(&mut self, i: usize) -> Option<usize> {
        let b = self.src.as_bytes();
        let Some(&c) = b.get(i) else {
            self.set(Tok::End, i, i);
            return None;
        };
        if CLASS[c as usize] & SLOW != 0 {
            match self.skip_slow(i) {
                Some(end) => return Some(end),
                None if self.error.is_some() => return None,
                None => {}
            }
        }
        if CLASS[c as usize] & QUOTE != 0 {
            self.string(i);
        } else {
            let ch = self.src[i..].chars().next().unwrap_or_default();
            self.fail(i, "a PTX token", &format!("`{}`", ch.escape_default()));
        }
        None
    }
}

/// The end of the word that starts at `i`: word characters, and `::` between them
/// (`shared::cluster`, `mbarrier::complete_tx::bytes`).
#[inline]
pub(crate) fn word_end(b: &[u8], i: usize) -> usize {
    let mut n = i;
    loop {
        while n < b.len() && CLASS[b[n] as usize] & WORD != 0 {
            n += 1;
        }
        if n + 2 < b.len() && b[n] == b':' && b[n + 1] == b':' && CLASS[b[n + 2] as usize] & WORD != 0 {
            n += 2;
        } else {
            return n;
        }
    }
}

/// The end of the atom that starts at `i`: a word, and for a number, the fraction and
/// exponent of a decimal float (`1.5`, `2.5e-3`, and `1e-3`, whose signed exponent makes it
/// one word too).
pub(crate) fn atom_end(b: &[u8], i: usize) -> usize {
    let n = word_end(b, i);
    if !b[i].is_ascii_digit() {
        return n;
    }
    let w = &b[i..n];
    let digits = |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    if w.iter().all(u8::is_ascii_digit) {
        if b.get(n) == Some(&b'.') && b.get(n + 1).is_some_and(u8::is_ascii_digit) {
            let mut j = digits(n + 1);
            if matches!(b.get(j), Some(b'e' | b'E')) {
                let k = j + 1 + usize::from(matches!(b.get(j + 1), Some(b'+' | b'-')));
                if b.get(k).is_some_and(u8::is_ascii_digit) {
                    j = digits(k);
                }
            }
            return j;
        }
    } else if w.len() >= 2
        && matches!(w[w.len() - 1], b'e' | b'E')
        && w[..w.len() - 1].iter().all(u8::is_ascii_digit)
        && matches!(b.get(n), Some(b'+' | b'-'))
        && b.get(n + 1).is_some_and(u8::is_ascii_digit)
    {
        return digits(n + 1);
    }
    n
}

/// The tokens of `src`, ending with [`Tok::End`]. An unterminated string or comment, or a
/// character PTX does not use, is an error at its position.
pub fn lex(src: &str) -> Result<Vec<Token<'_>>, ParseError> {
    let mut lx = Lexer::new(src);
    let mut out = Vec::new();
    loop {
        if let Some(e) = lx.error.take() {
            return Err(e);
        }
        let t = lx.next();
        out.push(t);
        if t.tok == Tok::End {
            return Ok(out);
        }
    }
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
        // A dotted word is not a float: `.2d`, and `.5` after a word.
        assert_eq!(words(".2d x.5"), [(Tok::Dotted, ".2d"), (Tok::Atom, "x"), (Tok::Dotted, ".5"), (Tok::End, "")]);
        assert_eq!(
            words("1.5.x 2e+"),
            [(Tok::Atom, "1.5"), (Tok::Dotted, ".x"), (Tok::Atom, "2e"), (Tok::Punct('+'), "+"), (Tok::End, "")]
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

    /// Comments and spaces, however many in a row, are skipped in a loop (no recursion), and
    /// a run of touching dotted words is what the tokens one by one give.
    #[test]
    fn long_runs() {
        let text = format!("{}{}x", "// c\n".repeat(200_000), "\u{a0}".repeat(100_000));
        assert_eq!(words(&text), [(Tok::Atom, "x"), (Tok::End, "")]);
        let mut lx = Lexer::new("ld.global.nc::x.v4 .f32;");
        lx.bump();
        assert_eq!((lx.take_dotted(), lx.tok(), lx.text()), (".global.nc::x.v4", Tok::Dotted, ".f32"));
        assert_eq!((lx.take_dotted(), lx.tok()), (".f32", Tok::Punct(';')));
    }

    /// Columns count characters: after a comment, a string or a space that is not ASCII,
    /// and after a string whose escaped line break starts a new line.
    #[test]
    fn columns_after_text_that_is_not_ascii() {
        fn spans(s: &str) -> Vec<(&str, u32, u32)> {
            lex(s).unwrap().into_iter().map(|t| (t.text, t.span.line, t.span.col)).collect()
        }
        assert_eq!(spans("/* é */ a \"ü\" b\u{a0}c"), [("a", 1, 9), ("\"ü\"", 1, 11), ("b", 1, 15), ("c", 1, 17), ("", 1, 18)]);
        assert_eq!(spans("// ééé\n  x /* ä\n é */ y"), [("x", 2, 3), ("y", 3, 7), ("", 3, 8)]);
        assert_eq!(spans("\"a\\\nb\" c"), [("\"a\\\nb\"", 1, 1), ("c", 2, 4), ("", 2, 5)]);
        let e = lex("x /* ü */ ü").unwrap_err();
        assert_eq!((e.span.line, e.span.col, e.found.as_str()), (1, 11, "`\\u{fc}`"));
        // A character cut by a backslash inside a string stays whole.
        assert_eq!(spans("\"\\é\" z")[1], ("z", 1, 6));
    }
}
