//! Raw identifiers: `r#type` and `type` are one name in Rust, and `r#N` is
//! `N`. The parser strips `r#` from every identifier of the AST (names and
//! the Rust expressions inside bodies, shapes, ranges and edges), so every
//! later stage sees one spelling: lowering resolves `r#N` to the symbol
//! `N`, exports and PTX entry names get a valid bare name, and the code
//! generators spell user-facing names raw again (`codegen::names::user`).

use super::{Item, SdfgAst, StmtAst};
use proc_macro2::Ident;
use syn::visit_mut::VisitMut;

/// Strips `r#` from every identifier of `ast`.
pub(super) fn unraw_ast(ast: &mut SdfgAst) {
    let v = &mut Unraw;
    unraw(&mut ast.name);
    for item in &mut ast.items {
        match item {
            Item::Symbol(s) => unraw(&mut s.name),
            Item::Container(c) => {
                unraw(&mut c.name);
                c.shape.iter_mut().for_each(|e| v.visit_expr_mut(e));
            }
            Item::State(s) => {
                unraw(&mut s.name);
                for st in &mut s.stmts {
                    match st {
                        StmtAst::Map(m) => {
                            unraw(&mut m.name);
                            for p in &mut m.params {
                                unraw(&mut p.name);
                                v.visit_expr_mut(&mut p.range);
                            }
                            m.body.iter_mut().for_each(|s| v.visit_stmt_mut(s));
                        }
                        StmtAst::Tasklet(t) => {
                            unraw(&mut t.name);
                            t.body.iter_mut().for_each(|s| v.visit_stmt_mut(s));
                        }
                        StmtAst::Copy(c) => {
                            unraw(&mut c.src);
                            unraw(&mut c.dst);
                            for subset in
                                [&mut c.src_subset, &mut c.dst_subset].into_iter().flatten()
                            {
                                subset.dims.iter_mut().for_each(|e| v.visit_expr_mut(e));
                            }
                        }
                        StmtAst::Wait(w) => unraw(&mut w.name),
                        StmtAst::Call(c) => {
                            unraw(&mut c.name);
                            for a in &mut c.args {
                                unraw(&mut a.name);
                                v.visit_expr_mut(&mut a.value);
                            }
                        }
                        StmtAst::Assign(a) => {
                            v.visit_expr_mut(&mut a.target);
                            match &mut a.value {
                                super::AssignValue::Expr(e) => v.visit_expr_mut(e),
                                super::AssignValue::Library(l) => {
                                    l.operands.iter_mut().for_each(unraw)
                                }
                            }
                        }
                    }
                }
            }
            Item::Edge(e) => {
                unraw(&mut e.from);
                unraw(&mut e.to);
                if let Some(c) = &mut e.condition {
                    v.visit_expr_mut(c);
                }
                for a in &mut e.assignments {
                    unraw(&mut a.target);
                    v.visit_expr_mut(&mut a.value);
                }
            }
            Item::Nested(nested) => unraw_ast(nested),
            Item::Extern(e) => unraw(&mut e.name),
        }
    }
}

struct Unraw;

impl VisitMut for Unraw {
    fn visit_ident_mut(&mut self, i: &mut Ident) {
        unraw(i);
    }
}

fn unraw(i: &mut Ident) {
    let text = i.to_string();
    if let Some(bare) = text.strip_prefix("r#") {
        *i = Ident::new(bare, i.span());
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn raw_and_plain_spellings_name_one_thing() {
        let sdfg = crate::frontend_str(
            "sdfg r#type { symbol r#N: i64; host r#in: f64[N]; \
             state r#if { map r#for[i in 0..r#N] on cpu { r#in[i] = 1.0; } } }",
        )
        .expect("valid");
        assert_eq!(sdfg.name.text, "type");
        assert_eq!(sdfg.symbols[0].name.text, "N");
        assert_eq!(sdfg.containers[0].name.text, "in");
        assert_eq!(sdfg.states[0].name.text, "if");

        let twice = crate::frontend_str("sdfg S { symbol N: i64; symbol r#N: i64; state s {} }");
        assert!(twice.is_err(), "`r#N` is `N`: a duplicate");
    }
}
