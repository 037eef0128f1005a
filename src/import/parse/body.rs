//! Bodies: blocks, statements, instructions and their operands.

use super::{Joined, ParseError, Parser, LINKAGE, SPACES};
use crate::import::ast::*;
use crate::import::lex::{Tok, Token};

impl<'a> Parser<'a> {
    /// `{ statements }`, with the span of its `{`.
    pub(super) fn block(&mut self) -> Result<(&'a [Stmt<'a>], Span), ParseError> {
        self.enter()?;
        let open = self.expect_punct('{')?;
        let mut body = self.arena.body();
        loop {
            match self.tok.tok {
                Tok::Punct('}') => {
                    self.bump();
                    break;
                }
                Tok::End => return Err(ParseError::new(open.span, "the `}` closing this block", "the end of the input")),
                _ => body.push(self.stmt()?),
            }
        }
        self.leave();
        Ok((body.done(), open.span))
    }

    fn stmt(&mut self) -> Result<Stmt<'a>, ParseError> {
        let t = self.peek();
        match t.tok {
            Tok::Atom => {
                let first = self.bump();
                if self.is_punct(':') {
                    self.label(first)
                } else {
                    self.instruction(t.span, None, first).map(Stmt::Ins)
                }
            }
            Tok::Punct('@') => {
                self.bump();
                let neg = self.eat_punct('!');
                let guard = Some((neg, self.word("a predicate")?.text));
                let op = self.word("an opcode")?;
                self.instruction(t.span, guard, op).map(Stmt::Ins)
            }
            Tok::Punct('{') => {
                let (b, span) = self.block()?;
                Ok(Stmt::Block(b, span))
            }
            Tok::Dotted => {
                if SPACES.contains(&t.text) || t.text.starts_with(".const") || LINKAGE.contains(&t.text) {
                    let linkage = self.linkage();
                    let d = self.var_decl(t.span, linkage, true)?;
                    self.expect_punct(';')?;
                    Ok(Stmt::Decl(self.arena.one(d)))
                } else if matches!(t.text, ".loc" | ".pragma") {
                    self.directive().map(Stmt::Directive)
                } else {
                    self.err("a statement (an instruction, a label, a declaration, `.loc` or `.pragma`)")
                }
            }
            _ => self.err("a statement (an instruction, a label, a declaration or a directive)"),
        }
    }

    /// `name:` (the name taken, at the colon), and what may follow it.
    fn label(&mut self, label: Token<'a>) -> Result<Stmt<'a>, ParseError> {
        self.bump();
        let next = self.peek();
        let name = label.text;
        match next.text {
            ".branchtargets" | ".calltargets" => {
                self.bump();
                let mark = self.words.len();
                let first = self.word("a label")?.text;
                self.words.push(first);
                while self.eat_punct(',') {
                    let w = self.word("a label")?.text;
                    self.words.push(w);
                }
                self.expect_punct(';')?;
                let targets = self.words_from(mark);
                Ok(if next.text == ".branchtargets" {
                    Stmt::BranchTargets { label: name, targets, span: label.span }
                } else {
                    Stmt::CallTargets { label: name, targets, span: label.span }
                })
            }
            ".callprototype" => {
                self.bump();
                let mark = self.words.len();
                while !self.is_punct(';') {
                    if self.tok.tok == Tok::End {
                        return self.err("`;` ending the prototype");
                    }
                    let w = self.bump().text;
                    self.words.push(w);
                }
                self.bump();
                Ok(Stmt::CallPrototype { label: name, words: self.words_from(mark), span: label.span })
            }
            _ => Ok(Stmt::Label(name, label.span)),
        }
    }

    /// The rest of an instruction that starts at `span`, after its guard and opcode.
    fn instruction(&mut self, span: Span, guard: Option<(bool, &'a str)>, op: Token<'a>) -> Result<Instruction<'a>, ParseError> {
        let mut chain = Joined::new(&op);
        while self.tok.tok == Tok::Dotted {
            let t = self.bump();
            chain.push(self.src, &t);
        }
        let chain = chain.text(self.src, self.arena);
        let mark = self.args.len();
        if !self.is_punct(';') {
            loop {
                let o = self.operand()?;
                self.args.push(o);
                if !self.eat_punct(',') {
                    break;
                }
            }
        }
        if !self.is_punct(';') {
            return self.err("`,` or `;` after an operand");
        }
        self.bump();
        Ok(Instruction { guard, chain, operands: self.args_from(mark), span })
    }

    /// An operand: a primary, then `+off`/`-off` and `|b`.
    pub(super) fn operand(&mut self) -> Result<Arg<'a>, ParseError> {
        self.enter()?;
        let mut o = self.primary()?;
        loop {
            if (self.is_punct('+') || self.is_punct('-')) && !matches!(o, Arg::Vector(_) | Arg::Address(_)) {
                let mut text = Joined::new(&self.bump());
                if self.is_punct('-') {
                    let neg = self.bump();
                    text.push(self.src, &neg);
                }
                let n = self.word("an offset")?;
                text.push(self.src, &n);
                o = Arg::Offset(self.arena.one((o, text.text(self.src, self.arena))));
            } else if self.eat_punct('|') {
                let b = self.primary()?;
                o = Arg::Pair(self.arena.one(o), self.arena.one(b));
            } else {
                break;
            }
        }
        self.leave();
        Ok(o)
    }

    /// The operands up to `close`, separated by commas (the opening bracket taken).
    fn list(&mut self, close: char) -> Result<&'a [Arg<'a>], ParseError> {
        let mark = self.args.len();
        if !self.eat_punct(close) {
            loop {
                let o = self.operand()?;
                self.args.push(o);
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

    fn primary(&mut self) -> Result<Arg<'a>, ParseError> {
        let t = self.peek();
        match t.tok {
            Tok::Atom => {
                self.bump();
                if t.text.starts_with(|c: char| c.is_ascii_digit()) {
                    return Ok(Arg::Number(t.text));
                }
                if t.text == "_" {
                    return Ok(Arg::Sink);
                }
                if self.is_punct('(') && matches!(t.text, "generic" | "mask") {
                    self.bump();
                    let args = self.list(')')?;
                    return Ok(Arg::Call(self.arena.one((t.text, args))));
                }
                // `%tid.x`: a component of a special register is part of its name; other
                // suffixes are part selectors (`%r1.b0`, `%r2.h1`).
                let mut name = Joined::new(&t);
                let mut o = None;
                while self.tok.tok == Tok::Dotted {
                    let s = self.bump();
                    match (&o, s.text) {
                        (None, ".x" | ".y" | ".z" | ".w") if t.text.starts_with('%') => name.push(self.src, &s),
                        _ => {
                            let base = o.unwrap_or_else(|| Arg::Name(name.text(self.src, self.arena)));
                            o = Some(Arg::Part(self.arena.one((base, &s.text[1..]))));
                        }
                    }
                }
                Ok(o.unwrap_or_else(|| Arg::Name(name.text(self.src, self.arena))))
            }
            Tok::Punct('[') => {
                self.bump();
                Ok(Arg::Address(self.list(']')?))
            }
            Tok::Punct('{') => {
                self.bump();
                Ok(Arg::Vector(self.list('}')?))
            }
            Tok::Punct('(') => {
                self.bump();
                Ok(Arg::Paren(self.list(')')?))
            }
            Tok::Punct('!') => {
                self.bump();
                self.enter()?;
                let o = self.primary()?;
                self.leave();
                Ok(Arg::Not(self.arena.one(o)))
            }
            Tok::Punct('-') => {
                let minus = self.bump();
                if self.tok.tok == Tok::Atom && self.tok.text.starts_with(|c: char| c.is_ascii_digit()) {
                    let mut n = Joined::new(&minus);
                    let digits = self.bump();
                    n.push(self.src, &digits);
                    Ok(Arg::Number(n.text(self.src, self.arena)))
                } else {
                    self.enter()?;
                    let o = self.primary()?;
                    self.leave();
                    Ok(Arg::Neg(self.arena.one(o)))
                }
            }
            _ => self.err("an operand"),
        }
    }
}
