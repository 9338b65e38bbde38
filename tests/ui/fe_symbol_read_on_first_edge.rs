sdfg::sdfg! {
    sdfg S {
        state loop_ {}
        state done {}
        loop_ -> loop_ if t < 10 { t = t + 1 }
        loop_ -> done;
    }
}

fn main() {}
