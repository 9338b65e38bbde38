//! NPBench `mandelbrot1`:
//!
//! ```text
//! X = np.linspace(xmin, xmax, xn, dtype=np_float)
//! Y = np.linspace(ymin, ymax, yn, dtype=np_float)
//! C = X + Y[:, None] * 1j
//! N = np.zeros(C.shape, dtype=np.int64)
//! Z = np.zeros(C.shape, dtype=np_complex)
//! for n in range(maxiter):
//!     I = np.less(abs(Z), horizon)
//!     N[I] = n
//!     Z[I] = Z[I]**2 + C[I]
//! N[N == maxiter - 1] = 0
//! return Z, N
//! ```
//!
//! One map over the pixels, each running the `n` loop on its own (the
//! masked updates are per pixel). `Z` is a pair of `f64` arrays and `|z|`
//! is `sqrt(re² + im²)`: complex numbers with `abs` (issue 17, item 2)
//! would write `Z` and its update as in NumPy.

use super::arrays::*;
use super::common;
use sdfg::prelude::*;

sdfg! {
    pub sdfg Mandelbrot1 {
        symbol XN: i64; symbol YN: i64; symbol MAXITER: i64;
        host xmin: f64; host xmax: f64; host ymin: f64; host ymax: f64; host horizon: f64;
        gpu Zre: f64[YN, XN]; gpu Zim: f64[YN, XN]; gpu N: i64[YN, XN];
        state s {
            map pixel[i in 0..YN, j in 0..XN] on gpu {
                let cre = xmin + (j as f64) * ((xmax - xmin) / ((XN - 1) as f64));
                let cim = ymin + (i as f64) * ((ymax - ymin) / ((YN - 1) as f64));
                let mut re = 0.0;
                let mut im = 0.0;
                let mut last = 0i64;
                for n in 0..MAXITER {
                    if (re * re + im * im).sqrt() < horizon {
                        last = n;
                        let re2 = re * re - im * im + cre;
                        im = re * im + im * re + cim;
                        re = re2;
                    }
                }
                N[i, j] = if last == MAXITER - 1 { 0 } else { last };
                Zre[i, j] = re;
                Zim[i, j] = im;
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn reference(
    xn: usize,
    yn: usize,
    maxiter: i64,
    b: [f64; 4],
    horizon: f64,
) -> (Vec<f64>, Vec<f64>, Vec<i64>) {
    let [xmin, xmax, ymin, ymax] = b;
    let (mut zr, mut zi, mut nn) = (
        vec![0.0f64; xn * yn],
        vec![0.0f64; xn * yn],
        vec![0i64; xn * yn],
    );
    for i in 0..yn {
        for j in 0..xn {
            let cre = xmin + (j as f64) * ((xmax - xmin) / ((xn - 1) as f64));
            let cim = ymin + (i as f64) * ((ymax - ymin) / ((yn - 1) as f64));
            let k = i * xn + j;
            for n in 0..maxiter {
                let (re, im) = (zr[k], zi[k]);
                if (re * re + im * im).sqrt() < horizon {
                    nn[k] = n;
                    zr[k] = re * re - im * im + cre;
                    zi[k] = re * im + im * re + cim;
                }
            }
            if nn[k] == maxiter - 1 {
                nn[k] = 0;
            }
        }
    }
    (zr, zi, nn)
}

#[test]
fn mandelbrot1() {
    let (xn, yn, maxiter) = (23usize, 17usize, 40i64);
    let bounds = [-2.25, 0.75, -1.25, 1.25];
    let (wr, wi, wn) = reference(xn, yn, maxiter, bounds, 2.0);
    for device in common::devices("npbench mandelbrot1") {
        let mut zre = DeviceBuffer::<f64>::zeros(&device, xn * yn).unwrap();
        let mut zim = DeviceBuffer::<f64>::zeros(&device, xn * yn).unwrap();
        let mut n = DeviceBuffer::<i64>::zeros(&device, xn * yn).unwrap();
        Mandelbrot1::load(&device)
            .unwrap()
            .run(Mandelbrot1Args {
                XN: xn as i64,
                YN: yn as i64,
                MAXITER: maxiter,
                xmin: bounds[0],
                xmax: bounds[1],
                ymin: bounds[2],
                ymax: bounds[3],
                horizon: 2.0,
                Zre: &mut zre,
                Zim: &mut zim,
                N: &mut n,
            })
            .unwrap();
        let on = device.name();
        same_bits(&zre.to_vec().unwrap(), &wr, &format!("Z.re on {on}"));
        same_bits(&zim.to_vec().unwrap(), &wi, &format!("Z.im on {on}"));
        assert_eq!(n.to_vec().unwrap(), wn, "N on {on}");
    }
}
