//! Why a chain is not a form, and the nearest legal chains: `ptx!`'s error messages.

use crate::orders::Broken;
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

/// The message for a chain (split into `parts`) with `variant` that no table has.
pub fn explain(t: &Tables, chain: &str, parts: &[&str], variant: &str) -> String {
    let Some(forms) = t.by_opcode.get(parts[0]) else {
        let mut near: Vec<(usize, &String)> = t.by_opcode.keys().map(|o| (lev(parts[0], o), o)).filter(|(d, _)| *d <= 2).collect();
        near.sort();
        let hint = match near.first() {
            Some((_, o)) => format!("; did you mean `{o}`?"),
            None => String::new(),
        };
        return format!("ptx!: unknown opcode `{}` in `{chain}`{hint}", parts[0]);
    };
    let unknown: Vec<&str> = parts[1..].iter().copied().filter(|p| !t.is_token(p)).collect();
    let head = match unknown.first() {
        Some(u) => format!("ptx!: unknown modifier `.{u}` in `{chain}`"),
        None => format!("ptx!: PTX has no form `{chain}`"),
    };
    let orders = match crate::orders() {
        Ok(o) => o,
        Err(e) => return e.to_string(),
    };
    // The same chain, in table order or another order ptxas accepts, with another operand
    // layout.
    let same: Vec<&Form> = t.same_parts(parts).iter().map(|&i| &t.forms[i]).filter(|f| orders.check(&f.parts, parts).is_ok()).collect();
    if !same.is_empty() {
        let variants: Vec<&str> = same.iter().map(|f| f.variant.as_str()).collect();
        let table = if same[0].chain == chain { String::new() } else { format!(" (`{}`)", same[0].chain) };
        let both: Vec<&str> = same.iter().filter(|f| f.variant == variant).map(|f| f.chain.as_str()).collect();
        if both.len() > 1 {
            return format!("ptx!: `{chain}` is an order of each of {}, which ptxas does not tell apart; write one of them", quoted(&both));
        }
        return format!(
            "ptx!: `{chain}`{table} has no variant `{variant}`; its variants are {} (write `\"{chain}\" as <variant>`)",
            quoted(&variants)
        );
    }
    let cands = forms.iter().map(|&i| &t.forms[i]).filter(|f| f.variant == variant);
    // The same parts in an order ptxas rejects.
    let perms: Vec<&Form> = t.same_parts(parts).iter().map(|&i| &t.forms[i]).filter(|f| f.variant == variant).collect();
    if let [one] = perms[..] {
        // An order that no form admits (those returned above), so `check` says why.
        let why = match orders.check(&one.parts, parts).err() {
            Some(Broken::NoRule) => "tables/orders.tsv has no rule for it: run `cargo run --release --example order_sweep` to \
                                     measure the orders ptxas takes"
                .to_string(),
            Some(b) => b.to_string(),
            None => "it is another form's order".to_string(),
        };
        return format!("{head}: ptxas rejects this order of `{}` ({why}); write `{}`", one.chain, one.chain);
    }
    if !perms.is_empty() {
        let names: Vec<&str> = perms.iter().map(|f| f.chain.as_str()).collect();
        return format!("{head}: ptxas rejects this order of the parts of {}", quoted(&names));
    }
    // One part wrong, with many forms that differ from the chain only there (a shape, a
    // type): name what may stand in its place. The other parts may be in any order ptxas
    // accepts for the form.
    let mut alts_at: Vec<Vec<&str>> = vec![vec![]; parts.len()];
    let mut single: Vec<(String, &str)> = vec![];
    for f in cands.clone().filter(|f| f.parts.len() == parts.len()) {
        let Some((i, x)) = one_part_off(parts, &f.parts) else { continue };
        let mut fixed: Vec<&str> = parts.to_vec();
        fixed[i] = x;
        if orders.check(&f.parts, &fixed).is_ok() {
            alts_at[i].push(x);
            single.push((fixed.join("."), f.chain.as_str()));
        }
    }
    for (i, alts) in alts_at.iter_mut().enumerate() {
        alts.sort_unstable();
        alts.dedup();
        if alts.len() > 1 {
            let best = alts.iter().min_by_key(|a| (lev(parts[i], a), a.len())).copied().unwrap_or(alts[0]);
            let mut fixed: Vec<&str> = parts.to_vec();
            fixed[i] = best;
            return format!(
                "{head}; did you mean `{}`? (in place of `.{}` the forms with its other parts take {})",
                fixed.join("."),
                parts[i],
                summary(alts)
            );
        }
    }
    // One form one part away, in another order than the table's.
    if let [(fixed, table)] = &single[..] {
        if fixed != table {
            return format!("{head}; did you mean `{fixed}`? (`{table}` in another order ptxas accepts)");
        }
    }
    let mut scored: Vec<(f64, &str)> = cands.map(|f| (distance(parts, &f.parts), f.chain.as_str())).collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)));
    let Some(&(best, _)) = scored.first() else {
        return format!("{head}: `{}` has no `{variant}` forms", parts[0]);
    };
    let near: Vec<&str> = scored.iter().take_while(|(d, _)| *d <= best + 1e-9).take(4).map(|(_, c)| *c).collect();
    let also: Vec<&str> = scored.iter().skip(near.len()).take(3).map(|(_, c)| *c).collect();
    let mut msg = format!("{head}; did you mean {}?", quoted(&near).replace(", ", " or "));
    if !also.is_empty() {
        msg.push_str(&format!(" (next nearest: {})", quoted(&also)));
    }
    msg
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
