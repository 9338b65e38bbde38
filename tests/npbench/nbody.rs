//! NPBench `nbody` (Philip Mocz's N-body simulation):
//!
//! ```text
//! def getAcc(pos, mass, G, softening):
//!     x = pos[:, 0:1]; y = pos[:, 1:2]; z = pos[:, 2:3]
//!     dx = x.T - x; dy = y.T - y; dz = z.T - z
//!     inv_r3 = (dx**2 + dy**2 + dz**2 + softening**2)
//!     inv_r3[inv_r3 > 0] = inv_r3[inv_r3 > 0]**(-1.5)
//!     ax = G * (dx * inv_r3) @ mass; ay = ...; az = ...
//!     return np.hstack((ax, ay, az))
//!
//! def getEnergy(pos, vel, mass, G):
//!     KE = 0.5 * np.sum(mass * vel**2)
//!     x = pos[:, 0:1]; ...; dx = x.T - x; ...
//!     inv_r = np.sqrt(dx**2 + dy**2 + dz**2)
//!     inv_r[inv_r > 0] = 1.0 / inv_r[inv_r > 0]
//!     PE = G * np.sum(np.triu(-(mass * mass.T) * inv_r, 1))
//!     return KE, PE
//!
//! def nbody(mass, pos, vel, N, Nt, dt, G, softening, KE, PE):
//!     vel -= np.mean(mass * vel, axis=0) / np.mean(mass)
//!     acc = getAcc(pos, mass, G, softening)
//!     KE[0], PE[0] = getEnergy(pos, vel, mass, G)
//!     for i in range(Nt):
//!         vel += acc * dt / 2.0
//!         pos += vel * dt
//!         acc = getAcc(pos, mass, G, softening)
//!         vel += acc * dt / 2.0
//!         KE[i + 1], PE[i + 1] = getEnergy(pos, vel, mass, G)
//! ```
//!
//! `getAcc` and `getEnergy` are nested SDFGs, each called twice as NumPy
//! calls them (the energies of step `t` bound to `KE[t + 1]`, `PE[t + 1]`).
//! Before nested SDFGs the loop had to enter one state twice through a flag
//! symbol. Array statements and `reduce` (issue 17, items 6 and 7) would
//! shorten the kicks, the drift and the sums.

use super::arrays::*;
use super::common;
use sdfg::prelude::*;

sdfg! {
    pub sdfg Nbody {
        symbol N: i64; symbol NT: i64; host dt: f64; host G: f64; host softening: f64;
        gpu mass: f64[N]; gpu pos: f64[N, 3]; gpu vel: f64[N, 3]; gpu KE: f64[NT + 1]; gpu PE: f64[NT + 1];
        transient gpu acc: f64[N, 3]; transient gpu mv: f64[3]; transient gpu m: f64;
        sdfg GetAcc {
            symbol N: i64; host G: f64; host softening: f64;
            gpu pos: f64[N, 3]; gpu mass: f64[N]; gpu a: f64[N, 3];
            state s {
                map a[i in 0..N, c in 0..3] on gpu {
                    let mut s = 0.0;
                    for j in 0..N {
                        let dx = pos[j, 0] - pos[i, 0];
                        let dy = pos[j, 1] - pos[i, 1];
                        let dz = pos[j, 2] - pos[i, 2];
                        let mut inv_r3 = dx * dx + dy * dy + dz * dz + softening * softening;
                        if inv_r3 > 0.0 { inv_r3 = inv_r3.powf(-1.5); }
                        s += G * ((pos[j, c] - pos[i, c]) * inv_r3) * mass[j];
                    }
                    a[i, c] = s;
                }
            }
        }
        sdfg GetEnergy {
            symbol N: i64; host G: f64;
            gpu pos: f64[N, 3]; gpu vel: f64[N, 3]; gpu mass: f64[N]; gpu KE: f64; gpu PE: f64;
            state zero { map z[i in 0..1] on gpu { KE = 0.0; PE = 0.0; } }
            state sum {
                map ke[i in 0..N, c in 0..3] on gpu { KE += mass[i] * (vel[i, c] * vel[i, c]); }
                map pe[i in 0..N, j in 0..N] on gpu {
                    if j > i {
                        let dx = pos[j, 0] - pos[i, 0];
                        let dy = pos[j, 1] - pos[i, 1];
                        let dz = pos[j, 2] - pos[i, 2];
                        let mut inv_r = (dx * dx + dy * dy + dz * dz).sqrt();
                        if inv_r > 0.0 { inv_r = 1.0 / inv_r; }
                        PE += -(mass[i] * mass[j]) * inv_r;
                    }
                }
            }
            state scale { map f[i in 0..1] on gpu { KE = 0.5 * KE; PE = G * PE; } }
            zero -> sum;
            sum -> scale;
        }
        state zero { map z[i in 0..1] on gpu { mv[0] = 0.0; mv[1] = 0.0; mv[2] = 0.0; m = 0.0; } }
        state means {
            map mv[i in 0..N, c in 0..3] on gpu { mv[c] += mass[i] * vel[i, c]; }
            map m[i in 0..N] on gpu { m += mass[i]; }
        }
        state start {
            map center[i in 0..N, c in 0..3] on gpu { vel[i, c] = vel[i, c] - (mv[c] / (N as f64)) / (m / (N as f64)); }
            GetAcc(G = G, softening = softening, pos = pos, mass = mass, a = acc);
            GetEnergy(G = G, pos = pos, vel = vel, mass = mass, KE = KE[0], PE = PE[0]);
        }
        state step {
            map kick[i in 0..N, c in 0..3] on gpu { vel[i, c] = vel[i, c] + acc[i, c] * dt / 2.0; }
            map drift[i in 0..N, c in 0..3] on gpu { pos[i, c] = pos[i, c] + vel[i, c] * dt; }
            GetAcc(G = G, softening = softening, pos = pos, mass = mass, a = acc);
            map kick2[i in 0..N, c in 0..3] on gpu { vel[i, c] = vel[i, c] + acc[i, c] * dt / 2.0; }
            GetEnergy(G = G, pos = pos, vel = vel, mass = mass, KE = KE[t + 1], PE = PE[t + 1]);
        }
        zero -> means;
        means -> start;
        start -> step if 0 < NT { t = 0 }
        step -> step if t + 1 < NT { t = t + 1 }
    }
}

