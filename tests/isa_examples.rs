//! The instructions of the ISA reference's Examples sections: each one that ptxas accepts
//! names a typed form, in the spelling the example uses.
//!
//! The reference is not part of the repository. It is read from `PTXKIT_ISA_REFERENCE`, else
//! from `../shared/reference/ptx-isa-9.0` beside the repository root; where neither exists the
//! test says so and ends as ignored.
//!
//! Every statement of an Examples code block is parsed (`import::parse`) and resolved
//! (`import::resolve`) as an instruction of a kernel. A statement that names no single form
//! (or does not parse) is given to ptxas, with its operand names declared as registers of
//! each of a few types in turn (and as `.pred` where a predicate goes, `.b64` where an
//! address does, a surface or texture reference where one does), for sm_100a and sm_90a. If
//! any of those assembles, ptxas accepts the example and the tables lack it: the test fails
//! and lists it. What ptxas refuses under every declaration is listed with its message.

#[macro_use]
mod common;

use ptxkit::import::ast::Arena;
use ptxkit::import::parse::parse;
use ptxkit::import::resolve::{resolve, FindingKind};
use ptxkit::ptxas::{check, par_map, Mode};
use ptxkit::Target;
use std::path::{Path, PathBuf};

/// The statements of a page's Examples code blocks: comments and preprocessor lines
/// dropped, statements split at `;` (one may span lines), labels taken off, directives and
/// braces left out.
fn examples(md: &str) -> Vec<String> {
    let Some(at) = md.find("### Examples") else { return vec![] };
    let section = &md[at..];
    let section = section[3..].find("\n### ").map_or(section, |e| &section[..e + 3]);
    let mut code = String::new();
    let mut inside = false;
    for line in section.lines() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
            code.push(';');
            continue;
        }
        if inside && !line.trim_start().starts_with('#') {
            code.push_str(line.split("//").next().unwrap_or(""));
            code.push('\n');
        }
    }
    // Block comments, which may span lines.
    while let Some(a) = code.find("/*") {
        let b = code[a..].find("*/").map_or(code.len(), |b| a + b + 2);
        code.replace_range(a..b, " ");
    }
    let mut out = vec![];
    for stmt in code.split(';') {
        let mut s = stmt.split_whitespace().collect::<Vec<_>>().join(" ");
        // `name:` labels (not `::` of a state space).
        while let Some(i) = s.find(':') {
            let (label, rest) = s.split_at(i);
            if label.is_empty() || rest.starts_with("::") || !label.chars().all(|c| c.is_alphanumeric() || "_$".contains(c)) {
                break;
            }
            s = rest[1..].trim().to_string();
        }
        if !(s.is_empty() || s.starts_with('.') || s.starts_with('{') || s.starts_with('}')) {
            out.push(s);
        }
    }
    out
}

/// The names a statement's operands use (not its opcode, guard or special registers), with
/// how each is used.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Use {
    Value,
    Pred,
    Address,
    Handle,
    /// A coordinate of a surface or texture access (`[surf, {x, y}]`).
    Coord,
}

fn operand_names(stmt: &str) -> Vec<(String, Use)> {
    let body = stmt.trim_start_matches(|c: char| c == '@' || c == '!');
    let body = if stmt.starts_with('@') { body.split_once(' ').map_or("", |(_, r)| r) } else { body };
    let operands = body.split_once(' ').map_or("", |(_, r)| r);
    let mut out: Vec<(String, Use)> = vec![];
    let (mut depth, mut braces, mut after_bar, mut first_in_bracket) = (0, 0, false, false);
    let mut chars = operands.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '[' => {
                depth += 1;
                first_in_bracket = true;
            }
            ']' => depth -= 1,
            '{' => braces += 1,
            '}' => braces -= 1,
            '|' => after_bar = true,
            ',' => {
                after_bar = false;
                first_in_bracket = false;
            }
            // A number (`0x1f`, `0f3F800000`, `25`): not a name.
            c if c.is_ascii_digit() => {
                while chars.peek().is_some_and(|&(_, d)| d.is_alphanumeric() || d == '.') {
                    chars.next();
                }
            }
            c if c.is_alphabetic() || c == '_' || c == '$' || c == '%' => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    // `%tid.x`: a special register's component is part of its name.
                    if d.is_alphanumeric() || d == '_' || d == '$' || d == '.' && c == '%' {
                        end = j + d.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                let name = &operands[i..end];
                let bracket_has_braces = depth > 0 && operands[end..].trim_start().starts_with(',') && operands[end..].contains('{');
                let how = if after_bar {
                    Use::Pred
                } else if depth > 0 && braces > 0 {
                    Use::Coord
                } else if depth > 0 && first_in_bracket && bracket_has_braces {
                    Use::Handle
                } else if depth > 0 && first_in_bracket {
                    Use::Address
                } else {
                    Use::Value
                };
                first_in_bracket = false;
                let special =
                    name.starts_with("%tid") || name.starts_with("%ntid") || name.starts_with("%laneid") || name.starts_with("%clock");
                if !special && !out.iter().any(|(n, _)| n == name) {
                    out.push((name.to_string(), how));
                }
            }
            _ => {}
        }
    }
    out
}

