//! The syntax tree of a PTX file, as written: every directive, declaration, label and
//! instruction in order, with the spelling of each name, number and modifier kept, so that
//! [`print`](super::print) writes text that ptxas reads as it read the original. What a
//! name means (a register, a variable, a label, a function) is left to resolution; the
//! tree records only what the syntax says.
//!
//! The tree borrows: its names, numbers and modifiers are slices of the text, and its lists
//! (bodies, operands, directives' arguments, declarations' names) live in an [`Arena`] that
//! the caller keeps beside the text. So a parse allocates nothing per instruction, every
//! node is `Copy`, and the tree goes in one step when the arena does.

/// A position in the source: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub line: u32,
    pub col: u32,
}

/// The memory a tree's lists live in, and the text of what the parser joined from tokens
/// that were not adjacent (`ld .global` is the chain `ld.global`). Allocation is a pointer
/// bump; nothing is freed until the arena is dropped or reset. Bodies grow in a memory of
/// their own; a function's body is given room from the length of the text left, so that it
/// is not copied as it grows (what it does not use is given back or never touched).
///
/// ```
/// use ptxkit::import::{ast::{Arena, Arg}, parse::parse};
/// let mut arena = Arena::new();
/// let f = parse(".version 8.0\n.target sm_90\n.entry k() { bar.sync 0; ret; }", &arena)?;
/// assert_eq!(f.instructions()[0].operands, [Arg::Number("0")]);
/// // Trees made by hand take their lists from an arena too.
/// let addr = Arg::Address(arena.list(&[Arg::Name("%rd1")]));
/// assert_eq!(addr, Arg::Address(&[Arg::Name("%rd1")]));
/// // The next text, in the same memory.
/// arena.reset();
/// let g = parse(".version 8.0\n.target sm_90\n.entry j() { ret; }", &arena)?;
/// assert_eq!(g.instructions().len(), 1);
/// # Ok::<(), ptxkit::import::parse::ParseError>(())
/// ```
#[derive(Default)]
pub struct Arena {
    nodes: bumpalo::Bump,
    bodies: bumpalo::Bump,
}

impl Arena {
    pub fn new() -> Arena {
        Arena::default()
    }
    /// A copy of `items` in the arena.
    pub fn list<T: Copy>(&self, items: &[T]) -> &[T] {
        if items.is_empty() {
            return &[];
        }
        self.nodes.alloc_slice_copy(items)
    }
    /// `item` in the arena (an operand's inner operand).
    pub fn one<T: Copy>(&self, item: T) -> &T {
        self.nodes.alloc(item)
    }
    /// A copy of `s` in the arena.
    pub fn str(&self, s: &str) -> &str {
        self.nodes.alloc_str(s)
    }
    /// Empties the arena for the next tree, keeping its largest chunk of memory (a tool that
    /// reads many texts parses each into the same arena, so memory is not mapped anew).
    pub fn reset(&mut self) {
        self.nodes.reset();
        self.bodies.reset();
    }
    /// Bytes the arena holds (its chunks, used or not).
    pub fn allocated_bytes(&self) -> usize {
        self.nodes.allocated_bytes() + self.bodies.allocated_bytes()
    }
    /// An empty body to push statements on, with room for `room` of them where the memory
    /// can be had (a body that outgrows its room is copied to one twice as large: bumpalo
    /// allocates downwards, so even the last allocation moves when it grows); [`Body::done`]
    /// gives its slice.
    pub(crate) fn body(&self, room: usize) -> Body<'_> {
        let mut v = bumpalo::collections::Vec::new_in(&self.bodies);
        _ = v.try_reserve_exact(room);
        Body(v)
    }
}

/// A body being parsed, in [`Arena`]'s memory for bodies.
pub(crate) struct Body<'a>(bumpalo::collections::Vec<'a, Stmt<'a>>);

impl<'a> Body<'a> {
    #[inline]
    pub(crate) fn push(&mut self, s: Stmt<'a>) {
        self.0.push(s);
    }
    /// The body's statements; room left unused is given back where it is at least half of
    /// it (the body is copied down), else left untouched.
    pub(crate) fn done(mut self) -> &'a [Stmt<'a>] {
        self.0.shrink_to_fit();
        self.0.into_bump_slice()
    }
}

/// A whole file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct File<'a> {
    pub items: Vec<Item<'a>>,
}

impl<'a> File<'a> {
    /// Every instruction of every body, in order (nested blocks included).
    pub fn instructions(&self) -> Vec<&'a Instruction<'a>> {
        self.items
            .iter()
            .flat_map(|item| match item {
                Item::Function(f) => f.instructions(),
                _ => Vec::new(),
            })
            .collect()
    }
}

