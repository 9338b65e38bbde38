sdfg::sdfg! {
    sdfg S {
        symbol T: i64;
        state init {}
        #[persistent]
        state step {}
        init -> step { t = 0 }
        step -> step if t + 1 < T { t = t + 1 }
    }
}

fn main() {}