/// The register types tried for the names that hold values: every name of one type, then
/// the first (the destination) of one type and the rest of another, then those with the
/// last name a predicate (`setp`'s combining operand, `selp`'s selector).
fn declarations(values: usize) -> Vec<Vec<&'static str>> {
    const TYPES: [&str; 7] = ["b32", "b64", "b16", "f32", "f64", "pred", "b128"];
    let mut out: Vec<Vec<&str>> = TYPES.iter().map(|t| vec![*t; values]).collect();
    if values > 1 {
        for d in TYPES {
            for s in TYPES {
                if d != s {
                    out.push(std::iter::once(d).chain(std::iter::repeat_n(s, values - 1)).collect());
                }
            }
        }
        for d in TYPES {
            for s in TYPES {
                let mut v: Vec<&str> = std::iter::once(d).chain(std::iter::repeat_n(s, values - 1)).collect();
                v[values - 1] = "pred";
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
    }
    out
}

/// What ptxas says of the statement under each declaration of its names: `Ok` with the
/// first declaration it accepted, or `Err` with its first message that is not about the
/// operands' types (else the first).
fn ptxas_verdict(ptxas: &Path, stmt: &str) -> Result<String, String> {
    let names = operand_names(stmt);
    let guard = stmt.strip_prefix('@').map(|g| g.trim_start_matches('!').split(' ').next().unwrap_or("").to_string());
    let values = names.iter().filter(|(_, h)| *h == Use::Value).count();
    let handles = if names.iter().any(|(_, h)| *h == Use::Handle) { &["surfref", "texref"][..] } else { &["surfref"][..] };
    let mut first_error = None;
    for target in [Target::SM_100A, Target::SM_90A] {
        for types in declarations(values) {
            for handle in handles {
                let mut decls = String::new();
                let mut next = types.iter();
                for (n, how) in &names {
                    let ty = match how {
                        Use::Pred => "pred",
                        Use::Address => "b64",
                        Use::Coord => "b32",
                        Use::Handle => continue,
                        Use::Value => next.next().copied().unwrap_or("b32"),
                    };
                    decls.push_str(&format!("\t.reg .{ty} {n};\n"));
                }
                let globals: String =
                    names.iter().filter(|(_, h)| *h == Use::Handle).map(|(n, _)| format!(".global .{handle} {n};\n")).collect();
                if let Some(g) = &guard {
                    if !names.iter().any(|(n, _)| n == g) {
                        decls.push_str(&format!("\t.reg .pred {g};\n"));
                    }
                }
                let text =
                    format!(".version 9.0\n.target {target}\n.address_size 64\n{globals}.visible .entry e()\n{{\n{decls}\t{stmt};\n}}\n");
                match check(ptxas, &text, target, Mode::Assemble) {
                    Ok(_) => return Ok(format!("{target}, registers .{}", types.join(", ."))),
                    Err(e) => {
                        let line = e.lines().find(|l| l.contains("error") || l.contains("fatal")).unwrap_or(e.trim()).to_string();
                        // "Arguments mismatch" blames the declarations tried, not the
                        // instruction: any other message says more.
                        if first_error
                            .as_ref()
                            .is_none_or(|f: &String| f.contains("Arguments mismatch") && !line.contains("Arguments mismatch"))
                        {
                            first_error = Some(line);
                        }
                    }
                }
            }
        }
    }
    Err(first_error.unwrap_or_default())
}

fn reference() -> Option<PathBuf> {
    let dir = std::env::var_os("PTXKIT_ISA_REFERENCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/ptx-isa-9.0"));
    dir.is_dir().then_some(dir)
}

