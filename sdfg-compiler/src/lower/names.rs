//! "Did you mean" suggestions for unknown names.

/// The candidate closest to `name` by edit distance, when it is close enough
/// to be a plausible typo (at most a third of the name's length, at least 1;
/// a difference only in case always counts).
pub fn closest_name<'n>(
    name: &str,
    candidates: impl IntoIterator<Item = &'n str>,
) -> Option<&'n str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| {
            let d = if c.eq_ignore_ascii_case(name) {
                0
            } else {
                edit_distance(name, c)
            };
            (d, c)
        })
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = substitution.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(closest_name("TSTEP", ["TSTEPS", "N"]), Some("TSTEPS"));
        assert_eq!(closest_name("n", ["N", "M"]), Some("N"));
        assert_eq!(closest_name("xyz", ["A", "B"]), None);
        assert_eq!(closest_name("A", ["A"]), None);
    }
}
