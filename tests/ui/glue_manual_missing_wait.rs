// In a `#[sync(manual)]` SDFG the user places the waits. Reading `T` on the
// host before `wait T;` fails to compile, at the read.
use sdfg::prelude::*;

sdfg! {
    #[sync(manual)]
    pub sdfg Manual {
        gpu T_GPU: i32;
        host U: i32[1];
        transient host T: i32;
        state first {
            map write[i in 0..1] on gpu { T_GPU = 10; }
            copy T_GPU -> T;
            tasklet use_t { U[0] = T + 1; }
        }
    }
}

fn main() {}
