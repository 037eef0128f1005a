//! The parser: PTX text to the syntax tree of [`ast`](super::ast), by recursive descent over
//! the tokens that the [`Lexer`] streams. Errors carry the line and column, what was
//! expected and what was found; a character that is no token is the error wherever it
//! stands, as if the whole text had been lexed first. Nesting is bounded ([`MAX_DEPTH`]),
//! and every loop consumes a token or stops, so no input makes it overflow the stack or
//! loop.
//!
//! The tree's names are slices of the text. Its lists are built on the parser's scratch
//! stacks (a list's items above the items of the lists it is inside) and copied into the
//! [`Arena`] when complete, and its bodies grow in the arena itself, so a statement costs
//! no allocation of its own.

mod body;
mod quick;

use super::ast::*;
pub use super::error::ParseError;
use super::lex::{Lexer, Tok, Token};

/// How deeply blocks, braces, brackets and parentheses may nest.
pub const MAX_DEPTH: u32 = 200;

/// Parses a whole PTX file into a tree that borrows from `src` and keeps its lists in
/// `arena`.
///
/// ```
/// use ptxkit::import::{ast, parse};
/// let arena = ast::Arena::new();
/// let f = parse::parse(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { ret; }", &arena)?;
/// let ast::Item::Function(k) = &f.items[3] else { panic!() };
/// assert_eq!(k.name, "k");
/// let e = parse::parse(".version 8.0\n.entry k( { ret; }", &arena).unwrap_err();
/// assert_eq!(e.to_string(), "line 2, column 11: expected a parameter declaration (`.param …`), found `{`");
/// # Ok::<(), ptxkit::import::parse::ParseError>(())
/// ```
pub fn parse<'a>(src: &'a str, arena: &'a Arena) -> Result<File<'a>, ParseError> {
    let mut p = Parser { src, arena, lx: Lexer::new(src), depth: 0, args: Vec::new(), words: Vec::new(), error: None };
    let mut items = Vec::new();
    while p.tok() != Tok::End {
        match p.item() {
            Ok(item) => items.push(item),
            Err(Stop) => break,
        }
    }
    // A character that is no token comes first, wherever it is.
    while p.tok() != Tok::End {
        p.bump();
    }
    match (p.lx.error(), p.error) {
        (Some(e), _) => Err(e.clone()),
        (None, Some(e)) => Err(e),
        (None, None) => Ok(File { items }),
    }
}

/// The parser stopped at an error (kept in [`Parser::error`]).
struct Stop;

type Parsed<T> = Result<T, Stop>;

struct Parser<'a> {
    src: &'a str,
    arena: &'a Arena,
    /// At the current token.
    lx: Lexer<'a>,
    depth: u32,
    /// The operands of the lists being parsed, innermost last.
    args: Vec<Arg<'a>>,
    /// The words of the word list being parsed.
    words: Vec<&'a str>,
    /// Why the parser stopped, once it has.
    error: Option<ParseError>,
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

/// Text made of tokens as written, without what stood between them (spaces, comments): a
/// slice of the source where they touch, as they do in compiler output, else a copy in the
/// arena.
struct Joined {
    start: usize,
    end: usize,
    /// The text so far, once two tokens did not touch.
    apart: Option<String>,
}

impl Joined {
    fn new(at: usize, text: &str) -> Joined {
        Joined { start: at, end: at + text.len(), apart: None }
    }
    #[inline]
    fn push(&mut self, src: &str, at: usize, text: &str) {
        match &mut self.apart {
            None if at == self.end => self.end = at + text.len(),
            None => self.apart = Some(format!("{}{}", &src[self.start..self.end], text)),
            Some(s) => s.push_str(text),
        }
    }
    fn text<'a>(&self, src: &'a str, arena: &'a Arena) -> &'a str {
        match &self.apart {
            None => &src[self.start..self.end],
            Some(s) => arena.str(s),
        }
    }
}

