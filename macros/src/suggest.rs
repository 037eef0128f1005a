//! Why a chain is not a form, and the nearest legal chains: `ptx!`'s error messages.

use crate::tables::Tables;

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
    // The same chain with another operand layout.
    let variants: Vec<&str> = forms.iter().map(|&i| &t.forms[i]).filter(|f| f.chain == chain).map(|f| f.variant.as_str()).collect();
    if !variants.is_empty() {
        return format!(
            "ptx!: `{chain}` has no variant `{variant}`; its variants are {} (write `\"{chain}\" as <variant>`)",
            quoted(&variants)
        );
    }
    let mut sorted: Vec<&str> = parts.to_vec();
    sorted.sort_unstable();
    let cands = forms.iter().map(|&i| &t.forms[i]).filter(|f| f.variant == variant);
    let perms: Vec<&str> = cands
        .clone()
        .filter(|f| {
            let mut s: Vec<&str> = f.parts.iter().map(String::as_str).collect();
            s.sort_unstable();
            s == sorted
        })
        .map(|f| f.chain.as_str())
        .collect();
    if let [one] = perms[..] {
        return format!("{head}: it is written `{one}` in ptxkit (the same instruction, in the order of the PTX ISA syntax)");
    }
    // One part wrong, with many forms that differ from the chain only there (a shape, a
    // type): name what may stand in its place.
    for i in 1..parts.len() {
        let alts: Vec<&str> = cands
            .clone()
            .filter(|f| {
                f.parts.len() == parts.len() && (0..parts.len()).all(|j| j == i || f.parts[j] == parts[j]) && f.parts[i] != parts[i]
            })
            .map(|f| f.parts[i].as_str())
            .collect();
        if alts.len() > 1 {
            let mut alts = alts;
            alts.sort_unstable();
            alts.dedup();
            let best = alts.iter().min_by_key(|a| (lev(parts[i], a), a.len())).copied().unwrap_or(alts[0]);
            let mut fixed: Vec<&str> = parts.to_vec();
            fixed[i] = best;
            return format!(
                "{head}; did you mean `{}`? (in place of `.{}` the forms with its other parts take {})",
                fixed.join("."),
                parts[i],
                summary(&alts)
            );
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