impl<'a> Function<'a> {
    /// The instructions of the body, in order (nested blocks included); none for a
    /// declaration.
    pub fn instructions(&self) -> Vec<&'a Instruction<'a>> {
        fn walk<'a>(body: &'a [Stmt<'a>], out: &mut Vec<&'a Instruction<'a>>) {
            for s in body {
                match s {
                    Stmt::Ins(i) => out.push(i),
                    Stmt::Block(b, _) => walk(b, out),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(self.body.unwrap_or_default(), &mut out);
        out
    }
}

/// A module-level statement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Item<'a> {
    /// `.version 8.7`, as written (`major.minor`).
    Version(&'a str, Span),
    /// `.target sm_90a, debug` (or `texmode_independent`, `map_f64_to_f32`).
    Target(&'a [&'a str], Span),
    /// `.address_size 64`.
    AddressSize(u32, Span),
    /// A directive that appears at module level and in bodies alike (`.file`, `.loc`,
    /// `.pragma`, …).
    Directive(Directive<'a>),
    /// A `.global`/`.const`/`.shared`/`.tex`/… variable.
    Var(VarDecl<'a>),
    /// A kernel or function, declared or defined.
    Function(Function<'a>),
    /// A `@@DWARF`/`.section` block of a `-G` build, kept line by line as written.
    Section(Section<'a>),
}

/// A directive statement that is kept as its words: `.file 1 "a.cu", 1700000000, 1234`,
/// `.loc 1 42 7`, `.loc 1 42 7, function_name $L__info_string0, inlined_at 1 30 2`,
/// `.pragma "nounroll"`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Directive<'a> {
    /// The directive's name with its dot: `.file`.
    pub name: &'a str,
    /// Its arguments as tokens, spelled as written (strings with their quotes, `,` kept as
    /// a token so the text prints back).
    pub args: &'a [&'a str],
    pub span: Span,
}

/// A `.section` block: its name and the lines inside its braces, verbatim.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Section<'a> {
    pub name: &'a str,
    pub lines: &'a [&'a str],
    pub span: Span,
}

/// A variable or parameter declaration: `.visible .global .align 8 .b64 table[4] = {1, 2, 3, 4};`,
/// `.reg .b32 %r<120>;`, `.param .u64 .ptr .global .align 16 p`, `.shared .align 16 .b8 buf[]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VarDecl<'a> {
    /// `.visible`, `.extern`, `.weak`, `.common`.
    pub linkage: &'a [&'a str],
    /// `.global`, `.const`, `.shared`, `.local`, `.param`, `.reg`, `.tex`, … (with a
    /// bank where written: `.const[2]`).
    pub space: &'a str,
    /// The attributes and the type, in the order written: `.align 16`, `.v4`, `.ptr`, a
    /// space of `.ptr` (`.global`), `.attribute(.managed)`, and the type itself.
    pub attrs: &'a [&'a str],
    /// The element type (also in `attrs`, where it was written): `.b32`, `.texref`,
    /// `.samplerref`, `.surfref`, `.f16x2`, …
    pub ty: &'a str,
    /// The names declared (several: `.reg .b32 a, b;`), each with its shape.
    pub names: &'a [VarName<'a>],
    /// `= …` (one declared name only).
    pub init: Option<Init<'a>>,
    pub span: Span,
}

/// One declared name: `a`, `a[4][2]`, `buf[]`, `%r<120>`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VarName<'a> {
    pub name: &'a str,
    /// Array dimensions; `None` for `[]`.
    pub dims: &'a [Option<u64>],
    /// `<n>`: a range of `n` names `%r0` … `%r{n-1}`.
    pub range: Option<u32>,
}

impl VarName<'_> {
    /// The names declared: `%r0` … `%r{n-1}` for a range `%r<n>`, else the name itself.
    pub fn names(&self) -> impl Iterator<Item = String> + '_ {
        let range = self.range.map(|n| (0..n).map(move |i| format!("{}{i}", self.name)));
        range.into_iter().flatten().chain(self.range.is_none().then(|| self.name.to_string()))
    }
}

/// An initialiser.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Init<'a> {
    /// A number, a name, `generic(name)`, `name+4`, … as its operand form.
    Value(Arg<'a>),
    /// `{a, b, …}`, nested for arrays of arrays.
    List(&'a [Init<'a>]),
    /// `field = value` in a sampler's or texture's initialiser (`filter_mode = linear`).
    Field(&'a str, Arg<'a>),
}

