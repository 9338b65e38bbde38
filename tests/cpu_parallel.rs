//! The parallel fast path of `cpu` maps and of kernel twins on the CPU
//! device (issue 16): chunked maps compute what the sequential loop does,
//! reductions into one element combine per-chunk partials in a fixed
//! order (bit-identical run to run for a fixed thread count), shared
//! elements still go through atomics, and concurrent `run()` calls from
//! rayon tasks complete (issue 13, item 12).

mod common;
use sdfg::prelude::*;
use sdfg_testkit::rng::Rng;
use std::sync::mpsc;
use std::time::Duration;

sdfg! {
    /// Float reductions into one element, on the device and on the host.
    pub sdfg Sums {
        symbol N: i64;
        gpu X: f32[N];
        gpu S: f32;
        gpu M: f32[2];
        host HX: f32[N];
        host HS: f32[1];
        state s {
            map dev[i in 0..N] on gpu { S += X[i]; M[0] = M[0].max(X[i]); M[1] = M[1].min(X[i]); }
            map host[i in 0..N] on cpu { HS[0] += HX[i] * 0.5; }
        }
    }
}

/// A rayon pool of `threads` threads (the user's pool the calls run in).
fn pool_of(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.signed_unit() as f32).collect()
}

/// One call of `Sums` from fixed starting values: (S, max, min, HS).
fn sums(program: &Sums, device: &Device, x: &[f32]) -> (f32, f32, f32, f32) {
    let dx = DeviceBuffer::from_slice(device, x).unwrap();
    let mut s = DeviceBuffer::from_slice(device, &[0.25f32]).unwrap();
    let mut m = DeviceBuffer::from_slice(device, &[f32::NAN, f32::NAN]).unwrap();
    let mut hs = vec![-0.5f32];
    program
        .run(SumsArgs {
            N: x.len() as i64,
            X: &dx,
            S: &mut s,
            M: &mut m,
            HX: x,
            HS: &mut hs,
        })
        .unwrap();
    let m = m.to_vec().unwrap();
    (s.to_vec().unwrap()[0], m[0], m[1], hs[0])
}

#[test]
fn float_reductions_are_reproducible_for_a_fixed_thread_count() {
    let x = random(1 << 16, 5);
    let exact: f64 = 0.25 + x.iter().map(|&v| v as f64).sum::<f64>();
    let host_exact: f64 = -0.5 + x.iter().map(|&v| v as f64 * 0.5).sum::<f64>();
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let min = x.iter().copied().fold(f32::INFINITY, f32::min);
    for threads in [1, 3, 4] {
        let device = Device::cpu_with_threads(threads);
        let program = Sums::load(&device).unwrap();
        let pool = pool_of(threads);
        let first = pool.install(|| sums(&program, &device, &x));
        assert!(
            (first.0 as f64 - exact).abs() < 1e-2,
            "{first:?} vs {exact}"
        );
        assert!((first.3 as f64 - host_exact).abs() < 1e-2, "{first:?}");
        assert_eq!((first.1, first.2), (max, min));
        for _ in 0..6 {
            let again = pool.install(|| sums(&program, &device, &x));
            assert_eq!(
                (again.0.to_bits(), again.3.to_bits()),
                (first.0.to_bits(), first.3.to_bits()),
                "{threads} threads: {again:?} after {first:?}"
            );
        }
    }
}

sdfg! {
    /// Every access form a chunked map meets: own elements (2-D, offsets),
    /// a reduction into own elements, partials guarded by an `if`, integer
    /// partials of each operator, and shared elements (atomics).
    pub sdfg Forms {
        symbol N: i64; symbol K: i64;
        gpu A: i64[N, N];
        gpu B: i64[N, N];
        gpu R: i64[N];
        gpu PS: i64;
        gpu PM: i64[2];
        gpu PN: i64[2];
        gpu PP: i64;
        gpu H: i64[8];
        host HA: i64[N, N];
        host HR: i64[N];
        host HS: i64[1];
        host HM: i64[2];
        host HH: i64[8];
        state s {
            map own[i in 1..N-1, j in 0..N] on gpu {
                B[i, j] = A[i - 1, j] + A[i + 1, j] * 3 - A[i, j];
            }
            map rows[i in 0..N] on gpu { for j in 0..N { R[i] += A[i, j]; } }
            map parts[i in 0..N, j in 0..N] on gpu {
                PS += A[i, j];
                if A[i, j] % 3 == 0 { PM[K] = PM[K].max(A[i, j] * i); }
                PN[1] = PN[1].min(A[i, j] - j);
                PN[0] = PN[0].min(A[i, j] + j);
                PP *= 1 + (A[i, j] & 1);
            }
            map shared[i in 0..N, j in 0..N] on gpu { H[(A[i, j] & 7)] += 1; }
            map hrows[i in 0..N] on cpu { for j in 0..N { HR[i] += HA[i, j]; } }
            map hparts[i in 0..N, j in 0..N] on cpu {
                HS[0] += HA[i, j];
                if HA[i, j] % 3 == 0 { HM[K] = HM[K].max(HA[i, j] * i); }
            }
            map hshared[i in 0..N, j in 0..N] on cpu { HH[(HA[i, j] & 7)] += 1; }
        }
    }
}

