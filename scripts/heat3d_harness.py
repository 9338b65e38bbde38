#!/usr/bin/env python3
"""heat3d N=120 T=500 as one CUDA graph of 998 sweeps: sdfg-rs's module
against hand-written CUDA C walks, in one process (docs/BENCHMARKS.md,
"The heat3d harness"). Needs a GPU with CuPy; no Rust toolchain.

Here (with ptxas):
    cargo run --release --example heat3d -- --write-ptx target/h3
    $SDFG_PTXAS -arch=sm_90 target/h3/heat3d.ptx -o target/h3/heat3d.cubin
There (the device machine):
    python scripts/heat3d_harness.py --module target/h3/heat3d.cubin \
        --abi target/h3/heat3d.abi.json [--module ANOTHER.cubin ...]

Each graph is built node by node with programmatic edges, as the runtime
builds its graphs (cuGraphAddKernelNode_v2, cuGraphAddDependencies_v2 from
the PROGRAMMATIC port). Every kernel first runs a 4-sweep graph checked
bit for bit against NumPy (same operations, same order, no FMA), then the
998-sweep graph, timed with events: per round, the median of 15 launches
after 3 warm-up ones; three rounds, the variants interleaved.
"""
import argparse
import ctypes as C
import json

import cupy as cp
import numpy as np

WALK = r"""
  int n = (int)n64;
  int k = blockIdx.x*blockDim.x + threadIdx.x + 1;
  int j = blockIdx.y*blockDim.y + threadIdx.y + 1;
  int i0 = blockIdx.z*PLANES + 1;
  if (k < n-1 && j < n-1) {
    long nn = (long)n*n;
    int iend = min(i0+PLANES, n-1);
    long o = (long)i0*nn + (long)j*n + k;
    double below = A[o-nn], c = A[o];
    LOOP {
      double above = A[o+nn];
      B[o] = 0.125*(above - 2.0*c + below) + 0.125*(A[o+n] - 2.0*c + A[o-n])
           + 0.125*(A[o+1] - 2.0*c + A[o-1]) + c;
      below = c; c = above; o += nn;
    }
  }
"""
WAIT = 'asm volatile("griddepcontrol.wait;" ::: "memory");'
TRIGGER = 'asm volatile("griddepcontrol.launch_dependents;" ::: "memory");'
PLANES, BLOCK = 8, (64, 2, 1)

# The plane loop as runs LL-AAA measured it (nvcc unrolls it by four),
# and with a trip count of PLANES that `#pragma unroll` can act on.
PLANE_LOOP = "for (int i = i0; i < iend; i++)"
COUNTED = "for (int p = 0; p < PLANES; p++) if (i0 + p < iend)"

# name: (launch bounds, plane loop, trigger after the walk)
C_WALKS = {
    "C walk, trigger": ("(128)", PLANE_LOOP, True),
    "C walk, no trigger": ("(128)", PLANE_LOOP, False),
    "C walk, not unrolled": ("(128)", "#pragma unroll 1\n    " + COUNTED, True),
    "C walk, unrolled": ("(128)", "#pragma unroll\n    " + COUNTED, True),
    "C walk, unrolled, 32 registers": ("(128, 16)", "#pragma unroll\n    " + COUNTED, True),
}


def c_source():
    src = ""
    for i, (bounds, loop, trigger) in enumerate(C_WALKS.values()):
        body = WALK.replace("LOOP", loop).replace("PLANES", str(PLANES))
        src += (f'extern "C" __global__ void __launch_bounds__{bounds} c{i}('
                'const double* __restrict__ A, double* __restrict__ B, long n64) {'
                + WAIT + body + (TRIGGER if trigger else "") + "}\n")
    return src


class KParams(C.Structure):
    _fields_ = [("func", C.c_void_p), ("gx", C.c_uint), ("gy", C.c_uint), ("gz", C.c_uint),
                ("bx", C.c_uint), ("by", C.c_uint), ("bz", C.c_uint), ("smem", C.c_uint),
                ("params", C.POINTER(C.c_void_p)), ("extra", C.c_void_p),
                ("kern", C.c_void_p), ("ctx", C.c_void_p)]


