// The loop forms the tasklet language leaves out: labels, `break` with a
// value, a loop as a value, `while let`.
sdfg::sdfg! {
    sdfg S {
        host A: i64[8];
        state s {
            tasklet t {
                let mut k = 0i64;
                'outer: while k < 8 {
                    k += 1;
                }
                loop {
                    if k > 3 { break k; }
                    k += 1;
                }
                let found = loop { k += 1; };
                while let x = k { k = x; }
                A[0] = k;
            }
        }
    }
}

fn main() {}
