//! The runtime reads in floors (see the table in `src/lib.rs`): every file
//! references only modules of its own floor or below, never the crate root's
//! re-exports, and no files reference each other around a circle
//! (`sdfg_testkit::architecture` says exactly what is read).

#[test]
fn modules_import_only_their_floor_or_below_and_form_no_cycle() {
    let report = sdfg_testkit::architecture::check_crate(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
        sdfg_testkit::architecture::Circles::BetweenFiles,
    );
    assert!(
        report.edges >= 40,
        "only {} references found: the scanner is broken",
        report.edges
    );
    assert!(
        report.problems.is_empty(),
        "\n{}\n",
        report.problems.join("\n")
    );
}