class Edge(C.Structure):
    _fields_ = [("from_port", C.c_ubyte), ("to_port", C.c_ubyte), ("type", C.c_ubyte),
                ("reserved", C.c_ubyte * 5)]


cu = C.CDLL("libcuda.so.1")
V, P = C.c_void_p, C.POINTER
cu.cuGraphCreate.argtypes = [P(V), C.c_uint]
cu.cuGraphAddKernelNode_v2.argtypes = [P(V), V, P(V), C.c_size_t, P(KParams)]
cu.cuGraphAddDependencies_v2.argtypes = [V, P(V), P(V), P(Edge), C.c_size_t]
cu.cuGraphInstantiateWithFlags.argtypes = [P(V), V, C.c_ulonglong]
cu.cuGraphLaunch.argtypes = [V, V]
cu.cuGraphExecDestroy.argtypes = [V]
cu.cuGraphDestroy.argtypes = [V]
CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC, CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC = 1, 1


def function_ptr(module, name):
    """A kernel's CUfunction (CuPy returns a kernel object or a function)."""
    fn = module.get_function(name)
    return getattr(fn, "kernel", fn).ptr


def check(result, what):
    if result != 0:
        raise RuntimeError(f"{what}: CUresult {result}")


def sdfg_values(params, n, a, b, fault):
    """The values of one kernel's parameters (words of heat3d.abi.json)."""
    interior = n - 2
    values = []
    for word in params:
        kind, *rest = word.split()
        if kind == "buffer":
            values.append({"A": a, "B": b}[rest[0]].data.ptr)
        elif kind in ("extent", "symbol"):
            values.append(n)  # every extent and the symbol N are n
        elif kind == "range_start":
            values.append(1)
        elif kind == "range_count":
            values.append(interior)
        elif kind == "range_step":
            values.append(1)
        elif kind == "fault":
            values.append(fault.data.ptr)
        else:
            raise ValueError(f"heat3d has no {word!r} parameter")
    return values


class Graph:
    """`sweeps` kernel launches, each depending programmatically on the last."""

    def __init__(self, launches):
        self.keep = []
        self.graph = C.c_void_p()
        check(cu.cuGraphCreate(C.byref(self.graph), 0), "cuGraphCreate")
        prev = None
        for function, grid, values in launches:
            slots = [C.c_uint64(v) for v in values]
            ptrs = (C.c_void_p * len(slots))(*[C.cast(C.pointer(s), C.c_void_p) for s in slots])
            self.keep.append((slots, ptrs))
            p = KParams(C.c_void_p(function), *grid, *BLOCK, 0, C.cast(ptrs, P(V)), None, None, None)
            node = C.c_void_p()
            check(cu.cuGraphAddKernelNode_v2(C.byref(node), self.graph, None, 0, C.byref(p)), "add node")
            if prev is not None:
                edge = Edge(CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC, 0, CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC)
                check(cu.cuGraphAddDependencies_v2(self.graph, C.byref(prev), C.byref(node), C.byref(edge), 1),
                      "add edge")
            prev = node
        self.exec = C.c_void_p()
        check(cu.cuGraphInstantiateWithFlags(C.byref(self.exec), self.graph, 0), "instantiate")

    def launch(self, stream):
        check(cu.cuGraphLaunch(self.exec, C.c_void_p(stream.ptr)), "cuGraphLaunch")

    def __del__(self):
        cu.cuGraphExecDestroy(self.exec)
        cu.cuGraphDestroy(self.graph)