/// The containers of one `Forms` call.
struct FormsData {
    a: DeviceBuffer<i64>,
    b: DeviceBuffer<i64>,
    r: DeviceBuffer<i64>,
    ps: DeviceBuffer<i64>,
    pm: DeviceBuffer<i64>,
    pn: DeviceBuffer<i64>,
    pp: DeviceBuffer<i64>,
    h: DeviceBuffer<i64>,
    ha: Vec<i64>,
    hr: Vec<i64>,
    hs: Vec<i64>,
    hm: Vec<i64>,
    hh: Vec<i64>,
}

impl FormsData {
    fn new(device: &Device, n: usize, a: &[i64]) -> FormsData {
        let buffer = |v: &[i64]| DeviceBuffer::from_slice(device, v).unwrap();
        FormsData {
            a: buffer(a),
            b: buffer(&vec![7; n * n]),
            r: buffer(&vec![1; n]),
            ps: buffer(&[5]),
            pm: buffer(&[3, i64::MIN]),
            pn: buffer(&[0, 0]),
            pp: buffer(&[3]),
            h: buffer(&[0; 8]),
            ha: a.to_vec(),
            hr: vec![1; n],
            hs: vec![5],
            hm: vec![3, i64::MIN],
            hh: vec![0; 8],
        }
    }

    fn run(&mut self, program: &Forms, n: usize, k: i64) -> Result<(), Error> {
        program.run(FormsArgs {
            N: n as i64,
            K: k,
            A: &self.a,
            B: &mut self.b,
            R: &mut self.r,
            PS: &mut self.ps,
            PM: &mut self.pm,
            PN: &mut self.pn,
            PP: &mut self.pp,
            H: &mut self.h,
            HA: &self.ha,
            HR: &mut self.hr,
            HS: &mut self.hs,
            HM: &mut self.hm,
            HH: &mut self.hh,
        })
    }
}

#[test]
fn chunked_maps_compute_the_sequential_result() {
    let n = 301usize;
    let mut rng = Rng::new(9);
    let a: Vec<i64> = (0..n * n)
        .map(|_| (rng.next_u64() % 1000) as i64 - 500)
        .collect();
    // The sequential reference.
    let mut b = vec![7i64; n * n];
    for i in 1..n - 1 {
        for j in 0..n {
            b[i * n + j] = a[(i - 1) * n + j] + a[(i + 1) * n + j] * 3 - a[i * n + j];
        }
    }
    let r: Vec<i64> = (0..n)
        .map(|i| 1 + a[i * n..(i + 1) * n].iter().sum::<i64>())
        .collect();
    // [PS, PM[0], PM[1], PN[0], PN[1], PP] from their starting values.
    let mut p = [5i64, 3, i64::MIN, 0, 0, 3];
    let mut h = [0i64; 8];
    for i in 0..n {
        for j in 0..n {
            let v = a[i * n + j];
            p[0] += v;
            if v % 3 == 0 {
                p[2] = p[2].max(v * i as i64);
            }
            p[3] = p[3].min(v + j as i64);
            p[4] = p[4].min(v - j as i64);
            p[5] = p[5].wrapping_mul(1 + (v & 1));
            h[(v & 7) as usize] += 1;
        }
    }
    for threads in [1, 2, 5] {
        let device = Device::cpu_with_threads(threads);
        let program = Forms::load(&device).unwrap();
        let pool = pool_of(threads);
        let mut data = FormsData::new(&device, n, &a);
        pool.install(|| data.run(&program, n, 1)).unwrap();
        assert_eq!(data.b.to_vec().unwrap(), b, "{threads} threads");
        assert_eq!(data.r.to_vec().unwrap(), r);
        let got = [&data.ps, &data.pm, &data.pn, &data.pp].map(|x| x.to_vec().unwrap());
        assert_eq!(got.concat(), p);
        assert_eq!(data.h.to_vec().unwrap(), h);
        assert_eq!(data.hr, r);
        assert_eq!((data.hs[0], data.hm[0], data.hm[1]), (p[0], p[1], p[2]));
        assert_eq!(data.hh, h);
        // A guarded reduction whose element is out of bounds faults, naming
        // the container, whichever chunk ran it.
        let err = pool.install(|| data.run(&program, n, 2)).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("PM") || text.contains("HM"), "{text}");
    }
}

