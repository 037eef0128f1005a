//! A short path for the operand lists that compilers write. Most are names and numbers
//! (`%f4`, `0f3F800000`, `-1`), an address with an offset (`[%rd3+16]`), a braced vector
//! (`{%f4, %f5}`) or a pair (`%r3|%p2`), separated by commas and spaces on one line and
//! ended by `;`, after a chain whose words touch and a guard that touches its predicate.
//! [`Parser::quick_instruction`] reads an instruction of just those shapes from the bytes,
//! with no token made, and moves the lexer once, past the `;`; [`Parser::quick_operands`]
//! reads the operands of one whose guard or chain the general parser read, and
//! [`Parser::quick_loc`] a `.loc` line of plain numbers. At the first byte of any other shape they give up having
//! taken nothing, and the general parser reads the instruction or the list from the same
//! token: so what is accepted and what is refused, and where, is the general parser's.
//!
//! Each shape gives the operand that the general parser gives for it (`primary`, then at
//! most one offset or pair), in the same arena. The helpers that make an operand are
//! inlined: an `Arg` returned through memory and read back at once stalls on its stores.

use super::{Parser, MAX_DEPTH};
use crate::import::ast::{Arg, Body, Directive, Instruction, Span, Stmt};
use crate::import::lex::Tok;
use crate::import::lex::{atom_end, is_word, word_end};

/// Past the spaces and tabs at `i` (a line break, a comment or any other space ends the
/// short path, in its callers).
#[inline]
fn blanks(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    i
}

impl<'a> Parser<'a> {
    /// The instruction at the current token (its opcode, or the `@` of a guard that touches
    /// its predicate: `@%p1`, `@!%p1`), where its chain's words touch (`ld.global.nc.v4.f32`)
    /// and its operands have the short shapes: pushed on `body` with its position `span`, and
    /// the lexer moved past its `;` (true); else nothing taken (false).
    pub(super) fn quick_instruction(&mut self, body: &mut Body<'a>, span: Span) -> bool {
        let b = self.src.as_bytes();
        let at = self.lx.at();
        let (guard, op, mut k) = if self.tok() == Tok::Punct('@') {
            let neg = b.get(at + 1) == Some(&b'!');
            let p = at + 1 + usize::from(neg);
            if !is_word(b.get(p)) {
                return false;
            }
            let pe = atom_end(b, p);
            let op = blanks(b, pe);
            if !is_word(b.get(op)) {
                return false;
            }
            (Some((neg, &self.src[p..pe])), op, atom_end(b, op))
        } else {
            (None, at, at + self.text().len())
        };
        while b.get(k) == Some(&b'.') && is_word(b.get(k + 1)) {
            k = word_end(b, k + 1);
        }
        let mark = self.args.len();
        let Some(end) = self.quick_operands(blanks(b, k)) else { return false };
        self.lx.skip_to(end);
        let operands = self.args_from(mark);
        body.push(Stmt::Ins(Instruction { guard, chain: &self.src[op..k], operands, span }));
        true
    }

