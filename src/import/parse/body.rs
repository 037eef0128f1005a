//! Bodies: blocks, statements, instructions and their operands.

use super::{Joined, Parsed, Parser, LINKAGE, MAX_DEPTH, SPACES};
use crate::import::ast::*;
use crate::import::lex::{Tok, Token};

/// Text bytes per statement that a function's body is first given room for.
const BYTES_PER_STMT: usize = 24;

impl<'a> Parser<'a> {
    /// `{ statements }`, with the span of its `{`.
    pub(super) fn block(&mut self) -> Parsed<(&'a [Stmt<'a>], Span)> {
        self.enter()?;
        let open = self.expect_punct('{')?;
        // A function's body has room for a statement every `BYTES_PER_STMT` bytes of the
        // text that is left (compiler output has one every 35 to 45); a nested block's
        // grows from nothing, so that blocks do not each take the text's worth.
        let room = if self.depth == 1 { (self.src.len() - self.lx.at()) / BYTES_PER_STMT } else { 0 };
        let mut body = self.arena.body(room);
        loop {
            match self.tok() {
                Tok::Punct('}') => {
                    self.bump();
                    break;
                }
                Tok::End => {
                    let end = Token { tok: Tok::End, text: "", span: open, at: self.lx.at() };
                    return self.err_at(&end, "the `}` closing this block");
                }
                _ => self.stmt(&mut body)?,
            }
        }
        self.leave();
        Ok((body.done(), open))
    }

    /// One statement, pushed on `body` (built in place: a statement is 64 bytes).
    fn stmt(&mut self, body: &mut Body<'a>) -> Parsed<()> {
        let span = self.span();
        let s = match self.tok() {
            Tok::Atom | Tok::Punct('@') if self.quick_instruction(body, span) => return Ok(()),
            Tok::Atom => {
                let (first, at) = (self.text(), self.lx.at());
                self.bump();
                if !self.is_punct(':') {
                    return self.instruction(body, span, None, first, at);
                }
                self.bump();
                self.label(first, span)?
            }
            Tok::Punct('@') => {
                self.bump();
                let neg = self.eat_punct('!');
                let guard = Some((neg, self.word("a predicate")?));
                let at = self.lx.at();
                let op = self.word("an opcode")?;
                return self.instruction(body, span, guard, op, at);
            }
            Tok::Punct('{') => {
                let (b, span) = self.block()?;
                Stmt::Block(b, span)
            }
            Tok::Dotted => {
                let t = self.text();
                if let Some(d) = if t == ".loc" { self.quick_loc() } else { None } {
                    Stmt::Directive(d)
                } else if SPACES.contains(&t) || t.starts_with(".const") || LINKAGE.contains(&t) {
                    let linkage = self.linkage();
                    let d = self.var_decl(span, linkage, true)?;
                    self.expect_punct(';')?;
                    Stmt::Decl(self.arena.one(d))
                } else if matches!(t, ".loc" | ".pragma") {
                    Stmt::Directive(self.directive()?)
                } else {
                    return self.err("a statement (an instruction, a label, a declaration, `.loc` or `.pragma`)");
                }
            }
            _ => return self.err("a statement (an instruction, a label, a declaration or a directive)"),
        };
        body.push(s);
        Ok(())
    }

    /// What follows `name:` (both taken; the name at `span`).
    fn label(&mut self, name: &'a str, span: Span) -> Parsed<Stmt<'a>> {
        let next = self.text();
        match next {
            ".branchtargets" | ".calltargets" => {
                self.bump();
                let mark = self.words.len();
                let first = self.word("a label")?;
                self.words.push(first);
                while self.eat_punct(',') {
                    let w = self.word("a label")?;
                    self.words.push(w);
                }
                self.expect_punct(';')?;
                let targets = self.words_from(mark);
                Ok(if next == ".branchtargets" {
                    Stmt::BranchTargets { label: name, targets, span }
                } else {
                    Stmt::CallTargets { label: name, targets, span }
                })
            }
            ".callprototype" => {
                self.bump();
                let mark = self.words.len();
                while !self.is_punct(';') {
                    if self.tok() == Tok::End {
                        return self.err("`;` ending the prototype");
                    }
                    let w = self.take();
                    self.words.push(w);
                }
                self.bump();
                Ok(Stmt::CallPrototype { label: name, words: self.words_from(mark), span })
            }
            _ => Ok(Stmt::Label(name, span)),
        }
    }

    /// The rest of an instruction that starts at `span`, after its guard and its opcode
    /// `op` (at byte `at`), pushed on `body`.
    fn instruction(&mut self, body: &mut Body<'a>, span: Span, guard: Option<(bool, &'a str)>, op: &'a str, at: usize) -> Parsed<()> {
        let mut chain = Joined::new(at, op);
        while self.tok() == Tok::Dotted {
            let at = self.lx.at();
            let run = self.lx.take_dotted();
            chain.push(self.src, at, run);
        }
        let chain = chain.text(self.src, self.arena);
        let mark = self.args.len();
        if let Some(end) = self.quick_operands(self.lx.at()) {
            self.lx.skip_to(end);
            let operands = self.args_from(mark);
            body.push(Stmt::Ins(Instruction { guard, chain, operands, span }));
            return Ok(());
        }
        if !self.is_punct(';') {
            loop {
                if !self.plain_operand() {
                    self.operand()?;
                }
                if !self.eat_punct(',') {
                    break;
                }
            }
        }
        if !self.is_punct(';') {
            return self.err("`,` or `;` after an operand");
        }
        self.bump();
        let operands = self.args_from(mark);
        body.push(Stmt::Ins(Instruction { guard, chain, operands, span }));
        Ok(())
    }

    /// The operand pushed last, taken off [`Parser::args`].
    pub(super) fn pop(&mut self) -> Arg<'a> {
        self.args.pop().unwrap_or(Arg::Sink)
    }

    /// The operand pushed last, taken off [`Parser::args`] into the arena.
    fn pop_one(&mut self) -> &'a Arg<'a> {
        let o = self.pop();
        self.arena.one(o)
    }

    /// An operand: a primary, then `+off`/`-off` and `|b`; pushed on [`Parser::args`] (where
    /// the callee writes it, rather than returning it to be copied there).
    pub(super) fn operand(&mut self) -> Parsed<()> {
        self.enter()?;
        self.primary()?;
        loop {
            if (self.is_punct('+') || self.is_punct('-')) && !matches!(self.args.last(), Some(Arg::Vector(_) | Arg::Address(_))) {
                let mut text = Joined::new(self.lx.at(), self.text());
                self.bump();
                if self.is_punct('-') {
                    text.push(self.src, self.lx.at(), self.text());
                    self.bump();
                }
                let at = self.lx.at();
                let n = self.word("an offset")?;
                text.push(self.src, at, n);
                let base = self.pop();
                self.args.push(Arg::Offset(self.arena.one((base, text.text(self.src, self.arena)))));
            } else if self.eat_punct('|') {
                let a = self.pop_one();
                self.primary()?;
                let b = self.pop_one();
                self.args.push(Arg::Pair(a, b));
            } else {
                break;
            }
        }
        self.leave();
        Ok(())
    }

    /// A name or a number that `,`, `;` or a closing bracket touches (`%f4,`, `%rd3]`,
    /// `255;`: most operands), pushed on [`Parser::args`] as [`Parser::operand`] would push
    /// it, without its general path; false, and nothing taken, for any other operand, and
    /// where one more level would nest too deep (so that the general path says so).
    #[inline]
    fn plain_operand(&mut self) -> bool {
        if self.tok() != Tok::Atom || self.depth >= MAX_DEPTH {
            return false;
        }
        let t = self.text();
        if !matches!(self.src.as_bytes().get(self.lx.at() + t.len()), Some(b',' | b';' | b']' | b'}' | b')')) {
            return false;
        }
        let o = if t.starts_with(|c: char| c.is_ascii_digit()) {
            Arg::Number(t)
        } else if t == "_" {
            Arg::Sink
        } else {
            Arg::Name(t)
        };
        self.bump();
        self.args.push(o);
        true
    }

    /// The operands up to `close`, separated by commas (the opening bracket taken).
    fn list(&mut self, close: char) -> Parsed<&'a [Arg<'a>]> {
        let mark = self.args.len();
        if !self.eat_punct(close) {
            loop {
                if !self.plain_operand() {
                    self.operand()?;
                }
                if self.eat_punct(close) {
                    break;
                }
                if !self.eat_punct(',') {
                    return self.err(&format!("`,` or `{close}`"));
                }
            }
        }
        Ok(self.args_from(mark))
    }

    /// A name, a number, `_`, a bracketed list, `!p` or `-x`, pushed on [`Parser::args`].
    fn primary(&mut self) -> Parsed<()> {
        let o = match self.tok() {
            Tok::Atom => {
                let (t, at) = (self.text(), self.lx.at());
                self.bump();
                if t.starts_with(|c: char| c.is_ascii_digit()) {
                    Arg::Number(t)
                } else if t == "_" {
                    Arg::Sink
                } else if self.tok() != Tok::Dotted && self.tok() != Tok::Punct('(') {
                    Arg::Name(t)
                } else if self.is_punct('(') && matches!(t, "generic" | "mask") {
                    self.bump();
                    let args = self.list(')')?;
                    Arg::Call(self.arena.one((t, args)))
                } else {
                    self.suffixed(t, at)
                }
            }
            Tok::Punct('[') => {
                self.bump();
                Arg::Address(self.list(']')?)
            }
            Tok::Punct('{') => {
                self.bump();
                Arg::Vector(self.list('}')?)
            }
            Tok::Punct('(') => {
                self.bump();
                Arg::Paren(self.list(')')?)
            }
            Tok::Punct('!') => {
                self.bump();
                self.enter()?;
                self.primary()?;
                self.leave();
                Arg::Not(self.pop_one())
            }
            Tok::Punct('-') => {
                let mut n = Joined::new(self.lx.at(), self.text());
                self.bump();
                if self.tok() == Tok::Atom && self.text().starts_with(|c: char| c.is_ascii_digit()) {
                    n.push(self.src, self.lx.at(), self.text());
                    self.bump();
                    Arg::Number(n.text(self.src, self.arena))
                } else {
                    self.enter()?;
                    self.primary()?;
                    self.leave();
                    Arg::Neg(self.pop_one())
                }
            }
            _ => return self.err("an operand"),
        };
        self.args.push(o);
        Ok(())
    }

    /// A name `t` (at byte `at`) and the dotted words after it: `%tid.x`, where a component
    /// of a special register is part of its name, or a part selector (`%r1.b0`, `%r2.h1`).
    fn suffixed(&mut self, t: &'a str, at: usize) -> Arg<'a> {
        let mut name = Joined::new(at, t);
        let mut o = None;
        while self.tok() == Tok::Dotted {
            let s = self.text();
            match (&o, s) {
                (None, ".x" | ".y" | ".z" | ".w") if t.starts_with('%') => name.push(self.src, self.lx.at(), s),
                _ => {
                    let base = o.unwrap_or_else(|| Arg::Name(name.text(self.src, self.arena)));
                    o = Some(Arg::Part(self.arena.one((base, &s[1..]))));
                }
            }
            self.bump();
        }
        o.unwrap_or_else(|| Arg::Name(name.text(self.src, self.arena)))
    }
}