sdfg! {
    /// GPU-style loops over neighbouring points: the CPU runs blocks of
    /// points side by side (lanes), each loop step once for the block.
    pub sdfg Lanes {
        symbol N: i64; symbol P: i64; symbol K: i64;
        gpu A: i64[N, N];
        gpu C: i64[N, N];
        gpu X: f32[P * K];
        gpu S: f32;
        host HA: i64[N, N];
        host HC: i64[N, N];
        state s {
            map mm[i in 0..N, j in 0..N] on gpu {
                let mut acc = 0i64;
                for k in 0..N { acc += A[i, k] * A[k, j]; }
                C[i, j] = acc + (j % 3);
            }
            map dot[p in 0..P] on gpu {
                let mut acc = 0.0f32;
                for k in 0..K { let x = X[p + k * P]; acc += x * x; }
                S += acc;
            }
            map hmm[i in 0..N, j in 0..N] on cpu {
                let mut acc = 0i64;
                for k in 0..N { acc += HA[i, k] * HA[k, j]; }
                HC[i, j] = acc - i;
            }
        }
    }
}

#[test]
fn lane_blocked_loops_compute_the_sequential_result() {
    let (n, p, k) = (101usize, 3000usize, 37usize);
    let mut rng = Rng::new(21);
    let a: Vec<i64> = (0..n * n)
        .map(|_| (rng.next_u64() % 200) as i64 - 100)
        .collect();
    let x = random(p * k, 22);
    let product = |i: usize, j: usize| (0..n).map(|q| a[i * n + q] * a[q * n + j]).sum::<i64>();
    let c: Vec<i64> = (0..n * n)
        .map(|e| product(e / n, e % n) + (e % n % 3) as i64)
        .collect();
    let hc: Vec<i64> = (0..n * n)
        .map(|e| product(e / n, e % n) - (e / n) as i64)
        .collect();
    let exact: f64 = x.iter().map(|&v| (v as f64) * (v as f64)).sum();
    for threads in [1, 3] {
        let device = Device::cpu_with_threads(threads);
        let program = Lanes::load(&device).unwrap();
        let da = DeviceBuffer::from_slice(&device, &a).unwrap();
        let dx = DeviceBuffer::from_slice(&device, &x).unwrap();
        let mut sums = Vec::new();
        for _ in 0..3 {
            let mut dc = DeviceBuffer::<i64>::zeros(&device, n * n).unwrap();
            let mut s = DeviceBuffer::<f32>::zeros(&device, 1).unwrap();
            let mut hcv = vec![0i64; n * n];
            program
                .run(LanesArgs {
                    N: n as i64,
                    P: p as i64,
                    K: k as i64,
                    A: &da,
                    C: &mut dc,
                    X: &dx,
                    S: &mut s,
                    HA: &a,
                    HC: &mut hcv,
                })
                .unwrap();
            assert_eq!(dc.to_vec().unwrap(), c, "{threads} threads");
            assert_eq!(hcv, hc);
            sums.push(s.to_vec().unwrap()[0]);
        }
        assert!(
            (sums[0] as f64 - exact).abs() < 1e-3 * exact,
            "{sums:?} vs {exact}"
        );
        assert!(
            sums.iter().all(|v| v.to_bits() == sums[0].to_bits()),
            "{sums:?}"
        );
    }
}

sdfg! {
    /// A kernel large enough to split into chunks on every thread count.
    pub sdfg Scale {
        symbol N: i64;
        gpu X: f64[N];
        host Y: f64[N];
        state s {
            map dev[i in 0..N] on gpu { X[i] = X[i] * 0.5 + 1.0; }
            map host[i in 0..N] on cpu { Y[i] = Y[i] * 0.5 + 1.0; }
        }
    }
}