    /// The `.loc` directive at the current token (its name), where its words are atoms up to
    /// the end of its line (`.loc 1 42 7`), with the lexer moved to the next line; `None`,
    /// nothing taken, for any other.
    pub(super) fn quick_loc(&mut self) -> Option<Directive<'a>> {
        let b = self.src.as_bytes();
        let (name, span) = (self.text(), self.lx.span());
        let mut i = blanks(b, self.lx.at() + name.len());
        let mark = self.words.len();
        while is_word(b.get(i)) {
            let e = atom_end(b, i);
            self.words.push(&self.src[i..e]);
            i = blanks(b, e);
        }
        if b.get(i) != Some(&b'\n') {
            self.words.truncate(mark);
            return None;
        }
        self.lx.skip_to(i);
        Some(Directive { name, args: self.words_from(mark), span })
    }

    /// The operands from byte `i` to the `;` after them (none where `i` is at it): pushed
    /// on [`Parser::args`] and the byte after the `;` where every operand has a short shape;
    /// else nothing taken. The lexer is not moved.
    pub(super) fn quick_operands(&mut self, mut i: usize) -> Option<usize> {
        // The general parser nests a list's items two levels below the instruction; at the
        // bound, it says so.
        if self.depth + 2 > MAX_DEPTH {
            return None;
        }
        let b = self.src.as_bytes();
        if b.get(i) == Some(&b';') {
            return Some(i + 1);
        }
        let mark = self.args.len();
        loop {
            let next = self.quick_operand(i).map(|j| blanks(b, j));
            match next.map(|j| (j, b.get(j))) {
                Some((j, Some(b','))) => i = blanks(b, j + 1),
                Some((j, Some(b';'))) => return Some(j + 1),
                _ => {
                    self.args.truncate(mark);
                    return None;
                }
            }
        }
    }

    /// The operand at byte `i`, pushed on [`Parser::args`]; the byte after it, where it has
    /// a short shape and no `+`, `-` or `|` follows it.
    fn quick_operand(&mut self, i: usize) -> Option<usize> {
        let b = self.src.as_bytes();
        let open = *b.get(i)?;
        if !matches!(open, b'[' | b'{') {
            return self.quick_item(i);
        }
        let close = if open == b'[' { b']' } else { b'}' };
        let inner = self.args.len();
        let mut k = blanks(b, i + 1);
        loop {
            k = blanks(b, self.quick_item(k)?);
            match b.get(k) {
                Some(b',') => k = blanks(b, k + 1),
                Some(&c) if c == close => break,
                _ => return None,
            }
        }
        if matches!(b.get(k + 1), Some(b'+' | b'-' | b'|')) {
            return None;
        }
        let items = self.args_from(inner);
        self.args.push(if open == b'[' { Arg::Address(items) } else { Arg::Vector(items) });
        Some(k + 1)
    }

    /// The operand at byte `i` that is no list (a name, a number, with an offset or a pair),
    /// pushed on [`Parser::args`]; the byte after it, as [`Parser::quick_operand`].
    #[inline(always)]
    fn quick_item(&mut self, i: usize) -> Option<usize> {
        let b = self.src.as_bytes();
        let (arg, j) = if b.get(i) == Some(&b'-') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            let j = atom_end(b, i + 1);
            self.quick_suffix(Arg::Number(&self.src[i..j]), j)?
        } else if is_word(b.get(i)) {
            let (a, j) = self.quick_atom(i)?;
            self.quick_suffix(a, j)?
        } else {
            return None;
        };
        if matches!(b.get(j), Some(b'+' | b'-' | b'|')) {
            return None;
        }
        self.args.push(arg);
        Some(j)
    }

    /// The name, number or `_` at byte `i`, and the byte after it; `None` where a dotted
    /// word or `(` touches it (`%tid.x`, `%r1.b0`, `generic(x)`).
    #[inline(always)]
    fn quick_atom(&self, i: usize) -> Option<(Arg<'a>, usize)> {
        let b = self.src.as_bytes();
        let j = if b[i].is_ascii_digit() { atom_end(b, i) } else { word_end(b, i) };
        if matches!(b.get(j), Some(b'.' | b'(')) {
            return None;
        }
        let t = &self.src[i..j];
        let a = if b[i].is_ascii_digit() {
            Arg::Number(t)
        } else if t == "_" {
            Arg::Sink
        } else {
            Arg::Name(t)
        };
        Some((a, j))
    }

    /// `a` (ending at byte `j`) with the offset (`+16`, `-8`) or the pair (`|%p2`) that
    /// touches it, if one does; `None` where a sign or `|` is not followed by a word.
    #[inline(always)]
    fn quick_suffix(&mut self, a: Arg<'a>, j: usize) -> Option<(Arg<'a>, usize)> {
        let b = self.src.as_bytes();
        match b.get(j) {
            Some(b'+' | b'-') => {
                if !is_word(b.get(j + 1)) {
                    return None;
                }
                let e = atom_end(b, j + 1);
                Some((Arg::Offset(self.arena.one((a, &self.src[j..e]))), e))
            }
            Some(b'|') => {
                if !is_word(b.get(j + 1)) {
                    return None;
                }
                let (second, e) = self.quick_atom(j + 1)?;
                Some((Arg::Pair(self.arena.one(a), self.arena.one(second)), e))
            }
            _ => Some((a, j)),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::import::ast::{Arena, Stmt};
    use crate::import::parse::parse;

    /// Every shape of operand list gives through the short path the tree that the general
    /// parser gives (reached by a line break before the `;`, where the short path gives up),
    /// and a list the general parser refuses is refused through either.
    #[test]
    fn the_short_path_gives_the_general_tree() {
        let lists = [
            "%r1",
            "%r1, %r2",
            "%r1 ,%r2",
            "%r1,\t%r2",
            "42",
            "-1",
            "-1.5e-3",
            "1.5",
            "0f3F800000",
            "_",
            "%r1+4",
            "%r1-4",
            "%r1 + 4",
            "%r1+-4",
            "%r1++4",
            "%r1+4+8",
            "4+%r1",
            "-1+2",
            "[%rd1]",
            "[%rd1+16]",
            "[ %rd1 + 16 ]",
            "[%rd1+-16]",
            "[buf+8]",
            "[]",
            "{}",
            "{%f1, %f2, %f3, %f4}",
            "{ %f1 }",
            "{_, %r1}",
            "{%r1|%p1}",
            "[a, {b, c}]",
            "{a}|b",
            "{a}+4",
            "[a]+4",
            "[a]|b",
            "%r1|%p1",
            "%r1|%p1|%p2",
            "%r1|%p1+4",
            "%r1|_",
            "%r1|-1",
            "%r1|",
            "%tid.x",
            "%r1.b0",
            "x|%tid.x",
            "generic(x)",
            "mask(1, 2)",
            "shared::cta",
            "a::b, c",
            "-x",
            "- 1",
            "!%p1",
            "(a, b)",
            "%r1,",
            ",%r1",
            "%r1 %r2",
            "[%rd1",
            "{%r1",
            "%r1]",
            "%f1}",
            "[[a]]",
            "{{a}}",
            "a, [b+4], {c, d}, -1, e|f",
        ];
        for l in lists {
            let quick = format!(".entry k() {{ mov.u32 {l};\n@%p1 mov.u32 {l};\n}}");
            let general = format!(".entry k() {{ mov.u32 {l}\n;\n@%p1 mov.u32 {l}\n;\n}}");
            let (a, b) = (Arena::new(), Arena::new());
            match (parse(&quick, &a), parse(&general, &b)) {
                (Ok(q), Ok(g)) => {
                    let (q, g) = (q.instructions(), g.instructions());
                    assert_eq!(q.len(), g.len(), "{l}");
                    for (x, y) in q.iter().zip(&g) {
                        assert_eq!((x.guard, x.chain, x.operands), (y.guard, y.chain, y.operands), "{l}");
                    }
                }
                (Err(_), Err(_)) => {}
                (q, g) => panic!("`{l}`: {:?} through the short path, {:?} through the general one", q.is_ok(), g.is_ok()),
            }
        }
        // `.loc` lines, plain or not (a comment before the line break makes the short path
        // give up), and guards that touch their predicate or not.
        for l in
            ["", " 1", " 1 2 3", "\t1\t2\t3 ", " 1 1.5 0x2", " 1 2, 3", " 1 2,\n3", " 1 2 3;", " 1 {", " \"s\"", " 1 2 3, inlined_at 1 2 3"]
        {
            let quick = format!(".entry k() {{\n.loc{l}\n@%p1 bra L;\n@!%p1 bra L;\n@ %p1 bra L;\n}}");
            let general = format!(".entry k() {{\n.loc{l} // c\n@%p1 bra L;\n@!%p1 bra L;\n@ %p1 bra L;\n}}");
            let (a, b) = (Arena::new(), Arena::new());
            match (parse(&quick, &a), parse(&general, &b)) {
                (Ok(q), Ok(g)) => {
                    let body = |f: &crate::import::ast::File<'_>| match &f.items[0] {
                        crate::import::ast::Item::Function(k) => format!("{:?}", k.body),
                        _ => unreachable!(),
                    };
                    assert_eq!(body(&q), body(&g), "{l}");
                }
                (Err(e), Err(f)) => assert_eq!(e, f, "{l}"),
                (q, g) => panic!("`{l}`: {:?} through the short path, {:?} through the general one", q.is_ok(), g.is_ok()),
            }
        }
        // No operands, and a chain whose words touch or not.
        let a = Arena::new();
        let f = parse(".entry k() { ret; bar.sync 0; ld.global .u32 %r1, [a]; ld .global.u32 %r1, [a]; x: }", &a).unwrap();
        let chains: Vec<_> = f.instructions().iter().map(|i| (i.chain, i.operands.len())).collect();
        assert_eq!(chains, [("ret", 0), ("bar.sync", 1), ("ld.global.u32", 2), ("ld.global.u32", 2)]);
        let crate::import::ast::Item::Function(k) = &f.items[0] else { panic!() };
        assert!(matches!(k.body.unwrap()[4], Stmt::Label("x", _)));
    }
}
