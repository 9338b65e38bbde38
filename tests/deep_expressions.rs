//! Long expressions compile and run (issue 13, item 10): a 2,000-term sum
//! in a `gpu` map and in a `cpu` map goes through the macro (on its grown
//! stack), rustc (the generated glue, twin and host code) and ptxas (the
//! kernel), and runs on the CPU device. The deep case, 1,000 nested
//! parentheses, is the compile-fail case `tests/ui/fe_nesting_too_deep.rs`.

use sdfg::prelude::*;

include!("deep_expressions/long_sums.rs");

#[test]
fn the_sums_have_two_thousand_terms() {
    let source = include_str!("deep_expressions/long_sums.rs");
    for (target, load) in [("Y[i] =", "X[i]"), ("G[i] =", "H[i]")] {
        let start = source.find(target).expect("the store") + target.len();
        let sum = &source[start..start + source[start..].find(';').expect("the end")];
        let terms: Vec<&str> = sum.split('+').map(str::trim).collect();
        assert_eq!(terms.len(), 2000, "{target}");
        assert_eq!(terms.iter().filter(|t| **t == load).count(), 1000);
        assert_eq!(terms.iter().filter(|t| **t == "0.5").count(), 1000);
    }
}

#[test]
fn two_thousand_term_sums_run_in_gpu_and_cpu_maps() -> Result<(), Error> {
    let device = Device::cpu();
    let program = LongSums::load(&device)?;
    let mut x = DeviceBuffer::from_slice(&device, &[0.0, 1.0, 2.0, 3.0])?;
    let mut y = DeviceBuffer::<f64>::zeros(&device, 4)?;
    let mut h = vec![0.0, 1.0, 2.0, 3.0];
    let mut g = vec![0.0; 4];
    program.run(LongSumsArgs {
        X: &mut x,
        Y: &mut y,
        H: &mut h,
        G: &mut g,
    })?;
    // 1,000 * x + 1,000 * 0.5, exact in f64.
    let expected = [500.0, 1500.0, 2500.0, 3500.0];
    assert_eq!(y.to_vec()?, expected);
    assert_eq!(g, expected);
    Ok(())
}

#[test]
fn the_kernel_of_a_long_sum_assembles() {
    use sdfg::compiler::codegen::ptx::ptxas::assemble_check;
    match assemble_check(LongSums::PTX) {
        Ok(Some(_)) => {}
        Ok(None) if std::env::var("SDFG_REQUIRE_PTXAS").as_deref() == Ok("1") => {
            panic!("SDFG_REQUIRE_PTXAS=1 but no ptxas was found (set SDFG_PTXAS)")
        }
        Ok(None) => println!("skipped: no ptxas (set SDFG_PTXAS)"),
        Err(log) => panic!("ptxas rejects the kernel of a 2,000-term sum:\n{log}"),
    }
}