/// Issue 13, item 12: kernel twins once ran on the global rayon pool, so a
/// few `run()` calls from rayon tasks blocked every global thread while
/// their kernels waited for one. The calls must complete (a timeout keeps
/// a regression from hanging CI).
#[test]
fn concurrent_runs_from_rayon_tasks_complete() {
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let device = Device::cpu();
        let program = Scale::load(&device).unwrap();
        let calls = 4 * rayon::current_num_threads();
        let n = 1usize << 16;
        let results: Vec<f64> = {
            use rayon::prelude::*;
            (0..calls)
                .into_par_iter()
                .map(|_| {
                    let mut x = DeviceBuffer::from_slice(&device, &vec![2.0; n]).unwrap();
                    let mut y = vec![4.0; n];
                    for _ in 0..5 {
                        program
                            .run(ScaleArgs {
                                N: n as i64,
                                X: &mut x,
                                Y: &mut y,
                            })
                            .unwrap();
                    }
                    x.to_vec().unwrap()[n - 1] + y[0]
                })
                .collect()
        };
        let _ = done.send(results);
    });
    let results = finished
        .recv_timeout(Duration::from_secs(120))
        .expect("concurrent run() calls from rayon tasks did not finish: deadlock");
    // 2 -> 2 -> 2 ... (x * 0.5 + 1 at 2 is 2); 4 -> 3 -> 2.5 -> 2.25 -> 2.125 -> 2.0625.
    assert!(results.iter().all(|&v| v == 2.0 + 2.0625), "{results:?}");
}

sdfg! {
    /// `mul_add` in host code: a `cpu` map, a `seq` map and a host tasklet
    /// (the program's host code then runs in a copy compiled with FMA).
    pub sdfg HostFused {
        symbol N: i64;
        host X: f32[N];
        host P: f32[N];
        host Q: f32[N];
        host T: f64[1];
        state s {
            map par[i in 0..N] on cpu { P[i] = X[i].mul_add(X[i], -1.0); }
            map ser[i in 0..N] on seq { Q[i] = X[i].mul_add(X[i], -1.0); }
            tasklet t { T[0] = (X[1] as f64).mul_add(X[1] as f64, -1.0); }
        }
    }
}

/// `mul_add` in host code rounds once (`common::fma_witnesses`).
#[test]
fn host_maps_and_tasklets_fuse_mul_add() {
    let n = 1000usize;
    let x = common::fma_witnesses(n);
    let want: Vec<f32> = x
        .iter()
        .map(|&v| (v as f64 * v as f64 - 1.0) as f32)
        .collect();
    for threads in [1, 4] {
        let device = Device::cpu_with_threads(threads);
        let program = HostFused::load(&device).unwrap();
        let (mut p, mut q, mut t) = (vec![f32::NAN; n], vec![f32::NAN; n], [f64::NAN]);
        program
            .run(HostFusedArgs {
                N: n as i64,
                X: &x,
                P: &mut p,
                Q: &mut q,
                T: &mut t,
            })
            .unwrap();
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&p), bits(&want), "cpu map, {threads} threads");
        assert_eq!(bits(&q), bits(&want), "seq map, {threads} threads");
        let x1 = x[1] as f64;
        assert_eq!(t[0], x1.mul_add(x1, -1.0), "host tasklet");
        // The test's inputs tell a fused result from an unfused one.
        let unfused = (0..n).filter(|&i| p[i] != x[i] * x[i] - 1.0).count();
        assert!(unfused >= n / 3, "{unfused}");
    }
}

sdfg! {
    /// Indices that add literals to map parameters which start below zero:
    /// the twin adds the literals' offset to that of the parameters, which
    /// wraps below zero first (`codegen::cpu::body::direct_offset`).
    pub sdfg Shifted {
        symbol N: i64;
        gpu A: i64[N, N, N];
        gpu B: i64[N, N, N];
        host HA: i64[N, N, N];
        host HB: i64[N, N, N];
        state s {
            map dev[i in -1..N-2, j in -2..N-2, k in 0..N-1] on gpu {
                B[i + 1, j + 2, k] = A[i + 2, j + 2, k + 1] - A[i + 1, 2 + j, k] * 2
                    + A[i + 1, j + 2, k + 1] * (i - j) + A[i + 3 - 1, j + 2, k] * 3;
            }
            map host[i in -1..N-2, j in -2..N-2, k in 0..N-1] on cpu {
                HB[i + 1, j + 2, k] = HA[i + 2, j + 2, k + 1] - HA[i + 1, 2 + j, k] * 2
                    + HA[i + 1, j + 2, k + 1] * (i - j) + HA[i + 3 - 1, j + 2, k] * 3;
            }
        }
    }
}

