#!/usr/bin/env python3
"""DaCe-made SDFGs for sdfg-rs's importer (`sdfg NAME = include "x.sdfg";`).

Usage: dace_fixtures.py OUTDIR
       dace_fixtures.py --errors OUTDIR

Writes, for each program below, OUTDIR/NAME.sdfg (saved by DaCe 1.0.2, as
its Python frontend or SDFG API made it) and OUTDIR/NAME.io.json: fixed
inputs and the outputs DaCe itself computed from them on the CPU.

The committed copies live in tests/fixtures/dace/ (regenerate them with
`python ci/dace_fixtures.py tests/fixtures/dace`); tests/dace_import.rs
imports them, runs them on our CPU device and compares with DaCe's outputs,
and when SDFG_DACE_PYTHON is set runs this script again into a temporary
directory to compare with DaCe live.

`--errors` writes SDFGs outside what sdfg-rs reads, for the compile-fail
cases of tests/ui/ (`python ci/dace_fixtures.py --errors tests/ui/dace`):
an `Inv` library node, a nested SDFG, a tasklet with a `lambda`, a
thread-block map with shared memory, a CPU map reading GPU memory.

GPU programs (storage GPU_Global, GPU_Device maps) cannot run here (no
GPU, no nvcc): DaCe runs a CPU twin instead, the same SDFG with GPU storage
made CPU_Heap and GPU maps made CPU maps, which computes the same values.

NAME.io.json:
  {"symbols": {"N": 16},
   "inputs": {"x": {"dtype": "float64", "shape": [16], "data": [...]}, ...},
   "outputs": {"y": {"dtype": "float64", "shape": [16], "data": [...]}, ...}}
Data are flat, row-major; scalars have shape [].
"""

import copy
import json
import os
import sys
import tempfile
import warnings

import dace
import numpy as np

N = dace.symbol("N")
M = dace.symbol("M")


@dace.program
def axpy(a: dace.float64, x: dace.float64[N], y: dace.float64[N]):
    for i in dace.map[0:N]:
        y[i] = a * x[i] + y[i]


@dace.program
def jacobi_2d(TSTEPS: dace.int64, A: dace.float64[N, N], B: dace.float64[N, N]):
    # NPBench's jacobi_2d.
    for t in range(1, TSTEPS):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


@dace.program
def reduction(A: dace.float64[N, M], rowsum: dace.float64[N], peak: dace.float64[1]):
    # A sum with write-conflict resolution, and a max written as an explicit
    # tasklet with a WCR memlet.
    for i, j in dace.map[0:N, 0:M]:
        rowsum[i] += A[i, j]
    for i, j in dace.map[0:N, 0:M]:
        with dace.tasklet:
            a << A[i, j]
            p >> peak(1, lambda x, y: max(x, y))[0]
            p = a


@dace.program
def loop(A: dace.float64[N], B: dace.float64[N], T: dace.int64):
    # A host loop with a branch on the loop counter.
    for t in range(T):
        if t % 2 == 0:
            for i in dace.map[0:N]:
                B[i] = A[i] * 2.0 + t
        else:
            for i in dace.map[0:N]:
                A[i] = B[i] - 1.0


def repro():
    """DaCe issue 2120's reproducer (the SDFG API, as the issue wrote it),
    with the tasklet; it is compiled with the default stream there."""
    sdfg = dace.SDFG("repro")
    sdfg.add_symbol("R", dace.int32)
    X_size = sdfg.add_symbol("X_size", dace.int32)
    sdfg.add_scalar("T_GPU", dace.int32, storage=dace.StorageType.GPU_Global)
    sdfg.add_scalar("T", dace.int32, transient=True)
    sdfg.add_array("X", [X_size], dace.int32)

    first_state = sdfg.add_state()
    t_gpu_1 = first_state.add_access("T_GPU")
    t_cpu_1 = first_state.add_access("T")
    first_state.add_mapped_tasklet(
        "write",
        map_ranges={"i": "0"},
        inputs={},
        code="val = 10",
        outputs={"val": dace.Memlet("T_GPU[i]")},
        output_nodes={t_gpu_1},
        external_edges=True,
        schedule=dace.ScheduleType.GPU_Device,
    )
    first_state.add_nedge(t_gpu_1, t_cpu_1, dace.Memlet("T_GPU[0] -> [0]"))

    sdfg.add_array("U", shape=(1,), dtype=dace.int32, transient=False)
    u_cpu_1 = first_state.add_access("U")
    tlet1 = first_state.add_tasklet("cpu_computation", inputs={"__in"}, code="__out = __in + 1", outputs={"__out"})
    first_state.add_edge(t_cpu_1, None, tlet1, "__in", dace.Memlet("T[0]"))
    first_state.add_edge(tlet1, "__out", u_cpu_1, None, dace.Memlet("U[0]"))

    second_state = sdfg.add_state_after(first_state)
    second_state.add_mapped_tasklet(
        "compute",
        map_ranges=dict(i="0:R"),
        code="val = 1.0",
        inputs={},
        outputs={"val": dace.Memlet(data="X", subset="i")},
        external_edges=True,
    )
    sdfg.out_edges(first_state)[0].data.assignments["R"] = "T"
    sdfg.out_edges(first_state)[0].data.assignments["S"] = "False"
    return sdfg


