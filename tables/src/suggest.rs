//! Why a chain is not a form, and the nearest legal chains: `ptx!`'s error messages.

use crate::orders::Broken;
use crate::vocab;
use crate::{Form, Tables};

/// Where `a` and `b` (opcode first) differ in one part, in any order: its index in `a` and
/// the part of `b` in its place.
fn one_part_off<'b>(a: &[&str], b: &'b [String]) -> Option<(usize, &'b str)> {
    let mut used = vec![false; b.len()];
    let mut extra = None;
    for (i, p) in a.iter().enumerate() {
        match (0..b.len()).find(|&j| !used[j] && b[j] == *p) {
            Some(j) => used[j] = true,
            None if i > 0 && extra.is_none() => extra = Some(i),
            None => return None,
        }
    }
    let mut rest = (0..b.len()).filter(|&j| !used[j]);
    match (extra, rest.next(), rest.next()) {
        (Some(i), Some(j), None) => Some((i, b[j].as_str())),
        _ => None,
    }
}

/// Character edit distance.
fn lev(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + (ca != *cb) as usize).min(row[j] + 1).min(row[j + 1] + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Edit distance over parts: inserting or dropping a part costs 1, replacing one costs how
/// different the two are (0 to 1), so a misspelt part is nearer than a different one.
fn distance(a: &[&str], b: &[String]) -> f64 {
    let mut row: Vec<f64> = (0..=b.len()).map(|j| j as f64).collect();
    for (i, pa) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = (i + 1) as f64;
        for (j, pb) in b.iter().enumerate() {
            let cur = row[j + 1];
            let sub = lev(pa, pb) as f64 / pa.len().max(pb.len()).max(1) as f64;
            row[j + 1] = (prev + sub).min(row[j] + 1.0).min(row[j + 1] + 1.0);
            prev = cur;
        }
    }
    row[b.len()]
}

fn quoted(v: &[&str]) -> String {
    v.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
}

/// What `ptx!` says of a chain that names no form: the message, and the legal chains it
/// proposes (best first), each of which keeps every part the user wrote where it adds one
/// and never puts the user's data types in another order.
#[derive(Clone, Debug, PartialEq)]
pub struct Advice {
    pub message: String,
    pub chains: Vec<String>,
}

/// The data types of a chain, in order.
fn dtypes<'a>(parts: &[&'a str]) -> Vec<&'a str> {
    parts.iter().copied().filter(|p| vocab::is_dtype(p)).collect()
}

/// Whether `f` writes the data types it shares with the user's chain `u` in another order
/// than `u` does (a conversion or product of another direction, never a suggestion): the
/// user's types that `f` has (as many times as it has them) are not a subsequence of its.
fn swaps_types(u: &[&str], f: &[String]) -> bool {
    let ft: Vec<&str> = f.iter().map(String::as_str).filter(|p| vocab::is_dtype(p)).collect();
    let mut left = ft.clone();
    let shared: Vec<&str> = dtypes(u)
        .into_iter()
        .filter(|t| match left.iter().position(|x| x == t) {
            Some(j) => {
                left.remove(j);
                true
            }
            None => false,
        })
        .collect();
    let mut it = ft.iter();
    !shared.iter().all(|t| it.any(|x| x == t))
}

/// Whether `f` holds every part of `u` (as many times), the data types in the same order.
fn holds(f: &[String], u: &[&str]) -> bool {
    let mut used = vec![false; f.len()];
    for p in u {
        match (0..f.len()).find(|&j| !used[j] && f[j] == *p) {
            Some(j) => used[j] = true,
            None => return false,
        }
    }
    let ft: Vec<&str> = f.iter().map(String::as_str).filter(|p| vocab::is_dtype(p)).collect();
    let mut it = ft.iter();
    dtypes(u).iter().all(|t| it.any(|x| x == t))
}

/// The parts of `f` that `u` lacks.
fn added<'f>(f: &'f [String], u: &[&str]) -> Vec<&'f str> {
    let mut used = vec![false; u.len()];
    f.iter()
        .filter(|p| match (0..u.len()).find(|&j| !used[j] && u[j] == p.as_str()) {
            Some(j) => {
                used[j] = true;
                false
            }
            None => true,
        })
        .map(String::as_str)
        .collect()
}