struct Particles {
    n: usize,
    mass: Vec<f64>,
    pos: Vec<f64>,
    vel: Vec<f64>,
}

fn get_acc(p: &Particles, g: f64, soft: f64) -> Vec<f64> {
    let n = p.n;
    let mut a = vec![0.0; n * 3];
    for i in 0..n {
        for c in 0..3 {
            let mut s = 0.0;
            for j in 0..n {
                let d = |k: usize| p.pos[j * 3 + k] - p.pos[i * 3 + k];
                let mut inv_r3 = d(0) * d(0) + d(1) * d(1) + d(2) * d(2) + soft * soft;
                if inv_r3 > 0.0 {
                    inv_r3 = inv_r3.powf(-1.5);
                }
                s += g * (d(c) * inv_r3) * p.mass[j];
            }
            a[i * 3 + c] = s;
        }
    }
    a
}

fn get_energy(p: &Particles, g: f64) -> (f64, f64) {
    let n = p.n;
    let mut ke = 0.0;
    let mut pe = 0.0;
    for i in 0..n {
        for c in 0..3 {
            ke += p.mass[i] * (p.vel[i * 3 + c] * p.vel[i * 3 + c]);
        }
        for j in i + 1..n {
            let d = |k: usize| p.pos[j * 3 + k] - p.pos[i * 3 + k];
            let mut inv_r = (d(0) * d(0) + d(1) * d(1) + d(2) * d(2)).sqrt();
            if inv_r > 0.0 {
                inv_r = 1.0 / inv_r;
            }
            pe += -(p.mass[i] * p.mass[j]) * inv_r;
        }
    }
    (0.5 * ke, g * pe)
}

fn reference(p: &mut Particles, nt: usize, dt: f64, g: f64, soft: f64) -> (Vec<f64>, Vec<f64>) {
    let n = p.n;
    let msum: f64 = p.mass.iter().sum();
    for c in 0..3 {
        let mv: f64 = (0..n).map(|i| p.mass[i] * p.vel[i * 3 + c]).sum();
        for i in 0..n {
            p.vel[i * 3 + c] -= (mv / n as f64) / (msum / n as f64);
        }
    }
    let mut acc = get_acc(p, g, soft);
    let (mut ke, mut pe) = (vec![0.0; nt + 1], vec![0.0; nt + 1]);
    (ke[0], pe[0]) = get_energy(p, g);
    for t in 0..nt {
        for (v, a) in p.vel.iter_mut().zip(&acc) {
            *v += a * dt / 2.0;
        }
        for (x, v) in p.pos.iter_mut().zip(&p.vel) {
            *x += v * dt;
        }
        acc = get_acc(p, g, soft);
        for (v, a) in p.vel.iter_mut().zip(&acc) {
            *v += a * dt / 2.0;
        }
        (ke[t + 1], pe[t + 1]) = get_energy(p, g);
    }
    (ke, pe)
}

#[test]
fn nbody() {
    let (n, nt) = (16usize, 4usize);
    let (dt, g, soft) = (0.01, 1.0, 0.1);
    let mass: Vec<f64> = random(15, n)
        .iter()
        .map(|m| 20.0 * (1.5 + m) / n as f64)
        .collect();
    let (pos0, vel0) = (random(16, n * 3), random(17, n * 3));
    let mut p = Particles {
        n,
        mass: mass.clone(),
        pos: pos0.clone(),
        vel: vel0.clone(),
    };
    let (wke, wpe) = reference(&mut p, nt, dt, g, soft);
    for device in common::devices("npbench nbody") {
        let m = DeviceBuffer::from_slice(&device, &mass).unwrap();
        let mut pos = DeviceBuffer::from_slice(&device, &pos0).unwrap();
        let mut vel = DeviceBuffer::from_slice(&device, &vel0).unwrap();
        let mut ke = DeviceBuffer::<f64>::zeros(&device, nt + 1).unwrap();
        let mut pe = DeviceBuffer::<f64>::zeros(&device, nt + 1).unwrap();
        Nbody::load(&device)
            .unwrap()
            .run(NbodyArgs {
                N: n as i64,
                NT: nt as i64,
                dt,
                G: g,
                softening: soft,
                mass: &m,
                pos: &mut pos,
                vel: &mut vel,
                KE: &mut ke,
                PE: &mut pe,
            })
            .unwrap();
        // The sums (momentum, mass, energies) run in any order.
        let on = device.name();
        close(&ke.to_vec().unwrap(), &wke, 1e-10, &format!("KE on {on}"));
        close(&pe.to_vec().unwrap(), &wpe, 1e-10, &format!("PE on {on}"));
        close(
            &pos.to_vec().unwrap(),
            &p.pos,
            1e-10,
            &format!("pos on {on}"),
        );
        close(
            &vel.to_vec().unwrap(),
            &p.vel,
            1e-9,
            &format!("vel on {on}"),
        );
    }
}
