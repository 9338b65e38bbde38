//! The floor checker (`sdfg_testkit::architecture`) finds what it must.

use sdfg_testkit::architecture::{check, Circles, ModPath};
use std::collections::BTreeMap;

/// The checker fails where it should: an upward reference, a reference
/// through the crate root, and a circle between files of one floor.
#[test]
fn the_checker_finds_upward_root_and_circular_references() {
    let floors: BTreeMap<String, u32> = [("low", 0), ("high", 1)]
        .into_iter()
        .map(|(n, f)| (n.to_string(), f))
        .collect();
    let file = |path: &[&str], text: &str| -> (ModPath, String) {
        (path.iter().map(|s| s.to_string()).collect(), text.into())
    };
    let ok = vec![
        file(&["low"], "pub mod a; pub mod b;"),
        file(
            &["low", "a"],
            "use crate::low::b::B; // crate::high::X in a comment\n",
        ),
        file(
            &["low", "b"],
            "pub struct B; const S: &str = \"crate::high::X\";",
        ),
        file(
            &["high"],
            "use crate::low::{a, b::B}; mod tests { use super::*; }",
        ),
    ];
    let report = check(&ok, &floors, Circles::BetweenFiles);
    assert_eq!(report.problems, Vec::<String>::new());
    assert_eq!(report.edges, 3);

    let upward = vec![
        file(&["low"], "use crate::high::H;"),
        file(&["high"], "pub struct H;"),
    ];
    let p = check(&upward, &floors, Circles::BetweenFiles).problems;
    assert!(
        p.len() == 1 && p[0].contains("floor 0") && p[0].contains("floor 1"),
        "{p:?}"
    );

    let root = vec![file(&["high"], "fn f() -> crate::Thing { todo!() }")];
    let p = check(&root, &floors, Circles::BetweenFiles).problems;
    assert!(p.len() == 1 && p[0].contains("crate root"), "{p:?}");

    // Test modules may use the whole crate.
    let tests_only = vec![
        file(
            &["low"],
            "pub struct L;\n#[cfg(test)]\nmod tests { use crate::high::H; }",
        ),
        file(&["high"], "pub struct H;"),
    ];
    assert_eq!(
        check(&tests_only, &floors, Circles::BetweenFiles).problems,
        Vec::<String>::new()
    );

    let circle = vec![
        file(&["low"], "mod a; mod b;"),
        file(&["low", "a"], "use super::b::B; pub struct A;"),
        file(&["low", "b"], "pub struct B(crate::low::a::A);"),
    ];
    let p = check(&circle, &floors, Circles::BetweenFiles).problems;
    assert!(p.len() == 1 && p[0].contains("circle"), "{p:?}");
    assert!(
        p[0].contains("low/a.rs") && p[0].contains("low/b.rs"),
        "{p:?}"
    );

    let child = vec![
        file(&["low"], "mod a; pub use a::A; pub struct L;"),
        file(&["low", "a"], "pub struct A(super::L);"),
    ];
    let p = check(&child, &floors, Circles::BetweenFiles).problems;
    assert!(p.len() == 1 && p[0].contains("circle"), "{p:?}");
}

/// Between rooms, a folder's `mod.rs` and its files may use each other, but
/// two rooms may not.
#[test]
fn rooms_may_work_together_inside_but_not_in_a_circle() {
    let floors: BTreeMap<String, u32> = [("a", 0), ("b", 0)]
        .into_iter()
        .map(|(n, f)| (n.to_string(), f))
        .collect();
    let file = |path: &[&str], text: &str| -> (ModPath, String) {
        (path.iter().map(|s| s.to_string()).collect(), text.into())
    };
    let inside = vec![
        file(&["a"], "mod x; pub use x::X; pub struct A;"),
        file(&["a", "x"], "pub struct X(super::A);"),
    ];
    assert_eq!(
        check(&inside, &floors, Circles::BetweenRooms).problems,
        Vec::<String>::new()
    );
    assert_eq!(
        check(&inside, &floors, Circles::BetweenFiles)
            .problems
            .len(),
        1
    );
    let rooms = vec![
        file(&["a"], "pub struct A(crate::b::B);"),
        file(&["b"], "pub struct B(Box<crate::a::A>);"),
    ];
    let p = check(&rooms, &floors, Circles::BetweenRooms).problems;
    assert!(p.len() == 1 && p[0].contains("a/ -> b/"), "{p:?}");
}
