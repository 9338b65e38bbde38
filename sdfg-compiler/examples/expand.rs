//! Prints what `sdfg!` expands to for the SDFG in a file (a debugging aid):
//! `cargo run -p sdfg-compiler --example expand -- path/to/sdfg.txt`.
//! The file holds what goes inside `sdfg! { ... }`.

fn main() {
    let path = std::env::args().nth(1).expect("usage: expand FILE");
    let source = std::fs::read_to_string(&path).expect("readable file");
    let tokens: proc_macro2::TokenStream = source.parse().expect("tokens");
    println!("{}", sdfg_compiler::expand(tokens));
}