impl<'a> Parser<'a> {
    #[inline]
    fn tok(&self) -> Tok {
        self.lx.tok()
    }
    #[inline]
    fn text(&self) -> &'a str {
        self.lx.text()
    }
    fn span(&self) -> Span {
        self.lx.span()
    }
    /// What the token after the current one is (lexed on a copy of the lexer: the parser
    /// looks this far only in initialisers).
    fn peek2(&self) -> Tok {
        let mut lx = self.lx.clone();
        lx.bump();
        lx.tok()
    }
    #[inline]
    fn bump(&mut self) {
        self.lx.bump();
    }
    /// The current token's text, the parser moved past it.
    #[inline]
    fn take(&mut self) -> &'a str {
        let t = self.text();
        self.bump();
        t
    }
    /// Stops at an error: `expected` at `t`, which was found.
    #[cold]
    fn err_at<T>(&mut self, t: &Token, expected: &str) -> Parsed<T> {
        self.error = Some(ParseError::new(t.span, expected, &shown(t)));
        Err(Stop)
    }
    /// Stops at an error: `expected` at the current token.
    #[cold]
    fn err<T>(&mut self, expected: &str) -> Parsed<T> {
        let t = self.lx.token();
        self.err_at(&t, expected)
    }
    #[inline]
    fn is_punct(&self, c: char) -> bool {
        self.tok() == Tok::Punct(c)
    }
    #[inline]
    fn eat_punct(&mut self, c: char) -> bool {
        let yes = self.is_punct(c);
        if yes {
            self.bump();
        }
        yes
    }
    /// `c`, with its position.
    fn expect_punct(&mut self, c: char) -> Parsed<Span> {
        if self.is_punct(c) {
            let span = self.span();
            self.bump();
            Ok(span)
        } else {
            self.err(&format!("`{c}`"))
        }
    }
    /// A word's text.
    #[inline]
    fn word(&mut self, what: &str) -> Parsed<&'a str> {
        if self.tok() == Tok::Atom {
            Ok(self.take())
        } else {
            self.err(what)
        }
    }
    /// A word, with its position.
    fn word_token(&mut self, what: &str) -> Parsed<Token<'a>> {
        if self.tok() == Tok::Atom {
            Ok(self.lx.next())
        } else {
            self.err(what)
        }
    }
    #[inline]
    fn enter(&mut self) -> Parsed<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err(&format!("at most {MAX_DEPTH} levels of nesting"));
        }
        Ok(())
    }
    #[inline]
    fn leave(&mut self) {
        self.depth -= 1;
    }
    /// The words pushed on [`Parser::words`] since `mark`, in the arena.
    fn words_from(&mut self, mark: usize) -> &'a [&'a str] {
        let list = self.arena.list(&self.words[mark..]);
        self.words.truncate(mark);
        list
    }
    /// The operands pushed on [`Parser::args`] since `mark`, in the arena.
    #[inline]
    fn args_from(&mut self, mark: usize) -> &'a [Arg<'a>] {
        let list = self.arena.list(&self.args[mark..]);
        self.args.truncate(mark);
        list
    }

    /// A module-level item.
    fn item(&mut self) -> Parsed<Item<'a>> {
        let t = self.lx.token();
        if t.tok != Tok::Dotted {
            return self.err("a directive (`.version`, `.target`, a variable, `.entry`, `.func`, …)");
        }
        match t.text {
            ".version" => {
                self.bump();
                let v = self.word("a version (`8.0`)")?;
                Ok(Item::Version(v, t.span))
            }
            ".target" => {
                self.bump();
                let mark = self.words.len();
                let first = self.word("a target (`sm_90a`)")?;
                self.words.push(first);
                while self.eat_punct(',') {
                    let w = self.word("a target or a target option")?;
                    self.words.push(w);
                }
                Ok(Item::Target(self.words_from(mark), t.span))
            }
            ".address_size" => {
                self.bump();
                let n = self.word_token("32 or 64")?;
                match n.text.parse() {
                    Ok(v @ (32 | 64)) => Ok(Item::AddressSize(v, t.span)),
                    _ => self.err_at(&n, "32 or 64"),
                }
            }
            ".section" => self.section().map(Item::Section),
            ".file" | ".loc" | ".pragma" | ".alias" => self.directive().map(Item::Directive),
            _ => {
                // Linkage, then a function or a variable.
                let linkage = self.linkage();
                match self.text() {
                    ".entry" | ".func" => self.function(t.span, linkage).map(Item::Function),
                    w if SPACES.contains(&w) || w.starts_with(".const[") => {
                        let v = self.var_decl(t.span, linkage, true)?;
                        self.expect_punct(';')?;
                        Ok(Item::Var(v))
                    }
                    _ => self.err_at(&t, "a directive (`.version`, `.target`, a variable, `.entry`, `.func`, …)"),
                }
            }
        }
    }

    /// `.visible`, `.extern`, `.weak`, `.common`: the linkage words before a declaration.
    fn linkage(&mut self) -> &'a [&'a str] {
        let mark = self.words.len();
        while LINKAGE.contains(&self.text()) {
            let w = self.take();
            self.words.push(w);
        }
        self.words_from(mark)
    }

    /// A directive kept as words: its name, then tokens up to the end of the statement
    /// (`;`, or the end of the line for `.file` and `.loc`, which take none).
    fn directive(&mut self) -> Parsed<Directive<'a>> {
        let name = self.lx.next();
        let mark = self.words.len();
        let ends_at_line = matches!(name.text, ".file" | ".loc");
        loop {
            match self.tok() {
                Tok::End => break,
                Tok::Punct(';') => {
                    self.bump();
                    break;
                }
                // A line break ends it, unless after a comma.
                _ if ends_at_line && self.lx.line() != name.span.line && (self.words.len() == mark || self.words.last() != Some(&",")) => {
                    break
                }
                Tok::Punct('{' | '}') => return self.err(&format!("the end of the `{}` directive", name.text)),
                _ => {
                    let w = self.take();
                    self.words.push(w);
                }
            }
        }
        Ok(Directive { name: name.text, args: self.words_from(mark), span: name.span })
    }

    /// `.section name { … }`, the lines inside kept verbatim.
    fn section(&mut self) -> Parsed<Section<'a>> {
        let span = self.span();
        self.bump();
        if !matches!(self.tok(), Tok::Atom | Tok::Dotted) {
            return self.err("a section name (`.debug_info`)");
        }
        let name = self.take();
        let (open, open_at) = (self.span(), self.lx.at());
        self.expect_punct('{')?;
        // The raw text between the braces (no nesting in DWARF sections).
        let mut depth = 1;
        let close_at = loop {
            let (tok, at) = (self.tok(), self.lx.at());
            self.bump();
            match tok {
                Tok::End => {
                    let end = Token { tok: Tok::End, text: "", span: open, at };
                    return self.err_at(&end, "the `}` closing this section");
                }
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth -= 1;
                    if depth == 0 {
                        break at;
                    }
                }
                _ => {}
            }
        };
        let raw = &self.src[open_at + 1..close_at];
        let mark = self.words.len();
        self.words.extend(raw.lines().map(str::trim).filter(|l| !l.is_empty()));
        Ok(Section { name, lines: self.words_from(mark), span })
    }

    /// A variable or parameter declaration after its linkage, up to (not including) `;`,
    /// `,` or `)`. At module level and in bodies, an initialiser may follow.
    fn var_decl(&mut self, span: Span, linkage: &'a [&'a str], init_allowed: bool) -> Parsed<VarDecl<'a>> {
        let sp = self.text();
        if !(SPACES.contains(&sp) || sp.starts_with(".const")) || self.tok() != Tok::Dotted {
            return self.err("a state space (`.global`, `.shared`, `.reg`, `.param`, …)");
        }
        self.bump();
        let mut space = sp;
        // `.const[2]`: a constant bank.
        if space == ".const" && self.is_punct('[') {
            self.bump();
            let n = self.word("a bank number")?;
            self.expect_punct(']')?;
            space = self.arena.str(&format!(".const[{n}]"));
        }
        // The attributes and the type, in the order written (`.u64 .ptr .global .align 16`,
        // `.align 16 .b8`): the type is the first word that is not an attribute.
        let mark = self.words.len();
        let mut ty = None;
        while self.tok() == Tok::Dotted {
            let t = self.lx.next();
            match t.text {
                ".align" => {
                    let n = self.word("an alignment")?;
                    let a = self.arena.str(&format!(".align {n}"));
                    self.words.push(a);
                }
                ".attribute" => {
                    // `.attribute(.managed)`
                    self.expect_punct('(')?;
                    let mut inner = Vec::new();
                    while !self.is_punct(')') && self.tok() != Tok::End {
                        inner.push(self.take());
                    }
                    self.expect_punct(')')?;
                    let a = self.arena.str(&format!(".attribute({})", inner.join(" ")));
                    self.words.push(a);
                }
                ".ptr" | ".v2" | ".v4" | ".v8" | ".global" | ".shared" | ".const" | ".local" => self.words.push(t.text),
                _ if ty.is_none() => {
                    ty = Some(t.text);
                    self.words.push(t.text);
                }
                _ => return self.err_at(&t, "a name"),
            }
        }
        let attrs = self.words_from(mark);
        let Some(ty) = ty else { return self.err("a type (`.b32`, `.u64`, `.texref`, …)") };
        let mut names = vec![self.var_name()?];
        while init_allowed && self.is_punct(',') && space == ".reg" {
            self.bump();
            names.push(self.var_name()?);
        }
        let init = if init_allowed && self.eat_punct('=') { Some(self.init()?) } else { None };
        Ok(VarDecl { linkage, space, attrs, ty, names: self.arena.list(&names), init, span })
    }

    fn var_name(&mut self) -> Parsed<VarName<'a>> {
        let name = self.word("a name")?;
        let mut dims = Vec::new();
        let mut range = None;
        if self.eat_punct('<') {
            let n = self.word_token("a register count")?;
            match n.text.parse() {
                Ok(v) => range = Some(v),
                Err(_) => return self.err_at(&n, "a register count"),
            }
            self.expect_punct('>')?;
        }
        while self.eat_punct('[') {
            if self.eat_punct(']') {
                dims.push(None);
                continue;
            }
            let n = self.word_token("an array length")?;
            let Some(v) = parse_uint(n.text) else { return self.err_at(&n, "an array length") };
            dims.push(Some(v));
            self.expect_punct(']')?;
        }
        Ok(VarName { name, dims: self.arena.list(&dims), range })
    }

    fn init(&mut self) -> Parsed<Init<'a>> {
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
            return Ok(Init::List(self.arena.list(&list)));
        }
        // `addr_mode_0 = clamp_to_edge` in a sampler's initialiser.
        if self.tok() == Tok::Atom && self.peek2() == Tok::Punct('=') {
            let field = self.take();
            self.bump();
            self.operand()?;
            return Ok(Init::Field(field, self.pop()));
        }
        self.operand()?;
        Ok(Init::Value(self.pop()))
    }

    /// `.entry`/`.func` after its linkage, declared or defined.
    fn function(&mut self, span: Span, linkage: &'a [&'a str]) -> Parsed<Function<'a>> {
        let kind = if self.take() == ".entry" { FunctionKind::Entry } else { FunctionKind::Func };
        let rets = if kind == FunctionKind::Func && self.is_punct('(') { Some(self.params()?) } else { None };
        let name = self.word("the function's name")?;
        let params = if self.is_punct('(') { Some(self.params()?) } else { None };
        let mut directives = Vec::new();
        while self.tok() == Tok::Dotted {
            directives.push(self.directive_words());
        }
        let body = if self.eat_punct(';') {
            None
        } else if self.is_punct('{') {
            Some(self.block()?.0)
        } else {
            return self.err("the function's body `{` or `;`");
        };
        Ok(Function { linkage, kind, rets, name, params, directives: self.arena.list(&directives), body, span })
    }

    /// A directive after a function's parameters: its name and numbers or strings, with
    /// commas, up to the next directive, `{` or `;`.
    fn directive_words(&mut self) -> Directive<'a> {
        let name = self.lx.next();
        let mark = self.words.len();
        while matches!(self.tok(), Tok::Atom | Tok::Str | Tok::Punct(',')) {
            let w = self.take();
            self.words.push(w);
        }
        Directive { name: name.text, args: self.words_from(mark), span: name.span }
    }

    /// `( .param … , … )`
    fn params(&mut self) -> Parsed<&'a [VarDecl<'a>]> {
        self.expect_punct('(')?;
        let mut out = Vec::new();
        if !self.eat_punct(')') {
            loop {
                if !matches!(self.text(), ".param" | ".reg") {
                    return self.err("a parameter declaration (`.param …`)");
                }
                let span = self.span();
                out.push(self.var_decl(span, &[], false)?);
                if self.eat_punct(')') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        Ok(self.arena.list(&out))
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