fn listed(chains: &[&str]) -> String {
    match chains {
        [] => String::new(),
        [one] => format!("`{one}`"),
        [rest @ .., last] => format!("{} or `{last}`", quoted(rest)),
    }
}

/// The message for a chain (split into `parts`) with `variant` that no table has.
pub fn explain(t: &Tables, chain: &str, parts: &[&str], variant: &str) -> String {
    advise(t, chain, parts, variant).message
}

/// Why a chain (split into `parts`) with `variant` is no form, and the legal chains nearest
/// to it. In order: an unknown opcode; the same parts as a form with another variant; the
/// same parts in an order ptxas rejects; parts missing (a rounding mode, `.lo`/`.hi`/`.wide`,
/// `.sync`, a scope...: the chains that add one, then two); one part wrong (a misspelling, a
/// shape, a type); the nearest chains. No proposal writes the user's data types in another
/// order: a chain whose only fault is that order gets a note that PTX writes the destination
/// type first.
pub fn advise(t: &Tables, chain: &str, parts: &[&str], variant: &str) -> Advice {
    let say = |message: String, chains: Vec<&str>| Advice { message, chains: chains.into_iter().map(str::to_string).collect() };
    let Some(forms) = t.by_opcode.get(parts[0]) else {
        let mut near: Vec<(usize, &String)> = t.by_opcode.keys().map(|o| (lev(parts[0], o), o)).filter(|(d, _)| *d <= 2).collect();
        near.sort();
        let hint = match near.first() {
            Some((_, o)) => format!("; did you mean `{o}`?"),
            None => String::new(),
        };
        return say(format!("ptx!: unknown opcode `{}` in `{chain}`{hint}", parts[0]), vec![]);
    };
    let unknown: Vec<&str> = parts[1..].iter().copied().filter(|p| !t.is_token(p)).collect();
    let head = match unknown.first() {
        Some(u) => format!("ptx!: unknown modifier `.{u}` in `{chain}`"),
        None => format!("ptx!: PTX has no form `{chain}`"),
    };
    let orders = match crate::orders() {
        Ok(o) => o,
        Err(e) => return say(e.to_string(), vec![]),
    };
    // The same chain, in table order or another order ptxas accepts, with another operand
    // layout.
    let same: Vec<&Form> = t.same_parts(parts).iter().map(|&i| &t.forms[i]).filter(|f| orders.check(&f.parts, parts).is_ok()).collect();
    if !same.is_empty() {
        let variants: Vec<&str> = same.iter().map(|f| f.variant.as_str()).collect();
        let table = if same[0].chain == chain { String::new() } else { format!(" (`{}`)", same[0].chain) };
        let both: Vec<&str> = same.iter().filter(|f| f.variant == variant).map(|f| f.chain.as_str()).collect();
        if both.len() > 1 {
            return say(
                format!("ptx!: `{chain}` is an order of each of {}, which ptxas does not tell apart; write one of them", quoted(&both)),
                both,
            );
        }
        return say(
            format!(
                "ptx!: `{chain}`{table} has no variant `{variant}`; its variants are {} (write `\"{chain}\" as <variant>`)",
                quoted(&variants)
            ),
            vec![],
        );
    }
    let cands: Vec<&Form> = forms.iter().map(|&i| &t.forms[i]).filter(|f| f.variant == variant && !swaps_types(parts, &f.parts)).collect();
    // The same parts in an order ptxas rejects (the data types in the user's order).
    let perms: Vec<&Form> = t.same_parts(parts).iter().map(|&i| &t.forms[i]).filter(|f| f.variant == variant).collect();
    let (kept, swapped): (Vec<&Form>, Vec<&Form>) = perms.into_iter().partition(|f| !swaps_types(parts, &f.parts));
    if let [one] = kept[..] {
        // An order that no form admits (those returned above), so `check` says why.
        let why = match orders.check(&one.parts, parts).err() {
            Some(Broken::NoRule) => "tables/orders.tsv has no rule for it: run `cargo run --release --example order_sweep` to \
                                     measure the orders ptxas takes"
                .to_string(),
            Some(b) => b.to_string(),
            None => "it is another form's order".to_string(),
        };
        return say(format!("{head}: ptxas rejects this order of `{}` ({why}); write `{}`", one.chain, one.chain), vec![&one.chain]);
    }
    if !kept.is_empty() {
        let names: Vec<&str> = kept.iter().map(|f| f.chain.as_str()).collect();
        return say(format!("{head}: ptxas rejects this order of the parts of {}", quoted(&names)), names);
    }
    // The same parts with the data types in another order: a conversion the other way.
    let note = swapped.first().map(|f| {
        format!(
            " (`{}` has these parts with the types in the other order: PTX writes the destination's type first, then the sources')",
            f.chain
        )
    });
    let note = note.unwrap_or_default();
    // Parts missing: the forms that hold every part written, and one or two more.
    for extra in 1..=2 {
        let adds: Vec<&Form> = cands.iter().copied().filter(|f| f.parts.len() == parts.len() + extra && holds(&f.parts, parts)).collect();
        if adds.is_empty() {
            continue;
        }
        let shown: Vec<&str> = adds.iter().take(4).map(|f| f.chain.as_str()).collect();
        let mut what: Vec<String> =
            adds.iter().map(|f| added(&f.parts, parts).iter().map(|p| format!("`.{p}`")).collect::<Vec<_>>().join(" and ")).collect();
        what.dedup();
        let mut sorted = what.clone();
        sorted.sort();
        sorted.dedup();
        let lacks = if extra == 1 { "a part" } else { "two parts" };
        let adding = if sorted.len() == 1 {
            format!("it adds {}", sorted[0])
        } else if extra == 1 {
            let bare: Vec<&str> = sorted.iter().map(|w| &w[2..w.len() - 1]).collect();
            format!("each adds {}", summary(&bare))
        } else {
            let more = if sorted.len() > 8 { format!(" and {} more", sorted.len() - 8) } else { String::new() };
            format!("each adds one of {}{more}", sorted[..sorted.len().min(8)].join(", "))
        };
        let more = if adds.len() > shown.len() { format!(" ({} forms in all)", adds.len()) } else { String::new() };
        return say(
            format!("{head}: it lacks {lacks} its forms need; did you mean {}?{more} ({adding}){note}", listed(&shown)),
            adds.iter().map(|f| f.chain.as_str()).collect(),
        );
    }
    // A part too many (a known modifier the instruction does not take with the others): the
    // forms that hold every other part written.
    let written: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
    let drops: Vec<(&Form, &str)> = cands
        .iter()
        .filter(|f| unknown.is_empty() && f.parts.len() + 1 == parts.len())
        .filter_map(|f| {
            let fp: Vec<&str> = f.parts.iter().map(String::as_str).collect();
            let extra = added(&written, &fp);
            (holds(&written, &fp) && !vocab::is_dtype(extra[0])).then_some((*f, extra[0]))
        })
        .collect();
    if let Some((_, extra)) = drops.first() {
        let shown: Vec<&str> = drops.iter().take(4).map(|(f, _)| f.chain.as_str()).collect();
        return say(
            format!("{head}: no form with its other parts takes `.{extra}`; did you mean {}?{note}", listed(&shown)),
            drops.iter().map(|(f, _)| f.chain.as_str()).collect(),
        );
    }
    // One part wrong, with many forms that differ from the chain only there (a shape, a
    // type): name what may stand in its place, a modifier before a data type. The other parts
    // may be in any order ptxas accepts for the form.
    let mut alts_at: Vec<Vec<&str>> = vec![vec![]; parts.len()];
    let mut single: Vec<(String, &str)> = vec![];
    for f in cands.iter().filter(|f| f.parts.len() == parts.len()) {
        let Some((i, x)) = one_part_off(parts, &f.parts) else { continue };
        let mut fixed: Vec<&str> = parts.to_vec();
        fixed[i] = x;
        if orders.check(&f.parts, &fixed).is_ok() {
            alts_at[i].push(x);
            single.push((fixed.join("."), f.chain.as_str()));
        }
    }
    let mut at: Vec<usize> = (0..parts.len()).collect();
    at.sort_by_key(|&i| vocab::is_dtype(parts[i]));
    for i in at {
        let alts = &mut alts_at[i];
        alts.sort_unstable();
        alts.dedup();
        if alts.len() > 1 {
            let best = alts.iter().min_by_key(|a| (lev(parts[i], a), a.len())).copied().unwrap_or(alts[0]);
            let mut fixed: Vec<&str> = parts.to_vec();
            fixed[i] = best;
            let fixed = fixed.join(".");
            let table = single.iter().find(|(s, _)| *s == fixed).map_or(fixed.as_str(), |(_, c)| *c);
            return say(
                format!(
                    "{head}; did you mean `{fixed}`? (in place of `.{}` the forms with its other parts take {}){note}",
                    parts[i],
                    summary(alts)
                ),
                vec![table],
            );
        }
    }
    // One form one part away, in another order than the table's.
    if let [(fixed, table)] = &single[..] {
        if fixed != table {
            return say(format!("{head}; did you mean `{fixed}`? (`{table}` in another order ptxas accepts){note}"), vec![table]);
        }
    }
    let mut scored: Vec<(f64, &str)> = cands.iter().map(|f| (distance(parts, &f.parts), f.chain.as_str())).collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)));
    let Some(&(best, _)) = scored.first() else {
        return say(format!("{head}: `{}` has no `{variant}` forms{note}", parts[0]), vec![]);
    };
    let near: Vec<&str> = scored.iter().take_while(|(d, _)| *d <= best + 1e-9).take(4).map(|(_, c)| *c).collect();
    let also: Vec<&str> = scored.iter().skip(near.len()).take(3).map(|(_, c)| *c).collect();
    let mut msg = format!("{head}; did you mean {}?", quoted(&near).replace(", ", " or "));
    if !also.is_empty() {
        msg.push_str(&format!(" (next nearest: {})", quoted(&also)));
    }
    msg.push_str(&note);
    say(msg, near.into_iter().chain(also).collect())
}

