//! Symbol names (kernel parameters, variables, shared arrays, special registers) are
//! interned process-wide, so operands naming them are 4 bytes and `Copy`. The table only
//! grows by distinct names.

use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

type Table = RwLock<(Vec<&'static str>, HashMap<&'static str, u32>)>;

fn names() -> &'static Table {
    static N: OnceLock<Table> = OnceLock::new();
    N.get_or_init(Default::default)
}

/// The id of `name`, interning it on first use.
pub fn intern(name: &str) -> u32 {
    if let Some(i) = names().read().unwrap_or_else(|e| e.into_inner()).1.get(name) {
        return *i;
    }
    let mut w = names().write().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = w.1.get(name) {
        return *i;
    }
    let s: &'static str = Box::leak(name.to_string().into_boxed_str());
    let i = w.0.len() as u32;
    w.0.push(s);
    w.1.insert(s, i);
    i
}

/// The name behind an id from [`intern`].
pub fn sym_name(id: u32) -> &'static str {
    names().read().unwrap_or_else(|e| e.into_inner()).0.get(id as usize).copied().unwrap_or("")
}