/// `.entry` or `.func`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    Entry,
    Func,
}

/// A kernel or device function.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Function<'a> {
    /// `.visible`, `.extern`, `.weak`.
    pub linkage: &'a [&'a str],
    pub kind: FunctionKind,
    /// `.func (.param .b32 r) name (…)`: the return parameters.
    pub rets: Option<&'a [VarDecl<'a>]>,
    pub name: &'a str,
    /// The parameter list; `None` where the declaration has no parentheses.
    pub params: Option<&'a [VarDecl<'a>]>,
    /// Performance and other directives between the parameters and the body, as written:
    /// `.maxntid 128, 1, 1`, `.reqntid 256`, `.minnctapersm 1`, `.maxnreg 168`,
    /// `.noreturn`, `.explicitcluster`, `.reqnctapercluster 2, 1, 1`, `.maxclusterrank 8`,
    /// `.pragma "nounroll"`.
    pub directives: &'a [Directive<'a>],
    /// The body; `None` for a declaration (`;`).
    pub body: Option<&'a [Stmt<'a>]>,
    pub span: Span,
}

/// A statement of a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stmt<'a> {
    /// `name:`
    Label(&'a str, Span),
    /// A declaration (in the arena, so that a statement stays the size of an instruction).
    Decl(&'a VarDecl<'a>),
    Ins(Instruction<'a>),
    /// `{ … }`: a nested scope.
    Block(&'a [Stmt<'a>], Span),
    /// `.loc`, `.pragma`, and other directives kept as words.
    Directive(Directive<'a>),
    /// `name: .branchtargets a, b, c;`
    BranchTargets {
        label: &'a str,
        targets: &'a [&'a str],
        span: Span,
    },
    /// `name: .callprototype (.param .b32 _) _ (.param .b32 _);`, kept as its words after
    /// the directive.
    CallPrototype {
        label: &'a str,
        words: &'a [&'a str],
        span: Span,
    },
    /// `name: .calltargets a, b;`
    CallTargets {
        label: &'a str,
        targets: &'a [&'a str],
        span: Span,
    },
}

/// An instruction: `@!%p1 ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Instruction<'a> {
    /// `@p` (false) or `@!p` (true), with the predicate's name.
    pub guard: Option<(bool, &'a str)>,
    /// The opcode and its modifiers as written, dotted: `ld.global.nc.v4.f32`. A modifier
    /// holds no dot (`.shared::cluster` is one), so [`Instruction::parts`] splits it.
    pub chain: &'a str,
    pub operands: &'a [Arg<'a>],
    pub span: Span,
}

impl<'a> Instruction<'a> {
    /// The opcode and its modifiers: `ld`, `global`, `nc`, `v4`, `f32`.
    pub fn parts(&self) -> std::str::Split<'a, char> {
        self.chain.split('.')
    }
}

/// An operand, as written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg<'a> {
    /// A name: a register (`%r1`, `%tid.x`), a variable, a label or a function.
    Name(&'a str),
    /// A number, with its spelling: `42`, `0x2A`, `052`, `0b101`, `42U`, `-1`, `0f3F800000`,
    /// `0d3FF0000000000000`, `1.5`.
    Number(&'a str),
    /// `name+4`, `name-8`, `name+0x10` (in an address or an initialiser): the base and the
    /// offset with its sign. (Pairs are in the arena, so that an operand is 24 bytes.)
    Offset(&'a (Arg<'a>, &'a str)),
    /// `!p`
    Not(&'a Arg<'a>),
    /// `-%r1` (a negated operand of a video instruction).
    Neg(&'a Arg<'a>),
    /// `%r1.b0`, `%r2.h1`: a register with a part selector (and `%r1.x`-style vector parts).
    Part(&'a (Arg<'a>, &'a str)),
    /// `[a]`, `[a+4]`, `[a, {c0, c1}]`, `[tex, smp, {x, y}]`: what is inside the brackets.
    Address(&'a [Arg<'a>]),
    /// `{a, b, …}`
    Vector(&'a [Arg<'a>]),
    /// `a|b`
    Pair(&'a Arg<'a>, &'a Arg<'a>),
    /// `_`
    Sink,
    /// `generic(name)`, `mask(…)`-style calls in initialisers, kept as name and arguments.
    Call(&'a (&'a str, &'a [Arg<'a>])),
    /// `(a, b)` argument lists of `call`.
    Paren(&'a [Arg<'a>]),
}