/// Text and digit runs of a token: `m64n8k16` -> [m, 64, n, 8, k, 16].
fn runs(t: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut st = 0;
    let b = t.as_bytes();
    for i in 1..=b.len() {
        if i == b.len() || b[i].is_ascii_digit() != b[i - 1].is_ascii_digit() {
            out.push(&t[st..i]);
            st = i;
        }
    }
    out
}

/// Numbers as runs of a constant step: `8..256/8`, `8,16,24,32,48..256/16`.
fn numbers(mut v: Vec<u64>) -> String {
    v.sort_unstable();
    let mut out: Vec<String> = vec![];
    let mut i = 0;
    while i < v.len() {
        let mut j = i + 1;
        if j < v.len() {
            let step = v[j] - v[i];
            while j + 1 < v.len() && v[j + 1] - v[j] == step {
                j += 1;
            }
            if j - i >= 2 {
                out.push(if step == 1 { format!("{}..{}", v[i], v[j]) } else { format!("{}..{}/{step}", v[i], v[j]) });
                i = j + 1;
                continue;
            }
        }
        out.push(v[i].to_string());
        i += 1;
    }
    out.join(",")
}

/// The alternatives for one part, compressed where they differ in one number
/// (`.m64n{8..256/8}k16`), listed otherwise.
fn summary(alts: &[&str]) -> String {
    let split: Vec<Vec<&str>> = alts.iter().map(|a| runs(a)).collect();
    let n = split[0].len();
    if split.iter().all(|s| s.len() == n) {
        let varying: Vec<usize> = (0..n).filter(|&k| split.iter().any(|s| s[k] != split[0][k])).collect();
        if let [k] = varying[..] {
            if let Ok(nums) = split.iter().map(|s| s[k].parse::<u64>()).collect::<Result<Vec<_>, _>>() {
                let pre: String = split[0][..k].concat();
                let post: String = split[0][k + 1..].concat();
                return format!("`.{pre}{{{}}}{post}`", numbers(nums));
            }
        }
    }
    let shown: Vec<String> = alts.iter().take(12).map(|a| format!("`.{a}`")).collect();
    let more = if alts.len() > 12 { format!(" and {} more", alts.len() - 12) } else { String::new() };
    format!("one of {}{more}", shown.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables;

    /// Whether `chain` is a form of `variant`, in table order.
    fn legal(t: &Tables, chain: &str, variant: &str) -> bool {
        t.index.contains_key(&(chain.to_string(), variant.to_string()))
    }

    /// Cases derived from the tables, not picked by hand: from every family, forms spread
    /// over its table, each with one part dropped (where the rest is no form: the part is
    /// required) and with each pair of its data types swapped (where that is no form). For a
    /// dropped part, every proposal is legal and holds every part left, and the form it was
    /// dropped from is among them; for swapped types, every proposal is legal, none writes the
    /// user's types in another order, and the message says that PTX writes the destination
    /// type first.
    #[test]
    fn suggestions_add_what_is_missing_and_never_swap_types() {
        let t = tables().unwrap();
        let orders = crate::orders().unwrap();
        let names_a_form = |u: &[&str]| t.same_parts(u).iter().any(|&i| orders.check(&t.forms[i].parts, u).is_ok());
        let (mut dropped, mut swapped, mut bad) = (0, 0, vec![]);
        for fam in &t.families {
            let step = (fam.forms.len() / 150).max(1);
            for (n, &i) in fam.forms.iter().step_by(step).enumerate() {
                let f = &t.forms[i];
                let p: Vec<&str> = f.parts.iter().map(String::as_str).collect();
                // Parts dropped from every fourth form of the sample, types swapped in all.
                for j in (1..p.len()).filter(|_| n % 4 == 0) {
                    let mut u = p.clone();
                    u.remove(j);
                    if names_a_form(&u) {
                        continue;
                    }
                    dropped += 1;
                    let chain = u.join(".");
                    let a = advise(t, &chain, &u, &f.variant);
                    let wrong = a.chains.iter().find(|c| {
                        let cp: Vec<String> = c.split('.').map(str::to_string).collect();
                        !legal(t, c, &f.variant) || !holds(&cp, &u)
                    });
                    if a.chains.is_empty() || wrong.is_some() || !a.chains.contains(&f.chain) {
                        bad.push(format!("{chain} (from {} without .{}): {}", f.chain, p[j], a.message));
                    }
                }
                let types: Vec<usize> = (1..p.len()).filter(|&j| vocab::is_dtype(p[j])).collect();
                for (x, &a_at) in types.iter().enumerate() {
                    for &b_at in &types[x + 1..] {
                        if p[a_at] == p[b_at] {
                            continue;
                        }
                        let mut u = p.clone();
                        u.swap(a_at, b_at);
                        if names_a_form(&u) {
                            continue;
                        }
                        swapped += 1;
                        let chain = u.join(".");
                        let a = advise(t, &chain, &u, &f.variant);
                        let wrong = a.chains.iter().find(|c| {
                            let cp: Vec<String> = c.split('.').map(str::to_string).collect();
                            !legal(t, c, &f.variant) || swaps_types(&u, &cp)
                        });
                        if wrong.is_some() || !a.message.contains("the destination's type first") {
                            bad.push(format!("{chain} (from {} with its types swapped): {}", f.chain, a.message));
                        }
                    }
                }
            }
        }
        println!("{dropped} chains with a required part dropped, {swapped} with two types swapped; {} wrong", bad.len());
        assert!(dropped > 1000 && swapped > 500, "{dropped} {swapped}");
        assert!(bad.is_empty(), "{} of {} cases:\n{}", bad.len(), dropped + swapped, bad.join("\n"));
    }

    /// The chains a user meant, from the report that found the old ranking wrong.
    #[test]
    fn a_missing_required_part_is_added_not_a_type_changed() {
        let t = tables().unwrap();
        let ask = |c: &str| advise(t, c, &c.split('.').collect::<Vec<_>>(), "plain");
        for (chain, meant) in [
            ("cvt.bf16.f32", "cvt.rn.bf16.f32"),
            ("mul.u32", "mul.lo.u32"),
            ("div.f32", "div.rn.f32"),
            ("cvt.f32.s32", "cvt.rn.f32.s32"),
            ("cvt.u32.f32", "cvt.rzi.u32.f32"),
            ("shfl.bfly.b32", "shfl.sync.bfly.b32"),
            ("wgmma.mma_async.m64n8k16.f32.bf16.bf16", "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"),
        ] {
            let a = ask(chain);
            assert!(a.chains.iter().any(|c| c == meant), "{chain}: {}", a.message);
            assert!(a.message.contains(&format!("`{}`", a.chains[0])), "{chain}: {}", a.message);
        }
        // `cvt.bf16.f32` is not `cvt.f32.bf16` in another order: it is the other conversion.
        let a = ask("cvt.bf16.f32");
        assert!(!a.chains.iter().any(|c| c == "cvt.f32.bf16") && a.message.contains("destination's type first"), "{}", a.message);
        // A misspelt part is still replaced.
        assert!(ask("add.fast.f32").message.contains("did you mean `add.sat.f32`?"));
    }
}
