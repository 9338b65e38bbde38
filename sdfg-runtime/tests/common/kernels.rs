//! The test module (PTX + CPU twins), its program specs, and the launch
//! helpers the scenarios share.

use sdfg_runtime::__glue::{
    AccessSite, KernelArgs, KernelEntry, KernelSites, ProgramSpec, StreamSpec,
};
use sdfg_runtime::*;
use std::time::Duration;

pub const PTX: &str = include_str!("ptx.ptx");

pub const SLOW_FILL: usize = 0;
pub const ADD_ONE: usize = 1;
pub const SLOW_COPY: usize = 2;
pub const CHECKED_STORE: usize = 3;
pub const AXPY_IF: usize = 4;
pub const SITE_STORE: usize = 5;

/// How long the "slow" kernels spin or sleep.
pub const SLOW_NS: u64 = 100_000_000;

fn spin(ns: u64) {
    std::thread::sleep(Duration::from_nanos(ns));
}

fn slow_fill(args: &KernelArgs<'_>) {
    let out = args.cells::<i32>(0);
    let len: u64 = args.value(1);
    let value: u32 = args.value(2);
    spin(args.value(3));
    for cell in &out[..len as usize] {
        i32::store(cell, value as i32);
    }
}

fn add_one(args: &KernelArgs<'_>) {
    use rayon::prelude::*;
    let x = args.cells::<i32>(0);
    let len: u64 = args.value(1);
    x[..len as usize]
        .par_iter()
        .for_each(|c| i32::store(c, i32::load(c).wrapping_add(1)));
}

fn slow_copy(args: &KernelArgs<'_>) {
    let src = args.cells::<i32>(0);
    let dst = args.cells::<i32>(1);
    let len: u64 = args.value(2);
    spin(args.value(3));
    for i in 0..len as usize {
        i32::store(&dst[i], i32::load(&src[i]));
    }
}

fn checked_store(args: &KernelArgs<'_>) {
    let x = args.cells::<i32>(0);
    let len: u64 = args.value(1);
    let index: u64 = args.value(2);
    let value: u32 = args.value(3);
    if index < len && (index as usize) < x.len() {
        i32::store(&x[index as usize], value as i32);
    } else {
        args.fault(7);
    }
}

fn site_store(args: &KernelArgs<'_>) {
    let x = args.cells::<i32>(0);
    let len: u64 = args.value(1);
    let index: u64 = args.value(2);
    let value: u32 = args.value(3);
    if index < len && (index as usize) < x.len() {
        i32::store(&x[index as usize], value as i32);
    } else {
        args.fault_at(1, index as i64);
    }
}

fn axpy_if(args: &KernelArgs<'_>) {
    let y = args.cells::<f64>(0);
    let x = args.cells::<f64>(1);
    let len: u64 = args.value(2);
    let a: f64 = args.value(3);
    let flag: bool = args.value(4);
    if !flag {
        return;
    }
    for i in 0..len as usize {
        f64::store(&y[i], a.mul_add(f64::load(&x[i]), f64::load(&y[i])));
    }
}

pub static KERNELS: [KernelEntry; 6] = [
    KernelEntry {
        name: "slow_fill",
        cpu: slow_fill,
    },
    KernelEntry {
        name: "add_one",
        cpu: add_one,
    },
    KernelEntry {
        name: "slow_copy",
        cpu: slow_copy,
    },
    KernelEntry {
        name: "checked_store",
        cpu: checked_store,
    },
    KernelEntry {
        name: "axpy_if",
        cpu: axpy_if,
    },
    KernelEntry {
        name: "site_store",
        cpu: site_store,
    },
];

const NO_SITES: KernelSites = KernelSites {
    map: "",
    state: "",
    accesses: &[],
};

/// What the fault codes of the test kernels mean: only `site_store`
/// reports sites (its one access, a write of `A`).
pub static SITES: [KernelSites; 6] = [
    NO_SITES,
    NO_SITES,
    NO_SITES,
    NO_SITES,
    NO_SITES,
    KernelSites {
        map: "scatter",
        state: "s",
        accesses: &[AccessSite {
            container: "A",
            write: true,
            rank: 1,
        }],
    },
];

