//! The parser: PTX text to the syntax tree of [`ast`](super::ast), by recursive descent over
//! the tokens of [`lex`](super::lex). Errors carry the line and column, what was expected and
//! what was found. Nesting is bounded ([`MAX_DEPTH`]), and every loop consumes a token or
//! stops, so no input makes it overflow the stack or loop.

use super::ast::*;
pub use super::error::ParseError;
use super::lex::{lex, Tok, Token};

/// How deeply blocks, braces, brackets and parentheses may nest.
pub const MAX_DEPTH: u32 = 200;

/// Parses a whole PTX file.
///
/// ```
/// use ptxkit::import::{ast, parse};
/// let f = parse::parse(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { ret; }")?;
/// let ast::Item::Function(k) = &f.items[3] else { panic!() };
/// assert_eq!(k.name, "k");
/// let e = parse::parse(".version 8.0\n.entry k( { ret; }").unwrap_err();
/// assert_eq!(e.to_string(), "line 2, column 11: expected a parameter declaration (`.param …`), found `{`");
/// # Ok::<(), ptxkit::import::parse::ParseError>(())
/// ```
pub fn parse(src: &str) -> Result<File, ParseError> {
    let toks = lex(src)?;
    let mut p = Parser { src, toks, i: 0, depth: 0 };
    let mut items = Vec::new();
    while p.peek().tok != Tok::End {
        items.push(p.item()?);
    }
    Ok(File { items })
}

struct Parser<'s> {
    src: &'s str,
    toks: Vec<Token<'s>>,
    i: usize,
    depth: u32,
}

/// How a token reads in a message.
fn shown(t: &Token) -> String {
    match t.tok {
        Tok::End => "the end of the input".into(),
        _ => format!("`{}`", t.text),
    }
}

const SPACES: &[&str] = &[".global", ".const", ".shared", ".local", ".param", ".reg", ".tex", ".sreg"];
const LINKAGE: &[&str] = &[".visible", ".extern", ".weak", ".common"];

