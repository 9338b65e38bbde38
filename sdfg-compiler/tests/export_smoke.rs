mod export_common;
use sdfg_compiler::export::dace::to_sdfg_json_string;

#[test]
fn dump() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("export_smoke");
    std::fs::create_dir_all(&dir).unwrap();
    for s in export_common::all() {
        std::fs::write(
            dir.join(format!("{}.sdfg", s.name.text)),
            to_sdfg_json_string(&s),
        )
        .unwrap();
    }
    println!("{}", dir.display());
}
