//! Errors from building and printing modules.

use std::fmt;

/// What went wrong, with enough context to find it.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// A name that is not a PTX identifier (PTX ISA 4.4), or a reserved one.
    InvalidIdentifier { name: String, why: &'static str },
    /// Two kernels, functions or variables with one name.
    DuplicateSymbol { name: String },
    /// A label placed twice.
    DuplicateLabel { kernel: String, label: String },
    /// A label branched to but never placed.
    UndefinedLabel { kernel: String, label: String },
    /// An immediate outside the range of the instruction type.
    ImmediateOutOfRange { kernel: String, value: String, ty: &'static str },
    /// An immediate outside the set of values an operand allows (`imm(s32: -1|1)`).
    ImmediateNotAllowed { kernel: String, value: i64, allowed: &'static [i64] },
    /// A register, label or variable from another kernel or module.
    ForeignValue { kernel: String, what: String },
    /// An instruction the target lacks.
    Unsupported { kernel: String, instruction: String, needs: String, target: String },
    /// An explicit `.version` older than the instructions need.
    VersionTooOld { kernel: String, instruction: String, needs: String, version: String },
    /// An inferred `.version` past the module's limit ([`Module::max_version`], PTX ISA 9.0
    /// unless raised): an instruction or the target needs a newer ISA than the toolchain the
    /// module is meant for assembles (`kernel` empty for the target).
    ///
    /// [`Module::max_version`]: crate::builder::Module::max_version
    NeedsNewerIsa { kernel: String, instruction: String, needs: String, limit: String },
    /// A form with no ISA requirement data (the table needs a sweep).
    NoIsaData { instruction: String },
    /// A value outside what a directive or declaration allows (`kernel` empty for a
    /// module-level setting).
    InvalidArgument { kernel: String, what: String },
    /// A kernel or function whose `Module::kernel`/`Module::func` call returned an error: a
    /// module missing it has no text.
    BuildFailed { kernel: String, error: Box<Error> },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        use Error::*;
        match self {
            InvalidIdentifier { name, why } => write!(f, "invalid PTX identifier `{name}`: {why}"),
            DuplicateSymbol { name } => write!(f, "`{name}` is defined twice in the module"),
            DuplicateLabel { kernel, label } => write!(f, "kernel `{kernel}`: label `{label}` is placed twice"),
            UndefinedLabel { kernel, label } => write!(f, "kernel `{kernel}`: label `{label}` is used but never placed"),
            ImmediateOutOfRange { kernel, value, ty } => write!(f, "kernel `{kernel}`: immediate {value} is out of range for .{ty}"),
            ImmediateNotAllowed { kernel, value, allowed } => {
                let list: Vec<String> = allowed.iter().map(|v| v.to_string()).collect();
                write!(f, "kernel `{kernel}`: immediate {value} is not allowed here; the operand takes {}", list.join(", "))
            }
            ForeignValue { kernel, what } => write!(f, "kernel `{kernel}`: {what} belongs to another kernel or module"),
            Unsupported { kernel, instruction, needs, target } => {
                write!(f, "kernel `{kernel}`: `{instruction}` is not on {target}: it needs {needs}")
            }
            VersionTooOld { kernel, instruction, needs, version } => {
                write!(f, "kernel `{kernel}`: `{instruction}` needs PTX ISA {needs}, but the module asks for .version {version}")
            }
            NeedsNewerIsa { kernel, instruction, needs, limit } => {
                if !kernel.is_empty() {
                    write!(f, "kernel `{kernel}`: ")?;
                }
                let since = crate::core::target::Version::parse(needs).and_then(|v| v.cuda_release());
                let since = since.map_or(String::new(), |(a, b)| format!(" (CUDA {a}.{b}: ptxas {a}.{b} or newer assembles it)"));
                write!(
                    f,
                    "`{instruction}` needs PTX ISA {needs}{since}, past this module's limit of {limit}; raise the limit with \
                     `Module::max_version(Version::new({}))` and assemble with that ptxas (`ptxkit::ptxas::compile`), or use \
                     what ISA {limit} has",
                    needs.replace('.', ", ")
                )
            }
            NoIsaData { instruction } => write!(f, "no ISA requirement recorded for `{instruction}` (run the isa_sweep example)"),
            // Module-level refusals (the texturing mode) name no kernel.
            InvalidArgument { kernel, what } if kernel.is_empty() => f.write_str(what),
            InvalidArgument { kernel, what } => write!(f, "kernel `{kernel}`: {what}"),
            BuildFailed { kernel, error } => write!(f, "`{kernel}` failed to build, so the module has no text: {error}"),
        }
    }
}

impl std::error::Error for Error {}

/// Checks a user-chosen name against PTX ISA 4.4:
/// `[a-zA-Z][a-zA-Z0-9_$]*` or `[_$%][a-zA-Z0-9_$]+`. Names starting with `%` or `$` are
/// kept for the registers and labels the builder generates.
pub fn check_ident(name: &str) -> Result<(), Error> {
    let bad = |why| Err(Error::InvalidIdentifier { name: name.to_string(), why });
    let mut cs = name.chars();
    let Some(first) = cs.next() else { return bad("it is empty") };
    let follow = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    if first == '%' || first == '$' {
        return bad("names starting with `%` or `$` are reserved for generated registers and labels");
    }
    if first == '_' {
        if name.len() < 2 {
            return bad("`_` alone is the sink symbol");
        }
    } else if !first.is_ascii_alphabetic() {
        return bad("it must start with a letter or `_`");
    }
    if !cs.all(follow) {
        return bad("only letters, digits, `_` and `$` may follow the first character");
    }
    if RESERVED.contains(&name) {
        return bad("it is a PTX reserved word");
    }
    Ok(())
}

const RESERVED: &[&str] = &["WARP_SZ", "_"];