impl<'s> Parser<'s> {
    fn peek(&self) -> Token<'s> {
        self.toks[self.i.min(self.toks.len() - 1)]
    }
    fn peek_at(&self, k: usize) -> Token<'s> {
        self.toks[(self.i + k).min(self.toks.len() - 1)]
    }
    fn bump(&mut self) -> Token<'s> {
        let t = self.peek();
        if t.tok != Tok::End {
            self.i += 1;
        }
        t
    }
    fn err<T>(&self, expected: &str) -> Result<T, ParseError> {
        let t = self.peek();
        Err(ParseError::new(t.span, expected, &shown(&t)))
    }
    fn is_punct(&self, c: char) -> bool {
        self.peek().tok == Tok::Punct(c)
    }
    fn eat_punct(&mut self, c: char) -> bool {
        let yes = self.is_punct(c);
        if yes {
            self.bump();
        }
        yes
    }
    fn expect_punct(&mut self, c: char) -> Result<Token<'s>, ParseError> {
        if self.is_punct(c) {
            Ok(self.bump())
        } else {
            self.err(&format!("`{c}`"))
        }
    }
    fn word(&mut self, what: &str) -> Result<Token<'s>, ParseError> {
        if self.peek().tok == Tok::Atom {
            Ok(self.bump())
        } else {
            self.err(what)
        }
    }
    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err(&format!("at most {MAX_DEPTH} levels of nesting"));
        }
        Ok(())
    }
    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// A module-level item.
    fn item(&mut self) -> Result<Item, ParseError> {
        let t = self.peek();
        if t.tok != Tok::Dotted {
            return self.err("a directive (`.version`, `.target`, a variable, `.entry`, `.func`, …)");
        }
        match t.text {
            ".version" => {
                self.bump();
                let v = self.word("a version (`8.0`)")?;
                Ok(Item::Version(v.text.to_string(), t.span))
            }
            ".target" => {
                self.bump();
                let mut targets = vec![self.word("a target (`sm_90a`)")?.text.to_string()];
                while self.eat_punct(',') {
                    targets.push(self.word("a target or a target option")?.text.to_string());
                }
                Ok(Item::Target(targets, t.span))
            }
            ".address_size" => {
                self.bump();
                let n = self.word("32 or 64")?;
                match n.text.parse() {
                    Ok(v @ (32 | 64)) => Ok(Item::AddressSize(v, t.span)),
                    _ => Err(ParseError::new(n.span, "32 or 64", &shown(&n))),
                }
            }
            ".section" => self.section().map(Item::Section),
            ".file" | ".loc" | ".pragma" | ".alias" => self.directive().map(Item::Directive),
            _ => {
                // Linkage, then a function or a variable.
                let mut k = 0;
                while LINKAGE.contains(&self.peek_at(k).text) {
                    k += 1;
                }
                match self.peek_at(k).text {
                    ".entry" | ".func" => self.function().map(Item::Function),
                    w if SPACES.contains(&w) || w.starts_with(".const[") => {
                        let v = self.var_decl(true)?;
                        self.expect_punct(';')?;
                        Ok(Item::Var(v))
                    }
                    _ => self.err("a directive (`.version`, `.target`, a variable, `.entry`, `.func`, …)"),
                }
            }
        }
    }

    /// A directive kept as words: its name, then tokens up to the end of the statement
    /// (`;`, or the end of the line for `.file` and `.loc`, which take none).
    fn directive(&mut self) -> Result<Directive, ParseError> {
        let name = self.bump();
        let line = name.span.line;
        let mut args = Vec::new();
        let ends_at_line = matches!(name.text, ".file" | ".loc");
        loop {
            let t = self.peek();
            match t.tok {
                Tok::End => break,
                Tok::Punct(';') => {
                    self.bump();
                    break;
                }
                _ if ends_at_line && t.span.line != line && !args.last().is_some_and(|a: &String| a == ",") => break,
                Tok::Punct('{' | '}') => return self.err(&format!("the end of the `{}` directive", name.text)),
                _ => {
                    self.bump();
                    args.push(t.text.to_string());
                }
            }
        }
        Ok(Directive { name: name.text.to_string(), args, span: name.span })
    }

    /// `.section name { … }`, the lines inside kept verbatim.
    fn section(&mut self) -> Result<Section, ParseError> {
        let start = self.bump();
        let name = self.peek();
        if !matches!(name.tok, Tok::Atom | Tok::Dotted) {
            return self.err("a section name (`.debug_info`)");
        }
        self.bump();
        let open = self.expect_punct('{')?;
        // The raw text between the braces (no nesting in DWARF sections).
        let mut depth = 1;
        let close = loop {
            let t = self.bump();
            match t.tok {
                Tok::End => return Err(ParseError::new(open.span, "the `}` closing this section", "the end of the input")),
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth -= 1;
                    if depth == 0 {
                        break t;
                    }
                }
                _ => {}
            }
        };
        let raw = &self.src[open.at + 1..close.at];
        let lines = raw.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect();
        Ok(Section { name: name.text.to_string(), lines, span: start.span })
    }

    /// A variable or parameter declaration, up to (not including) `;`, `,` or `)`. At module
    /// level and in bodies, an initialiser may follow.
    fn var_decl(&mut self, init_allowed: bool) -> Result<VarDecl, ParseError> {
        let span = self.peek().span;
        let mut linkage = Vec::new();
        while LINKAGE.contains(&self.peek().text) {
            linkage.push(self.bump().text.to_string());
        }
        let sp = self.peek();
        if !(SPACES.contains(&sp.text) || sp.text.starts_with(".const")) || sp.tok != Tok::Dotted {
            return self.err("a state space (`.global`, `.shared`, `.reg`, `.param`, …)");
        }
        self.bump();
        let mut space = sp.text.to_string();
        // `.const[2]`: a constant bank.
        if space == ".const" && self.is_punct('[') {
            self.bump();
            let n = self.word("a bank number")?;
            self.expect_punct(']')?;
            space = format!(".const[{}]", n.text);
        }
        // The attributes and the type, in the order written (`.u64 .ptr .global .align 16`,
        // `.align 16 .b8`): the type is the first word that is not an attribute.
        let mut attrs = Vec::new();
        let mut ty = None;
        while self.peek().tok == Tok::Dotted {
            let t = self.bump();
            match t.text {
                ".align" => {
                    let n = self.word("an alignment")?;
                    attrs.push(format!(".align {}", n.text));
                }
                ".attribute" => {
                    // `.attribute(.managed)`
                    self.expect_punct('(')?;
                    let mut inner = Vec::new();
                    while !self.is_punct(')') && self.peek().tok != Tok::End {
                        inner.push(self.bump().text.to_string());
                    }
                    self.expect_punct(')')?;
                    attrs.push(format!(".attribute({})", inner.join(" ")));
                }
                ".ptr" | ".v2" | ".v4" | ".v8" | ".global" | ".shared" | ".const" | ".local" => attrs.push(t.text.to_string()),
                _ if ty.is_none() => {
                    ty = Some(t.text.to_string());
                    attrs.push(t.text.to_string());
                }
                _ => return Err(ParseError::new(t.span, "a name", &shown(&t))),
            }
        }
        let Some(ty) = ty else { return self.err("a type (`.b32`, `.u64`, `.texref`, …)") };
        let mut names = vec![self.var_name()?];
        while init_allowed && self.is_punct(',') && space == ".reg" {
            self.bump();
            names.push(self.var_name()?);
        }
        let init = if init_allowed && self.eat_punct('=') { Some(self.init()?) } else { None };
        Ok(VarDecl { linkage, space, attrs, ty, names, init, span })
    }

    fn var_name(&mut self) -> Result<VarName, ParseError> {
        let name = self.word("a name")?.text.to_string();
        let mut dims = Vec::new();
        let mut range = None;
        if self.eat_punct('<') {
            let n = self.word("a register count")?;
            range = Some(n.text.parse().map_err(|_| ParseError::new(n.span, "a register count", &shown(&n)))?);
            self.expect_punct('>')?;
        }
        while self.eat_punct('[') {
            if self.eat_punct(']') {
                dims.push(None);
                continue;
            }
            let n = self.word("an array length")?;
            let v = parse_uint(n.text).ok_or_else(|| ParseError::new(n.span, "an array length", &shown(&n)))?;
            dims.push(Some(v));
            self.expect_punct(']')?;
        }
        Ok(VarName { name, dims, range })
    }

    fn init(&mut self) -> Result<Init, ParseError> {
        if self.is_punct('{') {
            self.enter()?;
            self.bump();
            let mut list = Vec::new();
            if !self.is_punct('}') {
                loop {
                    list.push(self.init()?);
                    if !self.eat_punct(',') {
                        break;
                    }
                }
            }
            self.expect_punct('}')?;
            self.leave();
            return Ok(Init::List(list));
        }
        // `addr_mode_0 = clamp_to_edge` in a sampler's initialiser.
        if self.peek().tok == Tok::Atom && self.peek_at(1).tok == Tok::Punct('=') {
            let field = self.bump().text.to_string();
            self.bump();
            let v = self.operand()?;
            return Ok(Init::Field(field, v));
        }
        Ok(Init::Value(self.operand()?))
    }

    /// `.entry`/`.func`, declared or defined.
    fn function(&mut self) -> Result<Function, ParseError> {
        let span = self.peek().span;
        let mut linkage = Vec::new();
        while LINKAGE.contains(&self.peek().text) {
            linkage.push(self.bump().text.to_string());
        }
        let kind = if self.bump().text == ".entry" { FunctionKind::Entry } else { FunctionKind::Func };
        let rets = if kind == FunctionKind::Func && self.is_punct('(') { Some(self.params()?) } else { None };
        let name = self.word("the function's name")?.text.to_string();
        let params = if self.is_punct('(') { Some(self.params()?) } else { None };
        let mut directives = Vec::new();
        while self.peek().tok == Tok::Dotted {
            directives.push(self.directive_words()?);
        }
        let body = if self.eat_punct(';') {
            None
        } else if self.is_punct('{') {
            Some(self.block()?.0)
        } else {
            return self.err("the function's body `{` or `;`");
        };
        Ok(Function { linkage, kind, rets, name, params, directives, body, span })
    }

    /// A directive after a function's parameters: its name and numbers or strings, with
    /// commas, up to the next directive, `{` or `;`.
    fn directive_words(&mut self) -> Result<Directive, ParseError> {
        let name = self.bump();
        let mut args = Vec::new();
        while matches!(self.peek().tok, Tok::Atom | Tok::Str | Tok::Punct(',')) {
            args.push(self.bump().text.to_string());
        }
        Ok(Directive { name: name.text.to_string(), args, span: name.span })
    }

    /// `( .param … , … )`
    fn params(&mut self) -> Result<Vec<VarDecl>, ParseError> {
        self.expect_punct('(')?;
        let mut out = Vec::new();
        if self.eat_punct(')') {
            return Ok(out);
        }
        loop {
            if !matches!(self.peek().text, ".param" | ".reg") {
                return self.err("a parameter declaration (`.param …`)");
            }
            out.push(self.var_decl(false)?);
            if self.eat_punct(')') {
                return Ok(out);
            }
            self.expect_punct(',')?;
        }
    }

    /// `{ statements }`, with the span of its `{`.
    fn block(&mut self) -> Result<(Vec<Stmt>, Span), ParseError> {
        self.enter()?;
        let open = self.expect_punct('{')?;
        let mut body = Vec::new();
        loop {
            match self.peek().tok {
                Tok::Punct('}') => {
                    self.bump();
                    break;
                }
                Tok::End => return Err(ParseError::new(open.span, "the `}` closing this block", "the end of the input")),
                _ => body.push(self.stmt()?),
            }
        }
        self.leave();
        Ok((body, open.span))
    }

    fn stmt(&mut self) -> Result<Stmt, ParseError> {
        let t = self.peek();
        match t.tok {
            Tok::Punct('{') => {
                let (b, span) = self.block()?;
                Ok(Stmt::Block(b, span))
            }
            Tok::Punct('@') => self.instruction().map(Stmt::Ins),
            Tok::Dotted => {
                if SPACES.contains(&t.text) || t.text.starts_with(".const") || LINKAGE.contains(&t.text) {
                    let d = self.var_decl(true)?;
                    self.expect_punct(';')?;
                    Ok(Stmt::Decl(d))
                } else if matches!(t.text, ".loc" | ".pragma") {
                    self.directive().map(Stmt::Directive)
                } else {
                    self.err("a statement (an instruction, a label, a declaration, `.loc` or `.pragma`)")
                }
            }
            Tok::Atom if self.peek_at(1).tok == Tok::Punct(':') => {
                let label = self.bump();
                self.bump();
                let next = self.peek();
                let name = label.text.to_string();
                match next.text {
                    ".branchtargets" | ".calltargets" => {
                        self.bump();
                        let mut targets = vec![self.word("a label")?.text.to_string()];
                        while self.eat_punct(',') {
                            targets.push(self.word("a label")?.text.to_string());
                        }
                        self.expect_punct(';')?;
                        Ok(if next.text == ".branchtargets" {
                            Stmt::BranchTargets { label: name, targets, span: label.span }
                        } else {
                            Stmt::CallTargets { label: name, targets, span: label.span }
                        })
                    }
                    ".callprototype" => {
                        self.bump();
                        let mut words = Vec::new();
                        while !self.is_punct(';') {
                            if self.peek().tok == Tok::End {
                                return self.err("`;` ending the prototype");
                            }
                            words.push(self.bump().text.to_string());
                        }
                        self.bump();
                        Ok(Stmt::CallPrototype { label: name, words, span: label.span })
                    }
                    _ => Ok(Stmt::Label(name, label.span)),
                }
            }
            Tok::Atom => self.instruction().map(Stmt::Ins),
            _ => self.err("a statement (an instruction, a label, a declaration or a directive)"),
        }
    }

    fn instruction(&mut self) -> Result<Instruction, ParseError> {
        let span = self.peek().span;
        let guard = if self.eat_punct('@') {
            let neg = self.eat_punct('!');
            Some((neg, self.word("a predicate")?.text.to_string()))
        } else {
            None
        };
        let op = self.word("an opcode")?;
        let mut chain = vec![op.text.to_string()];
        while self.peek().tok == Tok::Dotted {
            chain.push(self.bump().text[1..].to_string());
        }
        let mut operands = Vec::new();
        if !self.is_punct(';') {
            loop {
                operands.push(self.operand()?);
                if !self.eat_punct(',') {
                    break;
                }
            }
        }
        if !self.is_punct(';') {
            return self.err("`,` or `;` after an operand");
        }
        self.bump();
        Ok(Instruction { guard, chain, operands, span })
    }

    /// An operand: a primary, then `+off`/`-off` and `|b`.
    fn operand(&mut self) -> Result<Arg, ParseError> {
        self.enter()?;
        let mut o = self.primary()?;
        loop {
            if (self.is_punct('+') || self.is_punct('-')) && !matches!(o, Arg::Vector(_) | Arg::Address(_)) {
                let sign = self.bump().text;
                let neg = self.eat_punct('-');
                let n = self.word("an offset")?;
                let text = format!("{sign}{}{}", if neg { "-" } else { "" }, n.text);
                o = Arg::Offset(Box::new(o), text);
            } else if self.eat_punct('|') {
                let b = self.primary()?;
                o = Arg::Pair(Box::new(o), Box::new(b));
            } else {
                break;
            }
        }
        self.leave();
        Ok(o)
    }

    fn list(&mut self, close: char) -> Result<Vec<Arg>, ParseError> {
        let mut v = Vec::new();
        if self.eat_punct(close) {
            return Ok(v);
        }
        loop {
            v.push(self.operand()?);
            if self.eat_punct(close) {
                return Ok(v);
            }
            if !self.eat_punct(',') {
                return self.err(&format!("`,` or `{close}`"));
            }
        }
    }

    fn primary(&mut self) -> Result<Arg, ParseError> {
        let t = self.peek();
        match t.tok {
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
                Ok(Arg::Not(Box::new(o)))
            }
            Tok::Punct('-') => {
                self.bump();
                if self.peek().tok == Tok::Atom && self.peek().text.starts_with(|c: char| c.is_ascii_digit()) {
                    Ok(Arg::Number(format!("-{}", self.bump().text)))
                } else {
                    self.enter()?;
                    let o = self.primary()?;
                    self.leave();
                    Ok(Arg::Neg(Box::new(o)))
                }
            }
            Tok::Atom => {
                self.bump();
                if t.text.starts_with(|c: char| c.is_ascii_digit()) {
                    return Ok(Arg::Number(t.text.to_string()));
                }
                if t.text == "_" {
                    return Ok(Arg::Sink);
                }
                if self.is_punct('(') && matches!(t.text, "generic" | "mask") {
                    self.bump();
                    return Ok(Arg::Call(t.text.to_string(), self.list(')')?));
                }
                let mut name = t.text.to_string();
                let mut o = None;
                // `%tid.x`: a component of a special register is part of its name; other
                // suffixes are part selectors (`%r1.b0`, `%r2.h1`).
                while self.peek().tok == Tok::Dotted {
                    let s = self.bump().text;
                    match (&o, s) {
                        (None, ".x" | ".y" | ".z" | ".w") if name.starts_with('%') => name.push_str(s),
                        _ => o = Some(Arg::Part(Box::new(o.unwrap_or_else(|| Arg::Name(name.clone()))), s[1..].to_string())),
                    }
                }
                Ok(o.unwrap_or(Arg::Name(name)))
            }
            _ => self.err("an operand"),
        }
    }
}

/// An unsigned PTX integer: decimal, `0x` hex, `0b` binary or `0` octal, with an optional
/// `U` suffix.
pub fn parse_uint(s: &str) -> Option<u64> {
    let s = s.strip_suffix(['U', 'u']).unwrap_or(s);
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else if let Some(b) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        u64::from_str_radix(b, 2).ok()
    } else if s.len() > 1 && s.starts_with('0') {
        u64::from_str_radix(&s[1..], 8).ok()
    } else {
        s.parse().ok()
    }
}
