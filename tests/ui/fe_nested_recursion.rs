// Nested sdfgs are inlined, so none may call itself, directly or through
// another one.
sdfg::sdfg! {
    sdfg Outer {
        host X: f64[4];
        sdfg Ping {
            host A: f64[4];
            state s { Pong(B = A); }
        }
        sdfg Pong {
            host B: f64[4];
            state s { Ping(A = B); }
        }
        sdfg Itself {
            host C: f64[4];
            state s { Itself(C = C); }
        }
        state s {
            Ping(A = X);
            Itself(C = X);
        }
    }
}

fn main() {}