/// Shifted indices read and write the elements the sequential loop does,
/// on the CPU device and in `cpu` maps, on 1 to 3 threads.
#[test]
fn shifted_indices_reach_the_elements_the_loop_does() {
    let n = 23usize;
    let mut rng = Rng::new(17);
    let a: Vec<i64> = (0..n * n * n)
        .map(|_| (rng.next_u64() % 100) as i64 - 50)
        .collect();
    let at = |i: usize, j: usize, k: usize| (i * n + j) * n + k;
    let mut want = vec![-9i64; n * n * n];
    for i in -1..n as i64 - 2 {
        for j in -2..n as i64 - 2 {
            for k in 0..n - 1 {
                let (i1, i2, j2) = ((i + 1) as usize, (i + 2) as usize, (j + 2) as usize);
                want[at(i1, j2, k)] = a[at(i2, j2, k + 1)] - a[at(i1, j2, k)] * 2
                    + a[at(i1, j2, k + 1)] * (i - j)
                    + a[at(i2, j2, k)] * 3;
            }
        }
    }
    for threads in [1, 2, 3] {
        let device = Device::cpu_with_threads(threads);
        let program = Shifted::load(&device).unwrap();
        let pool = pool_of(threads);
        let da = DeviceBuffer::from_slice(&device, &a).unwrap();
        let mut db = DeviceBuffer::from_slice(&device, &vec![-9i64; n * n * n]).unwrap();
        let mut hb = vec![-9i64; n * n * n];
        pool.install(|| {
            program.run(ShiftedArgs {
                N: n as i64,
                A: &da,
                B: &mut db,
                HA: &a,
                HB: &mut hb,
            })
        })
        .unwrap();
        assert_eq!(
            db.to_vec().unwrap(),
            want,
            "{threads} threads, on the device"
        );
        assert_eq!(hb, want, "{threads} threads, the cpu map");
    }
}

sdfg! {
    /// Two maps on their own streams, then one that joins them (event
    /// waits between the CPU device's streams).
    #[streams(auto)]
    pub sdfg Fork {
        symbol N: i64;
        gpu A: f64[N];
        gpu B: f64[N];
        gpu C: f64[N];
        state s {
            map left[i in 0..N] on gpu { B[i] = A[i] * 2.0; }
            map right[i in 0..N] on gpu { C[i] = A[i] + 1.0; }
            map join[i in 0..N] on gpu { A[i] = B[i] + C[i]; }
        }
    }
}

/// `run()` puts off waking the CPU device's stream threads while its own
/// wait runs their jobs (`cpu::worker::DeferWakes`): calls of a program
/// whose maps run on several streams and wait for each other's events,
/// from plain threads through `run()` and through `launch().wait()`, and
/// from rayon tasks (whose waits run no jobs), all at once on one device,
/// complete with the right results (a timeout keeps a lost wake-up from
/// hanging CI).
#[test]
fn runs_that_put_off_wake_ups_complete_beside_other_callers() {
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let device = Device::cpu_with_threads(2);
        let program = Fork::load(&device).unwrap();
        let (n, calls) = (257usize, 30);
        // A = 3 A + 1 per call, from A = k: exact in f64 for 30 calls.
        let want = |k: usize| (0..calls).fold(k as f64, |a, _| 3.0 * a + 1.0);
        let one_caller = |k: usize, how: usize| {
            let mut a = DeviceBuffer::from_slice(&device, &vec![k as f64; n]).unwrap();
            let mut b = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
            let mut c = DeviceBuffer::<f64>::zeros(&device, n).unwrap();
            for _ in 0..calls {
                let args = ForkArgs {
                    N: n as i64,
                    A: &mut a,
                    B: &mut b,
                    C: &mut c,
                };
                if how == 0 {
                    program.run(args).unwrap();
                } else {
                    program.launch(args).unwrap().wait().unwrap();
                }
            }
            assert_eq!(a.to_vec().unwrap(), vec![want(k); n], "caller {k}");
        };
        let pool = pool_of(2);
        let before = device.counters();
        std::thread::scope(|scope| {
            for k in 0..4 {
                scope.spawn(move || one_caller(k, k % 2));
            }
            scope.spawn(|| {
                pool.install(|| {
                    use rayon::prelude::*;
                    (4..8usize).into_par_iter().for_each(|k| one_caller(k, 0));
                })
            });
        });
        // The joins waited for the other streams' events.
        assert!((device.counters() - before).event_waits > 0);
        let _ = done.send(());
    });
    finished
        .recv_timeout(Duration::from_secs(120))
        .expect("calls that put off wake-ups hung or failed");
}
