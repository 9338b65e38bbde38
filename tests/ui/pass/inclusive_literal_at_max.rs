// An inclusive range whose literal end is the type's maximum runs to it, in
// a map and in a loop (its end plus one does not fit `i32`). A pass case:
// the DaCe round trip, which reads every program under tests/ except ui/,
// writes such ends as `last + 1` literals, which do not fit either.

use sdfg::prelude::*;

sdfg! {
    pub sdfg LiteralMax {
        host M: i64[2];
        state s {
            map lit[i in 2147483645..=2147483647] on seq { M[0] += 1; }
            tasklet t { for k in 2147483645..=2147483647 { M[1] += (2147483647 - k) as i64; } }
        }
    }
}

fn main() -> Result<(), Error> {
    let device = Device::cpu();
    let mut m = vec![0i64; 2];
    LiteralMax::load(&device)?.run(LiteralMaxArgs { M: &mut m })?;
    assert_eq!(m, [3, 3]);
    Ok(())
}
