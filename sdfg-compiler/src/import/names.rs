//! DaCe names as names of the DSL: Rust identifiers, unique in their
//! namespace. DaCe allows labels such as `for_16_init` (kept), Rust keywords
//! (`type` becomes `r#type`, as our exporter strips the prefix) and
//! arbitrary text in labels (`_Add__map[__i0=0:N]`: invalid characters
//! become `_`).

use std::collections::{HashMap, HashSet};

/// A valid identifier of the tasklet language for `name`.
pub(crate) fn identifier(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out == "_" {
        out = "_x".to_string();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    if syn::parse_str::<syn::Ident>(&out).is_ok() {
        return out;
    }
    let raw = format!("r#{out}");
    if syn::parse_str::<syn::Ident>(&raw).is_ok() {
        raw
    } else {
        format!("{out}_")
    }
}

/// Unique DSL names for the names of one namespace.
#[derive(Default)]
pub(crate) struct Namer {
    map: HashMap<String, String>,
    used: HashSet<String>,
}

impl Namer {
    /// The DSL name of `name` (the first call decides it).
    pub fn name(&mut self, name: &str) -> String {
        if let Some(n) = self.map.get(name) {
            return n.clone();
        }
        let out = self.fresh(name);
        self.map.insert(name.to_string(), out.clone());
        out
    }

    /// A new unique name after `name` (for elements DaCe does not require
    /// to have unique labels).
    pub fn fresh(&mut self, name: &str) -> String {
        let base = identifier(name);
        let mut out = base.clone();
        let mut k = 1;
        while self.used.contains(out.trim_start_matches("r#")) {
            out = format!("{}_{k}", base.trim_start_matches("r#"));
            k += 1;
        }
        self.used.insert(out.trim_start_matches("r#").to_string());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        assert_eq!(identifier("A"), "A");
        assert_eq!(identifier("__tmp1"), "__tmp1");
        assert_eq!(identifier("type"), "r#type");
        assert_eq!(identifier("self"), "self_");
        assert_eq!(identifier("_Add__map[__i0=0:N]"), "_Add__map___i0_0_N_");
        assert_eq!(identifier("3d"), "_3d");
        let mut n = Namer::default();
        assert_eq!(n.name("a b"), "a_b");
        assert_eq!(n.name("a_b"), "a_b_1");
        assert_eq!(n.name("a b"), "a_b");
    }
}
