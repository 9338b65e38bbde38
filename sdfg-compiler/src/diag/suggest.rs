//! The wording helpers of diagnostics that every stage shares: "did you
//! mean" suggestions for unknown names and lists of the names allowed.
//! The lowest floor with `diag` itself: it imports nothing from the crate,
//! so the parser and the lowering can both use it.

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

/// Edit distance over chars where swapping two neighbours counts as one
/// edit (optimal string alignment), so `frist` is one edit from `first`.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// `a`, `b` and `c` -> "`a`, `b`, `c`".
pub fn backticked(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
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
        assert_eq!(closest_name("frist", ["first", "second"]), Some("first"));
    }
}
