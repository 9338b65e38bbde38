//! Kernel entry names are `k_<state>_<map>`, made valid for PTX (ASCII) and
//! unique: state `a_b` with map `c` and state `a` with map `b_c` would both
//! give `k_a_b_c`, and a non-ASCII state name is no PTX identifier. Runs
//! on the CPU device, whose kernel twins are named after the entries.

use sdfg::prelude::*;

sdfg! {
    pub sdfg Entries {
        gpu X: i64[3];
        state a_b { map c[i in 0..1] on gpu { X[0] = 1; } }
        state a { map b_c[i in 0..1] on gpu { X[1] = 2; } }
        state état { map m[i in 0..1] on gpu { X[2] = 3; } }
        a_b -> a;
        a -> état;
    }
}

#[test]
fn kernel_entry_names_are_valid_and_unique() {
    for entry in ["k_a_b_c(", "k_a_b_c_2(", "k__u00e9tat_m("] {
        assert!(
            Entries::PTX.contains(&format!(".visible .entry {entry}")),
            "{entry} in\n{}",
            Entries::PTX
        );
    }
    // ptxas accepts the names (CI requires ptxas: SDFG_REQUIRE_PTXAS=1).
    match sdfg::compiler::codegen::ptx::ptxas::assemble_check(Entries::PTX) {
        Ok(Some(_)) => {}
        Ok(None) if std::env::var("SDFG_REQUIRE_PTXAS").as_deref() != Ok("1") => {
            println!("ptxas not found: the PTX was not assembled");
        }
        other => panic!("ptxas: {other:?}"),
    }
    let device = Device::cpu();
    let program = Entries::load(&device).expect("load");
    let mut x = DeviceBuffer::<i64>::zeros(&device, 3).expect("alloc");
    program.run(EntriesArgs { X: &mut x }).expect("run");
    assert_eq!(x.to_vec().expect("read"), [1, 2, 3]);
}
