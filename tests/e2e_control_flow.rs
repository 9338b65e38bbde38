//! `while`, `loop`, `break` and `continue` in tasklet bodies, on every
//! device (the CPU device runs the generated Rust, a GPU the PTX), checked
//! against plain Rust.

mod common;

use sdfg::prelude::*;

sdfg! {
    /// Per element: Collatz steps (a `while`), the first index of a zero at
    /// or after i (a `for` with `break`), the sum of the non-multiples of 3
    /// in 0..i (a `for` with `continue`), and a `loop` that halves until odd.
    pub sdfg Loops {
        symbol N: i64;
        gpu X: i64[N];
        gpu Steps: i64[N];
        gpu FirstZero: i64[N];
        gpu Sum: i64[N];
        gpu Odd: i64[N];
        state s {
            map collatz[i in 0..N] on gpu {
                let mut v = X[i];
                let mut steps = 0i64;
                while v > 1 && steps < 1000 {
                    if v % 2 == 0 { v = v / 2; continue; }
                    v = 3 * v + 1;
                    steps += 1;
                }
                Steps[i] = steps;
            }
            map first_zero[i in 0..N] on gpu {
                let mut found = -1i64;
                // Past the end on purpose: the `break` stops before `X[j]` leaves
                // the array, so no precheck may reject the range `i..N + 5`.
                for j in i..N + 5 {
                    if j >= N { break; }
                    if X[j] == 0 { found = j; break; }
                }
                FirstZero[i] = found;
            }
            map skip_threes[i in 0..N] on gpu {
                let mut s = 0i64;
                for k in (0..i).step_by(1) {
                    if k % 3 == 0 { continue; }
                    s += k;
                }
                Sum[i] = s;
            }
            map halve[i in 0..N] on gpu {
                let mut v = X[i];
                loop {
                    if v == 0 || v % 2 != 0 { break; }
                    v = v / 2;
                }
                Odd[i] = v;
            }
        }
    }
}

sdfg! {
    /// A boxed `for` whose range passes the end of `A`: after the `break`
    /// the access is guarded, not prechecked over the whole range.
    pub sdfg BreakBeforeTheEnd {
        symbol N: i64;
        host A: f64[N];
        host Out: f64[N];
        state s {
            map m[i in 0..N] on cpu {
                let mut acc = 0.0;
                for j in 0..N + 3 {
                    if j >= N { break; }
                    acc += A[j];
                }
                Out[i] = acc;
            }
            tasklet countdown {
                let mut k = N - 1;
                while k >= 0 {
                    Out[k] = Out[k] + k as f64;
                    k -= 1;
                }
            }
        }
    }
}

sdfg! {
    /// Exact prechecks would refuse these valid programs: a `for` that
    /// breaks before its range passes the end of `A` (the access comes
    /// before the `break`), and a `while` whose body never runs.
    pub sdfg LoopsThatStopEarly {
        symbol N: i64;
        host A: f64[N];
        host Out: f64[N];
        host Never: f64[N];
        state s {
            map m[i in 0..N] on cpu {
                let mut acc = 0.0;
                for j in 0..N + 3 {
                    acc += A[j];
                    if j + 1 >= N { break; }
                }
                Out[i] = acc;
            }
            tasklet never {
                let mut again = N < 0;
                while again {
                    Never[N + 5] = 1.0;
                    again = false;
                }
            }
        }
    }
}

fn collatz(mut v: i64) -> i64 {
    let mut steps = 0;
    while v > 1 && steps < 1000 {
        if v % 2 == 0 {
            v /= 2;
            continue;
        }
        v = 3 * v + 1;
        steps += 1;
    }
    steps
}

#[test]
fn loops_match_plain_rust() {
    let x: Vec<i64> = (0..40)
        .map(|k| if k % 7 == 3 { 0 } else { k * 5 + 1 })
        .collect();
    let n = x.len();
    for device in common::devices("loops_match_plain_rust") {
        let program = Loops::load(&device).expect("load");
        let xd = DeviceBuffer::from_slice(&device, &x).expect("upload");
        let mut outs: Vec<DeviceBuffer<i64>> = (0..4)
            .map(|_| DeviceBuffer::zeros(&device, n).expect("alloc"))
            .collect();
        let [steps, first, sum, odd] = &mut outs[..] else {
            unreachable!()
        };
        program
            .run(LoopsArgs {
                N: n as i64,
                X: &xd,
                Steps: steps,
                FirstZero: first,
                Sum: sum,
                Odd: odd,
            })
            .expect("run");
        let want_steps: Vec<i64> = x.iter().map(|&v| collatz(v)).collect();
        let want_first: Vec<i64> = (0..n)
            .map(|i| (i..n).find(|&j| x[j] == 0).map_or(-1, |j| j as i64))
            .collect();
        let want_sum: Vec<i64> = (0..n as i64)
            .map(|i| (0..i).filter(|k| k % 3 != 0).sum())
            .collect();
        let want_odd: Vec<i64> = x
            .iter()
            .map(|&v| {
                let mut v = v;
                while v != 0 && v % 2 == 0 {
                    v /= 2;
                }
                v
            })
            .collect();
        assert_eq!(steps.to_vec().unwrap(), want_steps, "{device:?}");
        assert_eq!(first.to_vec().unwrap(), want_first, "{device:?}");
        assert_eq!(sum.to_vec().unwrap(), want_sum, "{device:?}");
        assert_eq!(odd.to_vec().unwrap(), want_odd, "{device:?}");
    }
}

#[test]
fn accesses_after_a_break_are_checked_where_they_run() {
    let program = BreakBeforeTheEnd::load(&Device::cpu()).expect("load");
    let a = vec![1.0, 2.0, 3.0, 4.0];
    let mut out = vec![0.0; 4];
    program
        .run(BreakBeforeTheEndArgs {
            N: 4,
            A: &a,
            Out: &mut out,
        })
        .expect("the range 0..N + 3 is cut by the break: no precheck error");
    assert_eq!(out, [10.0, 11.0, 12.0, 13.0]);
}

#[test]
fn loops_that_stop_early_are_not_prechecked_over_their_ranges() {
    let program = LoopsThatStopEarly::load(&Device::cpu()).expect("load");
    let a = vec![1.0, 2.0, 3.0, 4.0];
    let (mut out, mut never) = (vec![0.0; 4], vec![0.0; 4]);
    program
        .run(LoopsThatStopEarlyArgs {
            N: 4,
            A: &a,
            Out: &mut out,
            Never: &mut never,
        })
        .expect("A[j] stops at j = N - 1 and Never[N + 5] never runs");
    assert_eq!(out, [10.0; 4]);
    assert_eq!(never, [0.0; 4]);
}
