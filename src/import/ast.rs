//! The syntax tree of a PTX file, as written: every directive, declaration, label and
//! instruction in order, with the spelling of each name, number and modifier kept, so that
//! [`print`](super::print) writes text that ptxas reads as it read the original. What a
//! name means (a register, a variable, a label, a function) is left to resolution; the
//! tree records only what the syntax says.

/// A position in the source: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub line: u32,
    pub col: u32,
}

/// A whole file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct File {
    pub items: Vec<Item>,
}

impl File {
    /// Every instruction of every body, in order (nested blocks included).
    pub fn instructions(&self) -> Vec<&Instruction> {
        self.items
            .iter()
            .flat_map(|item| match item {
                Item::Function(f) => f.instructions(),
                _ => Vec::new(),
            })
            .collect()
    }
}

impl Function {
    /// The instructions of the body, in order (nested blocks included); none for a
    /// declaration.
    pub fn instructions(&self) -> Vec<&Instruction> {
        fn walk<'a>(body: &'a [Stmt], out: &mut Vec<&'a Instruction>) {
            for s in body {
                match s {
                    Stmt::Ins(i) => out.push(i),
                    Stmt::Block(b, _) => walk(b, out),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(self.body.as_deref().unwrap_or(&[]), &mut out);
        out
    }
}

/// A module-level statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `.version 8.7`, as written (`major.minor`).
    Version(String, Span),
    /// `.target sm_90a, debug` (or `texmode_independent`, `map_f64_to_f32`).
    Target(Vec<String>, Span),
    /// `.address_size 64`.
    AddressSize(u32, Span),
    /// A directive that appears at module level and in bodies alike (`.file`, `.loc`,
    /// `.pragma`, …).
    Directive(Directive),
    /// A `.global`/`.const`/`.shared`/`.tex`/… variable.
    Var(VarDecl),
    /// A kernel or function, declared or defined.
    Function(Function),
    /// A `@@DWARF`/`.section` block of a `-G` build, kept line by line as written.
    Section(Section),
}

/// A directive statement that is kept as its words: `.file 1 "a.cu", 1700000000, 1234`,
/// `.loc 1 42 7`, `.loc 1 42 7, function_name $L__info_string0, inlined_at 1 30 2`,
/// `.pragma "nounroll"`.
#[derive(Clone, Debug, PartialEq)]
pub struct Directive {
    /// The directive's name with its dot: `.file`.
    pub name: String,
    /// Its arguments as tokens, spelled as written (strings with their quotes, `,` kept as
    /// a token so the text prints back).
    pub args: Vec<String>,
    pub span: Span,
}

/// A `.section` block: its name and the lines inside its braces, verbatim.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub name: String,
    pub lines: Vec<String>,
    pub span: Span,
}

/// A variable or parameter declaration: `.visible .global .align 8 .b64 table[4] = {1, 2, 3, 4};`,
/// `.reg .b32 %r<120>;`, `.param .u64 .ptr .global .align 16 p`, `.shared .align 16 .b8 buf[]`.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    /// `.visible`, `.extern`, `.weak`, `.common`.
    pub linkage: Vec<String>,
    /// `.global`, `.const`, `.shared`, `.local`, `.param`, `.reg`, `.tex`, … (with a
    /// bank or window where written: `.const[2]` as `.const`, see `bank`).
    pub space: String,
    /// The attributes and the type, in the order written: `.align 16`, `.v4`, `.ptr`, a
    /// space of `.ptr` (`.global`), `.attribute(.managed)`, and the type itself.
    pub attrs: Vec<String>,
    /// The element type (also in `attrs`, where it was written): `.b32`, `.texref`,
    /// `.samplerref`, `.surfref`, `.f16x2`, …
    pub ty: String,
    /// The names declared (several: `.reg .b32 a, b;`), each with its shape.
    pub names: Vec<VarName>,
    /// `= …` (one declared name only).
    pub init: Option<Init>,
    pub span: Span,
}

/// One declared name: `a`, `a[4][2]`, `buf[]`, `%r<120>`.
#[derive(Clone, Debug, PartialEq)]
pub struct VarName {
    pub name: String,
    /// Array dimensions; `None` for `[]`.
    pub dims: Vec<Option<u64>>,
    /// `<n>`: a range of `n` names `%r0` … `%r{n-1}`.
    pub range: Option<u32>,
}

