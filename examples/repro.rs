//! The bug that started this project (DaCe issue 2120), written in the DSL.
//!
//! A GPU map writes `T_GPU`, the host copies it to `T`, a host tasklet and an
//! interstate edge read `T`. With DaCe's default-stream setting the generated
//! code read `T` before the copy had finished. Here the host glue can only
//! read `T` after waiting for the copy: the wait is where the schedule put it,
//! and without it the glue would not compile.
//!
//! Run: `cargo run --example repro` (the GPU when there is one, else the CPU device).

use sdfg::prelude::*;

// The SDFG of DESIGN.md section 3 (`pub sdfg Repro` with
// `#[streams(default)]`), written once in tests/common/fixtures.rs for the
// examples and the tests.
#[path = "../tests/common/fixtures.rs"]
mod fixtures;

fixtures::repro!(sdfg, Repro, default);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::auto();
    println!("device: {}", device.name());
    let program = Repro::load(&device)?;

    let mut t_gpu = DeviceBuffer::<i32>::zeros(&device, 1)?;
    let mut x = vec![0i32; 32];
    let mut u = vec![0i32; 1];
    let before = device.counters();
    program.run(ReproArgs {
        X_size: 32,
        T_GPU: &mut t_gpu,
        X: &mut x,
        U: &mut u,
    })?;
    let after = device.counters();

    let set = x.iter().filter(|&&v| v == 1).count();
    println!("U[0] = {} (expected 11)", u[0]);
    println!("elements of X set = {set} (expected R = 10)");

    let ir = Repro::ir()?;
    let schedule = Repro::schedule()?;
    println!("sync points:");
    for (state, s) in ir.states.iter().zip(&schedule.states) {
        for sync in &s.syncs {
            println!(
                "  state `{}`: wait for `{}` {:?} ({:?})",
                state.name.text, ir.containers[sync.container].name.text, sync.site, sync.reason
            );
        }
    }
    println!(
        "this run: {} host waits, {} event waits",
        after.host_syncs - before.host_syncs,
        after.event_waits - before.event_waits
    );
    // The drawing (with streams and sync points) and DaCe's format.
    let out = std::path::Path::new("target/sdfg");
    std::fs::create_dir_all(out)?;
    std::fs::write(out.join("repro.dot"), Repro::to_dot())?;
    std::fs::write(out.join("repro.sdfg"), Repro::to_sdfg_json())?;
    let rendered = std::process::Command::new("dot")
        .args([
            "-Tsvg",
            "-o",
            "target/sdfg/repro.svg",
            "target/sdfg/repro.dot",
        ])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if rendered {
        println!("wrote target/sdfg/repro.svg (and .dot, .sdfg)");
    } else {
        println!("wrote target/sdfg/repro.dot and repro.sdfg (install Graphviz for the SVG)");
    }
    if u[0] != 11 || set != 10 {
        return Err("wrong result".into());
    }
    Ok(())
}