def numpy_sweep(n, src, dst):
    s = src.reshape(n, n, n)
    d = dst.reshape(n, n, n)
    c = s[1:-1, 1:-1, 1:-1]
    d[1:-1, 1:-1, 1:-1] = (0.125 * (s[2:, 1:-1, 1:-1] - 2.0 * c + s[:-2, 1:-1, 1:-1])
                           + 0.125 * (s[1:-1, 2:, 1:-1] - 2.0 * c + s[1:-1, :-2, 1:-1])
                           + 0.125 * (s[1:-1, 1:-1, 2:] - 2.0 * c + s[1:-1, 1:-1, :-2]) + c)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--module", action="append", default=[], help="an sdfg-rs heat3d cubin or PTX (repeatable)")
    ap.add_argument("--abi", required=True, help="heat3d.abi.json from --write-ptx")
    ap.add_argument("--n", type=int, default=120)
    ap.add_argument("--tsteps", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    n, size = args.n, args.n ** 3
    grid = ((n - 2 + BLOCK[0] - 1) // BLOCK[0], (n - 2 + BLOCK[1] - 1) // BLOCK[1], (n - 2 + PLANES - 1) // PLANES)
    abi = {k["name"]: k["params"] for k in json.load(open(args.abi))}
    stream = cp.cuda.Stream(non_blocking=True)
    fault = cp.zeros(3, dtype=cp.uint64)

    c_module = cp.RawModule(code=c_source(), options=("-fmad=false", "-arch=sm_90"))
    variants = {}  # name -> function(a, b, sweeps) -> launches
    for i, name in enumerate(C_WALKS):
        fn = function_ptr(c_module, f"c{i}")

        def c_launches(a, b, sweeps, fn=fn):
            return [(fn, grid, [x.data.ptr, y.data.ptr, n]) for t in range(sweeps)
                    for x, y in [((a, b) if t % 2 == 0 else (b, a))]]
        variants[name] = c_launches
    for path in args.module:
        m = cp.RawModule(path=path)
        step_b, step_a = (function_ptr(m, k) for k in ("k_step_b", "k_step_a"))

        def sdfg_launches(a, b, sweeps, step_b=step_b, step_a=step_a):
            return [(f, grid, sdfg_values(abi[name], n, a, b, fault)) for t in range(sweeps)
                    for f, name in [((step_b, "k_step_b") if t % 2 == 0 else (step_a, "k_step_a"))]]
        variants[f"sdfg-rs {path}"] = sdfg_launches

    rng = np.random.default_rng(7)
    a0, b0 = rng.random(size), rng.random(size)
    # NumPy reference of a 4-sweep graph (B from A, A from B, twice).
    ref_a, ref_b = a0.copy(), b0.copy()
    for _ in range(2):
        numpy_sweep(n, ref_a, ref_b)
        numpy_sweep(n, ref_b, ref_a)

    results, times = {}, {name: [] for name in variants}
    for round_ in range(args.rounds):
        for name, launches in variants.items():
            a, b = cp.asarray(a0), cp.asarray(b0)
            if round_ == 0:
                g = Graph(launches(a, b, 4))
                g.launch(stream)
                stream.synchronize()
                exact = np.array_equal(cp.asnumpy(a), ref_a) and np.array_equal(cp.asnumpy(b), ref_b)
                if not exact or int(fault[0]) != 0:
                    raise SystemExit(f"{name}: 4 sweeps differ from NumPy (fault word {int(fault[0])})")
                a[...], b[...] = cp.asarray(a0), cp.asarray(b0)
            g = Graph(launches(a, b, 2 * (args.tsteps - 1)))
            start, end = cp.cuda.Event(), cp.cuda.Event()
            samples = []
            for rep in range(18):
                start.record(stream)
                g.launch(stream)
                end.record(stream)
                end.synchronize()
                if rep >= 3:
                    samples.append(cp.cuda.get_elapsed_time(start, end))
            if round_ == 0:
                a[...], b[...] = cp.asarray(a0), cp.asarray(b0)
                g.launch(stream)
                stream.synchronize()
                results[name] = cp.asnumpy(a)
            times[name].append(float(np.median(samples)))
            print(f"round {round_}: {name}: {times[name][-1]:.3f} ms", flush=True)
    first = next(iter(results.values()))
    print(f"\nheat3d N={n} T={args.tsteps}, {2 * (args.tsteps - 1)} sweeps per graph "
          f"(medians of 15 launches per round):")
    for name, ts in times.items():
        same = "same" if np.array_equal(results[name], first) else "DIFFERENT"
        print(f"  {name:40} {min(ts):.3f}-{max(ts):.3f} ms  ({same} result as the first)")


if __name__ == "__main__":
    main()