impl VarName {
    /// The names declared: `%r0` … `%r{n-1}` for a range `%r<n>`, else the name itself.
    pub fn names(&self) -> impl Iterator<Item = String> + '_ {
        let range = self.range.map(|n| (0..n).map(move |i| format!("{}{i}", self.name)));
        range.into_iter().flatten().chain(self.range.is_none().then(|| self.name.clone()))
    }
}

/// An initialiser.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    /// A number, a name, `generic(name)`, `name+4`, … as its operand form.
    Value(Arg),
    /// `{a, b, …}`, nested for arrays of arrays.
    List(Vec<Init>),
    /// `field = value` in a sampler's or texture's initialiser (`filter_mode = linear`).
    Field(String, Arg),
}

/// `.entry` or `.func`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    Entry,
    Func,
}

/// A kernel or device function.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// `.visible`, `.extern`, `.weak`.
    pub linkage: Vec<String>,
    pub kind: FunctionKind,
    /// `.func (.param .b32 r) name (…)`: the return parameters.
    pub rets: Option<Vec<VarDecl>>,
    pub name: String,
    /// The parameter list; `None` where the declaration has no parentheses.
    pub params: Option<Vec<VarDecl>>,
    /// Performance and other directives between the parameters and the body, as written:
    /// `.maxntid 128, 1, 1`, `.reqntid 256`, `.minnctapersm 1`, `.maxnreg 168`,
    /// `.noreturn`, `.explicitcluster`, `.reqnctapercluster 2, 1, 1`, `.maxclusterrank 8`,
    /// `.pragma "nounroll"`.
    pub directives: Vec<Directive>,
    /// The body; `None` for a declaration (`;`).
    pub body: Option<Vec<Stmt>>,
    pub span: Span,
}

/// A statement of a body.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `name:`
    Label(String, Span),
    Decl(VarDecl),
    Ins(Instruction),
    /// `{ … }`: a nested scope.
    Block(Vec<Stmt>, Span),
    /// `.loc`, `.pragma`, and other directives kept as words.
    Directive(Directive),
    /// `name: .branchtargets a, b, c;`
    BranchTargets {
        label: String,
        targets: Vec<String>,
        span: Span,
    },
    /// `name: .callprototype (.param .b32 _) _ (.param .b32 _);`, kept as its words after
    /// the directive.
    CallPrototype {
        label: String,
        words: Vec<String>,
        span: Span,
    },
    /// `name: .calltargets a, b;`
    CallTargets {
        label: String,
        targets: Vec<String>,
        span: Span,
    },
}

/// An instruction: `@!%p1 ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];`.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    /// `@p` (false) or `@!p` (true), with the predicate's name.
    pub guard: Option<(bool, String)>,
    /// The opcode and its modifiers, as written: `["ld", "global", "nc", "v4", "f32"]`.
    pub chain: Vec<String>,
    pub operands: Vec<Arg>,
    pub span: Span,
}

impl Instruction {
    /// The chain as written, dotted: `ld.global.nc.v4.f32`.
    pub fn chain_text(&self) -> String {
        self.chain.join(".")
    }
}

/// An operand, as written.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A name: a register (`%r1`, `%tid.x`), a variable, a label or a function.
    Name(String),
    /// A number, with its spelling: `42`, `0x2A`, `052`, `0b101`, `42U`, `-1`, `0f3F800000`,
    /// `0d3FF0000000000000`, `1.5`.
    Number(String),
    /// `name+4`, `name-8`, `name+0x10` (in an address or an initialiser).
    Offset(Box<Arg>, String),
    /// `!p`
    Not(Box<Arg>),
    /// `-%r1` (a negated operand of a video instruction).
    Neg(Box<Arg>),
    /// `%r1.b0`, `%r2.h1`: a register with a part selector (and `%r1.x`-style vector parts).
    Part(Box<Arg>, String),
    /// `[a]`, `[a+4]`, `[a, {c0, c1}]`, `[tex, smp, {x, y}]`: what is inside the brackets.
    Address(Vec<Arg>),
    /// `{a, b, …}`
    Vector(Vec<Arg>),
    /// `a|b`
    Pair(Box<Arg>, Box<Arg>),
    /// `_`
    Sink,
    /// `generic(name)`, `mask(…)`-style calls in initialisers, kept as name and arguments.
    Call(String, Vec<Arg>),
    /// `(a, b)` argument lists of `call`.
    Paren(Vec<Arg>),
}
