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