def reduce_nodes():
    """Reduce library nodes as NumPy's np.sum(A, axis=0) and np.max(A,
    axis=1) make them, without the views the Python frontend adds."""
    sdfg = dace.SDFG("reduce_nodes")
    sdfg.add_array("A", [N, M], dace.float64)
    sdfg.add_array("colsum", [M], dace.float64)
    sdfg.add_array("rowmax", [N], dace.float64)
    state = sdfg.add_state()
    a = state.add_read("A")
    for out, axis, wcr, identity in [("colsum", 0, "lambda a, b: a + b", 0),
                                     ("rowmax", 1, "lambda a, b: max(a, b)", dace.dtypes.min_value(dace.float64))]:
        red = state.add_reduce(wcr, [axis], identity)
        state.add_nedge(a, red, dace.Memlet.from_array("A", sdfg.arrays["A"]))
        state.add_nedge(red, state.add_write(out), dace.Memlet.from_array(out, sdfg.arrays[out]))
    return sdfg


@dace.program
def matmul(A: dace.float64[N, M], B: dace.float64[M, N], C: dace.float64[N, N]):
    C[:] = A @ B


@dace.program
def linalg_inv(A: dace.float64[N, N], B: dace.float64[N, N]):
    B[:] = np.linalg.inv(A)


@dace.program
def nested_sdfg(A: dace.float64[N], B: dace.float64[N]):
    # A sequential loop inside a map becomes a nested SDFG.
    for i in dace.map[0:N]:
        acc = 0.0
        for j in range(3):
            acc += A[i]
        B[i] = acc


@dace.program
def tasklet_while(A: dace.float64[N], B: dace.float64[N]):
    for i in dace.map[0:N]:
        with dace.tasklet:
            a << A[i]
            b >> B[i]
            x = a
            while x > 1.0:
                x = x / 2.0
                if x < 1.5:
                    break
            b = x


@dace.program
def tasklet_lambda(A: dace.float64[N], B: dace.float64[N]):
    for i in dace.map[0:N]:
        with dace.tasklet:
            a << A[i]
            b >> B[i]
            half = lambda y: y / 2.0
            b = half(a)


def thread_block():
    """A GPU map with a thread-block map inside and GPU_Shared storage."""
    sdfg = dace.SDFG("thread_block")
    sdfg.add_array("A", [256], dace.float64, storage=dace.StorageType.GPU_Global)
    sdfg.add_array("S", [32], dace.float64, storage=dace.StorageType.GPU_Shared, transient=True)
    state = sdfg.add_state()
    state.add_mapped_tasklet(
        "block", dict(i="0:256"), dict(a=dace.Memlet("A[i]")), "b = a * 2",
        dict(b=dace.Memlet("A[i]")), schedule=dace.ScheduleType.GPU_ThreadBlock, external_edges=True)
    return sdfg


def cpu_reads_gpu():
    """A CPU map reading GPU memory (DaCe's validation lets it through)."""
    sdfg = dace.SDFG("cpu_reads_gpu")
    sdfg.add_array("G", [16], dace.float64, storage=dace.StorageType.GPU_Global)
    sdfg.add_array("H", [16], dace.float64)
    state = sdfg.add_state()
    state.add_mapped_tasklet(
        "host_sum", dict(i="0:16"), dict(g=dace.Memlet("G[i]")), "h = g + 1.0",
        dict(h=dace.Memlet("H[i]")), schedule=dace.ScheduleType.CPU_Multicore, external_edges=True)
    return sdfg


def error_fixtures():
    return [
        ("cpu_reads_gpu", cpu_reads_gpu()),
        ("linalg_inv", linalg_inv.to_sdfg()),
        ("nested_sdfg", nested_sdfg.to_sdfg()),
        ("tasklet_lambda", tasklet_lambda.to_sdfg()),
        ("thread_block", thread_block()),
    ]


