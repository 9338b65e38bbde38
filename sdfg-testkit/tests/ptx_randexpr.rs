//! The random expression generator: the evaluator runs every generated
//! expression without panicking, and every generated kernel assembles.

use sdfg_compiler::codegen::ptx::generate;
use sdfg_compiler::codegen::ptx::ptxas::assemble_check;
use sdfg_compiler::eval::{self, MemEnv};
use sdfg_compiler::ir::{ScalarType, Value};
use sdfg_testkit::randexpr::{random_inputs, random_kernel, random_module, GenConfig};

#[test]
fn evaluator_runs_ten_thousand_random_expressions() {
    let n = 8;
    let config = GenConfig {
        max_depth: 6,
        approx_math: true,
    };
    let mut evaluated = 0;
    let mut faults = 0;
    for seed in 0..10_500u64 {
        let ty = ScalarType::ALL[(seed % ScalarType::ALL.len() as u64) as usize];
        let k = random_kernel(seed, ty, &config);
        let mut env = MemEnv::default();
        for &(t, c) in &k.inputs {
            env.set_container(c, vec![n], random_inputs(seed, t, n));
        }
        for i in 0..n {
            env.params = vec![Value::I64(i as i64)];
            match eval::eval_expr(&k.expr, &mut env, &mut Vec::new()) {
                Ok(v) => assert_eq!(v.ty(), ty, "seed {seed}: result type"),
                Err(_) => faults += 1,
            }
            evaluated += 1;
        }
    }
    // Every load is at index i < N: nothing may fault.
    assert_eq!(faults, 0);
    println!("evaluated {evaluated} expression instances");
}

#[test]
fn random_kernels_assemble() {
    let config = GenConfig {
        max_depth: 5,
        approx_math: true,
    };
    let mut assembled = 0;
    // A few hundred kernels per run (fewer unoptimized), ten per module so
    // ptxas runs once per ten kernels.
    let modules = if cfg!(debug_assertions) { 8 } else { 20 };
    for seed in 0..modules {
        let ty = ScalarType::ALL[(seed % ScalarType::ALL.len() as u64) as usize];
        let k = random_module(seed * 7919 + 1, ty, 10, &config);
        let m = generate(&k.sdfg);
        assert_eq!(m.kernels.len(), 10);
        match assemble_check(&m.text) {
            Ok(None) => {
                assert!(
                    std::env::var("SDFG_REQUIRE_PTXAS").map_or(true, |v| v != "1"),
                    "no ptxas"
                );
                println!("skipped: no ptxas");
                return;
            }
            Ok(Some(_)) => assembled += m.kernels.len(),
            Err(msg) => {
                let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../target/ptxas-rejected");
                let _ = std::fs::create_dir_all(&dir);
                let path = dir.join(format!("rand_{seed}.ptx"));
                let _ = std::fs::write(&path, &m.text);
                panic!(
                    "seed {seed}: ptxas rejected (saved to {}):\n{msg}",
                    path.display()
                );
            }
        }
    }
    println!("assembled {assembled} random kernels");
}

#[test]
fn random_bodies_assemble() {
    use sdfg_testkit::randexpr::random_body;
    let count = if cfg!(debug_assertions) { 10 } else { 40 };
    for seed in 0..count {
        let k = random_body(
            seed,
            ScalarType::ALL[(seed % ScalarType::ALL.len() as u64) as usize],
            seed % 2 == 1,
        );
        let m = generate(&k.sdfg);
        match assemble_check(&m.text) {
            Ok(None) => {
                assert!(
                    std::env::var("SDFG_REQUIRE_PTXAS").map_or(true, |v| v != "1"),
                    "no ptxas"
                );
                println!("skipped: no ptxas");
                return;
            }
            Ok(Some(_)) => {}
            Err(msg) => {
                let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../target/ptxas-rejected");
                let _ = std::fs::create_dir_all(&dir);
                let path = dir.join(format!("body_{seed}.ptx"));
                let _ = std::fs::write(&path, &m.text);
                panic!(
                    "seed {seed}: ptxas rejected (saved to {}):\n{msg}",
                    path.display()
                );
            }
        }
    }
}