// SAFETY: the test module (see `module`); its launches come from these tests.
pub static SPEC_SITES: ProgramSpec =
    unsafe { ProgramSpec::new("faulty", PTX, &KERNELS, StreamSpec::Created(1)) }.with_sites(&SITES);

// SAFETY: the test module (see `module`); its launches come from these tests.
pub static SPEC_SITES_DEFAULT: ProgramSpec =
    unsafe { ProgramSpec::new("faulty_default", PTX, &KERNELS, StreamSpec::Default) }
        .with_sites(&SITES);

// SAFETY: the test module (see `module`); its launches come from these tests.
pub static SPEC_TWO_STREAMS: ProgramSpec =
    unsafe { ProgramSpec::new("two_streams", PTX, &KERNELS, StreamSpec::Created(2)) };

// SAFETY: the test module (see `module`); its launches come from these tests.
pub static SPEC_DEFAULT: ProgramSpec =
    unsafe { ProgramSpec::new("default_stream", PTX, &KERNELS, StreamSpec::Default) };

// SAFETY: the test module (see `module`); its launches come from these tests.
pub static SPEC_OTHER: ProgramSpec =
    unsafe { ProgramSpec::new("other_program", PTX, &KERNELS, StreamSpec::Created(1)) };

pub fn single_thread() -> LaunchConfig {
    LaunchConfig {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        shared_bytes: 0,
    }
}

pub fn module(dev: &Device) -> std::sync::Arc<Module> {
    // SAFETY: the entries of ptx.ptx declare exactly the parameters that
    // every launch of these tests passes, and touch only elements below
    // their `len` argument, which the launches keep within the buffers.
    unsafe { Module::load(dev, PTX, &KERNELS) }.expect("the test module loads")
}

/// Issues the slow fill of `buf` with `value` on `stream`.
pub fn launch_slow_fill(
    stream: &Stream,
    m: &Module,
    buf: &DeviceBuffer<i32>,
    value: i32,
) -> Result<()> {
    // SAFETY: the parameters of the entry in ptx.ptx, `len` within the buffers.
    unsafe {
        stream.launch(
            m,
            SLOW_FILL,
            &single_thread(),
            &[
                KernelArg::write(buf),
                KernelArg::value(buf.len() as u64),
                KernelArg::value(value as u32),
                KernelArg::value(SLOW_NS),
            ],
        )
    }
}

pub fn launch_add_one(stream: &Stream, m: &Module, buf: &DeviceBuffer<i32>) -> Result<()> {
    let config = LaunchConfig::for_counts(stream.device(), &[buf.len() as u64], [128, 1, 1], 1);
    // SAFETY: the parameters of the entry in ptx.ptx, `len` within the buffers.
    unsafe {
        stream.launch(
            m,
            ADD_ONE,
            &config,
            &[
                KernelArg::read_write(buf),
                KernelArg::value(buf.len() as u64),
            ],
        )
    }
}

/// `site_store` of `value` at `index` into `buf`, reporting to `fault`
/// (a program call's slot or the stream's).
pub fn launch_site_store(
    stream: &Stream,
    m: &Module,
    buf: &DeviceBuffer<i32>,
    index: u64,
    value: u32,
    fault: KernelArg<'_>,
) -> Result<()> {
    // SAFETY: the parameters of the entry in ptx.ptx; it stores only below `len`.
    unsafe {
        stream.launch(
            m,
            SITE_STORE,
            &single_thread(),
            &[
                KernelArg::write(buf),
                KernelArg::value(buf.len() as u64),
                KernelArg::value(index),
                KernelArg::value(value),
                fault,
            ],
        )
    }
}

pub fn whole<T: Elem>(b: &DeviceBuffer<T>) -> Region {
    Region::whole(b.len())
}