fn every_accepted_example_names_a_form() {
    let Some(dir) = reference() else {
        common::harness::skip("the ISA reference is not here: set PTXKIT_ISA_REFERENCE to its folder of pages")
    };
    let px = common::ptxas("every_accepted_example_names_a_form");
    let mut pages: Vec<PathBuf> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "md")).collect();
    pages.sort();
    // (page, statement, why it names no form)
    let mut open: Vec<(String, String, String)> = vec![];
    let (mut statements, mut named) = (0, 0);
    for page in &pages {
        let name = page.file_stem().unwrap().to_string_lossy().into_owned();
        for stmt in examples(&std::fs::read_to_string(page).unwrap()) {
            statements += 1;
            let text = format!(".version 9.0\n.target sm_100a\n.address_size 64\n.visible .entry e()\n{{\n{stmt};\n}}\n");
            let arena = Arena::new();
            let why = match parse(&text, &arena) {
                Err(e) => format!("does not parse: {e}"),
                Ok(file) => match file.instructions().first().map(|i| resolve(i)) {
                    None => format!("no instruction"),
                    Some(Ok(_))
                    | Some(Err(ptxkit::import::resolve::Finding { kind: FindingKind::Ambiguous { .. } | FindingKind::Call, .. })) => {
                        named += 1;
                        continue;
                    }
                    Some(Err(f)) => match f.kind {
                        FindingKind::NoForm => "no form has this chain".to_string(),
                        FindingKind::Operands { expected, .. } => {
                            format!("no form takes these operands ({})", expected.first().map_or(String::new(), |m| m.why.clone()))
                        }
                        _ => unreachable!(),
                    },
                },
            };
            open.push((name.clone(), stmt, why));
        }
    }
    let verdicts = par_map(2, &open, |(_, stmt, _)| ptxas_verdict(&px, stmt));
    // (page: statement, the report line) of what ptxas accepts; what it refuses.
    let (mut missing, mut refused) = (vec![], vec![]);
    for ((page, stmt, why), v) in open.iter().zip(verdicts) {
        match v {
            Ok(how) => missing.push((format!("{page}: {stmt}"), format!("{page}: `{stmt}`: {why}; ptxas accepts it ({how})"))),
            Err(e) => refused.push(format!("{page}: `{stmt}`: {e}")),
        }
    }
    println!(
        "{statements} example statements in {} pages: {named} name a form, {} ptxas refuses, {} name no form",
        pages.len(),
        refused.len(),
        missing.len()
    );
    println!("refused by ptxas under every declaration tried:\n  {}", refused.join("\n  "));
    // The examples known to name no form, each with why: the test fails when one of them
    // comes to name a form (take it off the list) or a new one appears.
    let known: Vec<(&str, &str)> =
        GAPS.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).map(|l| l.split_once('\t').unwrap_or((l, ""))).collect();
    println!("known gaps ({}):\n  {}", known.len(), known.iter().map(|(k, why)| format!("{k}: {why}")).collect::<Vec<_>>().join("\n  "));
    let new: Vec<&str> = missing.iter().filter(|(key, _)| !known.iter().any(|(k, _)| k == key)).map(|(_, line)| line.as_str()).collect();
    let gone: Vec<&str> = known.iter().filter(|(k, _)| !missing.iter().any(|(key, _)| key == k)).map(|(k, _)| *k).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "examples ptxas accepts that name no form, not in tests/isa_examples_gaps.txt:\n  {}\n\
         listed there, but now named by a form (or no longer in the reference):\n  {}",
        new.join("\n  "),
        gone.join("\n  ")
    );
}

/// `tests/isa_examples_gaps.txt`: `page: statement<TAB>why`, one per line.
const GAPS: &str = include_str!("isa_examples_gaps.txt");

fn main() {
    common::harness::main(&[&[host!(every_accepted_example_names_a_form)]]);
}