@dace.program
def heat_3d(TSTEPS: dace.int64, A: dace.float64[N, N, N], B: dace.float64[N, N, N]):
    # NPBench's heat_3d: DaCe writes the 3-D strides as [N**2, N, 1].
    for t in range(1, TSTEPS):
        B[1:-1, 1:-1, 1:-1] = (0.125 * (A[2:, 1:-1, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[:-2, 1:-1, 1:-1]) +
                               0.125 * (A[1:-1, 2:, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, :-2, 1:-1]) +
                               0.125 * (A[1:-1, 1:-1, 2:] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, 1:-1, 0:-2]) +
                               A[1:-1, 1:-1, 1:-1])
        A[1:-1, 1:-1, 1:-1] = (0.125 * (B[2:, 1:-1, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[:-2, 1:-1, 1:-1]) +
                               0.125 * (B[1:-1, 2:, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, :-2, 1:-1]) +
                               0.125 * (B[1:-1, 1:-1, 2:] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, 1:-1, 0:-2]) +
                               B[1:-1, 1:-1, 1:-1])


@dace.program
def seidel_2d(TSTEPS: dace.int64, A: dace.float64[N, N]):
    # NPBench's seidel_2d: sequential loops updating in place.
    for t in range(0, TSTEPS - 1):
        for i in range(1, N - 1):
            A[i, 1:-1] += (A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 2:] + A[i + 1, :-2] +
                           A[i + 1, 1:-1] + A[i + 1, 2:])
            for j in range(1, N - 1):
                A[i, j] += A[i, j - 1]
                A[i, j] /= 9.0


@dace.program
def lu(A: dace.float64[N, N]):
    # NPBench's lu: triangular loops.
    for i in range(N):
        for j in range(i):
            for k in range(j):
                A[i, j] -= A[i, k] * A[k, j]
            A[i, j] /= A[j, j]
        for j in range(i, N):
            for k in range(i):
                A[i, j] -= A[i, k] * A[k, j]


