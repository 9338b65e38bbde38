fn main() {
    let path = std::env::args().nth(1).unwrap();
    let src = std::fs::read_to_string(path).unwrap();
    match sdfg_compiler::frontend_str(&src) {
        Ok(s) => {
            for sym in &s.symbols {
                println!(
                    "symbol {} {} declared={}",
                    sym.name.text, sym.ty, sym.declared
                );
            }
            for st in &s.states {
                println!(
                    "state {}: {} stmts, graph nodes {:?}",
                    st.name.text,
                    st.stmts.len(),
                    st.graph.nodes
                );
                for (i, stmt) in st.stmts.iter().enumerate() {
                    println!("  stmt {} {}", i, stmt.label());
                    for m in &stmt.memlets {
                        println!(
                            "    {} {:?} dyn={} {:?}",
                            m.connector,
                            m.access,
                            m.dynamic,
                            m.subset.len()
                        );
                    }
                    println!("    preds {:?}", st.graph.predecessors(i));
                }
            }
            for e in &s.edges {
                println!(
                    "edge {}->{} cond={} assigns={}",
                    e.from,
                    e.to,
                    e.condition.is_some(),
                    e.assignments.len()
                );
            }
            println!("start {}", s.start);
        }
        Err(d) => println!("{d}"),
    }
}
