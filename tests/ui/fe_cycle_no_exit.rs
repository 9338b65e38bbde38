sdfg::sdfg! {
    sdfg S {
        symbol N: i64;
        state init {}
        state a {}
        state b {}
        state done {}
        init -> a if N > 0;
        a -> b if N > 1;
        a -> b;
        a -> done;
        b -> a if true;
        b -> done;
    }
}

fn main() {}