@dace.program
def fdtd_2d(TMAX: dace.int64, ex: dace.float64[N, M], ey: dace.float64[N, M], hz: dace.float64[N, M],
            fict: dace.float64[M]):
    # NPBench's fdtd_2d: a row set from a scalar of the loop, shifted slices.
    for t in range(TMAX):
        ey[0, :] = fict[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.75 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


@dace.program
def durbin(r: dace.float64[N], y: dace.float64[N]):
    # NPBench's durbin: scalars carried through loops.
    alpha = -r[0]
    beta = 1.0
    y[0] = -r[0]
    for k in range(1, N):
        beta *= 1.0 - alpha * alpha
        s = 0.0
        for i in range(k):
            s += r[k - i - 1] * y[i]
        alpha = -(r[k] + s) / beta
        z = np.zeros_like(y)
        for i in range(k):
            z[i] = y[i] + alpha * y[k - i - 1]
        y[:k] = z[:k]
        y[k] = alpha


@dace.program
def data_branch(A: dace.float64[N], out: dace.float64[1]):
    # A branch on data inside a loop: DaCe keeps `A[i]` in a float64
    # symbol assigned on an interstate edge.
    s = 0.0
    for i in range(N):
        if A[i] > 0.5:
            s += A[i]
        else:
            s -= 1.0
    out[0] = s


@dace.program
def data_while(A: dace.float64[N]):
    # A loop whose condition reads data (through a float64 symbol).
    i = 0
    while i < N and A[i] < 10.0:
        A[i] = A[i] * 2.0
        i += 1


@dace.program
def steps_copies(A: dace.float32[N], B: dace.float32[N]):
    # A map with a step, and copies between offsets.
    for i in dace.map[1:N:2]:
        B[i] = A[i] * 2.0
    B[0:2] = A[N - 2:N]
    B[2:4] = A[0:2]


@dace.program
def sums(A: dace.float64[N, M, 4], rows: dace.float64[N], total: dace.float64[1]):
    # A 3-D map reducing into rows, and a whole-array sum (a Reduce node).
    for i, j, k in dace.map[0:N, 0:M, 0:4]:
        rows[i] += A[i, j, k]
    total[0] = np.sum(A)


@dace.program
def map_bodies(alpha: dace.float32, k: dace.int32, A: dace.float32[N], B: dace.float32[N], a: dace.int32[N],
               b: dace.int32[N], C: dace.int64[N], D: dace.int32[N]):
    # Map bodies of several operations: DaCe's Python frontend makes each a
    # nested SDFG inside the map (a chain of states whose edges carry
    # values in symbols), which the importer inlines.
    for i in dace.map[0:N]:
        B[i] = alpha * A[i] + k
    for i in dace.map[0:N]:
        C[i] = i * k - 1
    for i in dace.map[0:N]:
        D[i] = (a[i] // 3) + (b[i] % 7) - a[i] * b[i]


def dyadic(n, scale):
    """Values whose sums are exact in float64 in any order."""
    return [((k * 37) % 23 - 11) / scale for k in range(n)]


def fixtures():
    """(name, sdfg, symbols, inputs: name -> (dtype, shape, flat data), outputs)."""
    n, m, steps = 12, 7, 5
    grid = np.array([[(i * n + j) % 17 / 4.0 for j in range(n)] for i in range(n)]).reshape(-1).tolist()
    out = [
        ("axpy", axpy.to_sdfg(), {"N": 16},
         {"a": ("float64", [], [1.5]), "x": ("float64", [16], dyadic(16, 8)), "y": ("float64", [16], dyadic(16, 4)[::-1])},
         ["y"]),
        ("jacobi_2d", jacobi_2d.to_sdfg(), {"N": n},
         {"TSTEPS": ("int64", [], [steps]), "A": ("float64", [n, n], grid), "B": ("float64", [n, n], [0.0] * (n * n))},
         ["A", "B"]),
        ("reduction", reduction.to_sdfg(), {"N": n, "M": m},
         {"A": ("float64", [n, m], dyadic(n * m, 16)), "rowsum": ("float64", [n], [0.5] * n), "peak": ("float64", [1], [-100.0])},
         ["rowsum", "peak"]),
        ("loop", loop.to_sdfg(), {"N": 10},
         {"A": ("float64", [10], dyadic(10, 2)), "B": ("float64", [10], [0.0] * 10), "T": ("int64", [], [5])},
         ["A", "B"]),
        ("tasklet_while", tasklet_while.to_sdfg(), {"N": 8},
         {"A": ("float64", [8], [0.5, 1.0, 1.75, 3.0, 5.5, 12.0, 100.0, -4.0]), "B": ("float64", [8], [0.0] * 8)},
         ["B"]),
        ("reduce_nodes", reduce_nodes(), {"N": n, "M": m},
         {"A": ("float64", [n, m], dyadic(n * m, 16)), "colsum": ("float64", [m], [0.0] * m), "rowmax": ("float64", [n], [0.0] * n)},
         ["colsum", "rowmax"]),
        ("matmul", matmul.to_sdfg(), {"N": n, "M": m},
         {"A": ("float64", [n, m], dyadic(n * m, 4)), "B": ("float64", [m, n], dyadic(n * m, 2)[::-1]), "C": ("float64", [n, n], [0.0] * (n * n))},
         ["C"]),
        ("heat_3d", heat_3d.to_sdfg(), {"N": 6},
         {"TSTEPS": ("int64", [], [3]), "A": ("float64", [6, 6, 6], dyadic(216, 8)),
          "B": ("float64", [6, 6, 6], dyadic(216, 4)[::-1])},
         ["A", "B"]),
        ("seidel_2d", seidel_2d.to_sdfg(), {"N": 7},
         {"TSTEPS": ("int64", [], [3]), "A": ("float64", [7, 7], dyadic(49, 4))},
         ["A"]),
        ("lu", lu.to_sdfg(), {"N": 6},
         {"A": ("float64", [6, 6], [float((i * 6 + j) % 7 + (8 if i == j else 0)) for i in range(6) for j in range(6)])},
         ["A"]),
        ("fdtd_2d", fdtd_2d.to_sdfg(), {"N": 6, "M": 5},
         {"TMAX": ("int64", [], [4]), "ex": ("float64", [6, 5], dyadic(30, 8)), "ey": ("float64", [6, 5], dyadic(30, 4)),
          "hz": ("float64", [6, 5], dyadic(30, 2)[::-1]), "fict": ("float64", [5], [0.5, 1.0, 1.5, 2.0, 2.5])},
         ["ex", "ey", "hz"]),
        ("durbin", durbin.to_sdfg(), {"N": 8},
         {"r": ("float64", [8], [0.25, -0.125, 0.0625, 0.5, -0.25, 0.125, 0.375, -0.0625]), "y": ("float64", [8], [0.0] * 8)},
         ["y"]),
        ("data_branch", data_branch.to_sdfg(), {"N": 12},
         {"A": ("float64", [12], dyadic(12, 4)), "out": ("float64", [1], [0.0])},
         ["out"]),
        ("data_while", data_while.to_sdfg(), {"N": 10},
         {"A": ("float64", [10], [0.5, 1.0, 3.0, 9.5, 2.0, 12.0, 1.0, 1.0, 1.0, 1.0])},
         ["A"]),
        ("steps_copies", steps_copies.to_sdfg(), {"N": 9},
         {"A": ("float32", [9], dyadic(9, 4)), "B": ("float32", [9], [-1.0] * 9)},
         ["B"]),
        ("sums", sums.to_sdfg(), {"N": 3, "M": 5},
         {"A": ("float64", [3, 5, 4], dyadic(60, 8)), "rows": ("float64", [3], [0.5, 0.0, -1.0]), "total": ("float64", [1], [0.0])},
         ["rows", "total"]),
        ("map_bodies", map_bodies.to_sdfg(simplify=True), {"N": 9},
         {"alpha": ("float32", [], [1.5]), "k": ("int32", [], [3]), "A": ("float32", [9], dyadic(9, 4)),
          "B": ("float32", [9], [0.0] * 9), "a": ("int32", [9], [7, -8, 9, 10, -11, 12, 13, 14, -15]),
          "b": ("int32", [9], [3, 4, -5, 6, 7, 8, -9, 10, 11]), "C": ("int64", [9], [0] * 9), "D": ("int32", [9], [0] * 9)},
         ["B", "C", "D"]),
        ("repro", repro(), {"X_size": 32},
         {"T_GPU": ("int32", [], [0]), "X": ("int32", [32], [0] * 32), "U": ("int32", [1], [0])},
         ["X", "U"]),
    ]
    gpu = jacobi_2d.to_sdfg()
    gpu.apply_gpu_transformations()
    gpu.name = "jacobi_2d_gpu"
    out.append(("jacobi_2d_gpu", gpu, out[1][2], out[1][3], out[1][4]))
    return out


def cpu_twin(sdfg):
    """The same SDFG with GPU storage and schedules moved to the CPU."""
    twin = copy.deepcopy(sdfg)
    for desc in twin.arrays.values():
        if desc.storage in (dace.StorageType.GPU_Global, dace.StorageType.CPU_Pinned):
            desc.storage = dace.StorageType.CPU_Heap
    for node, _ in twin.all_nodes_recursive():
        if isinstance(node, dace.nodes.MapEntry) and node.map.schedule == dace.ScheduleType.GPU_Device:
            node.map.schedule = dace.ScheduleType.Default
    return twin


def run_on_cpu(name, sdfg, symbols, inputs, outputs):
    twin = cpu_twin(sdfg)
    twin.name = name + "_cpu"
    twin.build_folder = tempfile.mkdtemp(prefix=f"dace_fixture_{name}_")
    args = dict(symbols)
    for arr, (dtype, shape, data) in inputs.items():
        if shape:
            args[arr] = np.array(data, dtype=dtype).reshape(shape).copy()
        else:
            args[arr] = np.dtype(dtype).type(data[0])
    # DaCe's default flags include -ffast-math and -march=native (FMA): the
    # results would not be IEEE; sdfg-rs never contracts or reassociates.
    with dace.config.set_temporary("compiler", "cpu", "args", value="-std=c++14 -fPIC -O1 -Wno-unused-parameter"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compiled = twin.compile()
    compiled(**args)
    return {o: {"dtype": str(np.asarray(args[o]).dtype), "shape": list(np.asarray(args[o]).shape),
                "data": np.asarray(args[o]).reshape(-1).tolist()} for o in outputs}


def main():
    args = sys.argv[1:]
    errors = "--errors" in args
    args = [a for a in args if a != "--errors"]
    if len(args) != 1:
        print(__doc__)
        return 2
    outdir = os.path.abspath(args[0])
    os.makedirs(outdir, exist_ok=True)
    # DaCe writes debris (.dacecache/, _dacegraphs/) into the working directory.
    os.chdir(tempfile.mkdtemp(prefix="dace_fixtures_"))
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    if errors:
        for name, sdfg in error_fixtures():
            sdfg.save(os.path.join(outdir, name + ".sdfg"))
            print(f"ok   {name}", flush=True)
        return 0
    for name, sdfg, symbols, inputs, outputs in fixtures():
        sdfg.validate()
        sdfg.save(os.path.join(outdir, name + ".sdfg"))
        results = run_on_cpu(name, sdfg, symbols, inputs, outputs)
        io = {
            "symbols": symbols,
            "inputs": {k: {"dtype": d, "shape": s, "data": v} for k, (d, s, v) in inputs.items()},
            "outputs": results,
        }
        with open(os.path.join(outdir, name + ".io.json"), "w") as fh:
            json.dump(io, fh, indent=1)
            fh.write("\n")
        print(f"ok   {name}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
