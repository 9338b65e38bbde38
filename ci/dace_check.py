#!/usr/bin/env python3
"""Check exported .sdfg files with DaCe itself (dace==1.0.2).

Usage: dace_check.py [--validate-only] DIR

For every DIR/NAME.sdfg:
  1. dace.SDFG.from_file(path) must load it and sdfg.validate() accept it;
  2. an SDFG with GPU storage must go through DaCe's code generator (CPU
     and CUDA sources; nothing is compiled: CI has no GPU and no nvcc);
  3. when DIR/NAME.run.json exists (written for SDFGs without GPU storage),
     DaCe compiles the SDFG for the CPU, runs it on the inputs and every
     expected output must match exactly (bit for bit for floats, NaN == NaN).

NAME.run.json format (written by sdfg-compiler/tests/export_dace.rs):
  {
    "symbols": {"N": 8},                        # free symbols, by value
    "arrays": {                                 # every non-transient container
      "X": {"dtype": "int64", "shape": [8], "data": [...]},   # row-major, flat
      "s": {"dtype": "float64", "shape": [], "data": [1.5]},  # a scalar
      "z": {"dtype": "complex128", "shape": [2], "data": [re0, im0, re1, im1]}
    },                                          # complex: parts interleaved
    "expected": {"Y": [...]},                   # flat, row-major: our results
    "ulp": {"Y": 2}                             # optional: float outputs within
  }                                             # N ulps (transcendental functions:
                                                # C++ and Rust may call different
                                                # libm entry points)

--validate-only: step 1 only (many files, e.g. fuzzed exports).

Exit status 0 when every file passes; 1 with every failure listed otherwise.
"""

import json
import os
import sys
import tempfile
import traceback
import warnings


def fail(failures, name, what):
    failures.append(f"{name}: {what}")
    print(f"FAIL {name}: {what}", flush=True)


def uses_gpu(sdfg):
    import dace
    return any(desc.storage == dace.StorageType.GPU_Global for desc in sdfg.arrays.values())


def generate_gpu_code(sdfg, name):
    import dace
    sdfg.build_folder = tempfile.mkdtemp(prefix=f"dace_{name}_")
    # Without a GPU DaCe cannot guess the backend; the sources are the same.
    with dace.config.set_temporary("compiler", "cuda", "backend", value="cuda"):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="No `gpu_block_size`")
            files = sdfg.generate_code()
    if not any(f.language == "cu" for f in files):
        raise RuntimeError("no CUDA source generated")


def ulp_distance(a, b):
    """Per element: how many floats of a's type lie between a and b (NaN and
    NaN: 0; NaN and a number: huge)."""
    import numpy as np
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    def ordered(x):
        i = x.view(bits).astype(np.int64)
        return np.where(i < 0, np.iinfo(bits).min - i, i)
    d = np.abs(ordered(a) - ordered(b)).astype(np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    one_nan = np.isnan(a) ^ np.isnan(b)
    return np.where(both_nan, 0.0, np.where(one_nan, np.inf, d))


def to_array(data, dtype):
    """A flat JSON list as an array of dtype (complex: re, im interleaved)."""
    import numpy as np
    if dtype.kind == "c":
        part = np.float32 if dtype.itemsize == 8 else np.float64
        return np.array(data, dtype=part).view(dtype)
    return np.array(data, dtype=dtype)


def run_on_cpu(sdfg, spec, name, failures):
    import dace
    import numpy as np

    args = {}
    for arr_name, arr in spec["arrays"].items():
        desc = sdfg.arrays.get(arr_name)
        dtype = np.dtype(arr["dtype"])
        if desc is None:
            fail(failures, name, f"container {arr_name} is missing from the SDFG")
            return
        if isinstance(desc, dace.data.Scalar):
            args[arr_name] = to_array(arr["data"], dtype)[0]
        else:
            shape = arr["shape"] or [1]
            args[arr_name] = to_array(arr["data"], dtype).reshape(shape).copy()
    for sym, value in spec.get("symbols", {}).items():
        args[sym] = value

    # Build in a private folder so parallel runs and reruns do not collide.
    build = tempfile.mkdtemp(prefix=f"dace_{name}_")
    sdfg.build_folder = build
    # DaCe's default flags include -ffast-math, which changes float results
    # (NaN handling, reassociation); ours are IEEE.
    with dace.config.set_temporary("compiler", "cpu", "args", value="-std=c++14 -fPIC -O1 -Wno-unused-parameter"):
        compiled = sdfg.compile()
    compiled(**args)

    for out_name, want in spec["expected"].items():
        got = np.asarray(args[out_name]).reshape(-1)
        want = to_array(want, got.dtype).reshape(-1)
        if got.dtype.kind == "c":
            # Compare the parts (bits, NaN == NaN, ulps).
            part = np.float32 if got.dtype.itemsize == 8 else np.float64
            got, want = got.view(part), want.view(part)
        if got.shape != want.shape:
            fail(failures, name, f"{out_name}: shape {got.shape}, expected {want.shape}")
            continue
        tolerance = spec.get("ulp", {}).get(out_name, 0)
        if got.dtype.kind == "f":
            same = (got.view(np.uint8) == want.view(np.uint8)).all() or \
                np.array_equal(got, want, equal_nan=True)
            if not same and tolerance:
                same = bool((ulp_distance(got, want) <= tolerance).all())
        else:
            same = np.array_equal(got, want)
        if not same:
            close = ulp_distance(got, want) if tolerance else None
            bad = [i for i in range(len(got))
                   if not (got[i] == want[i] or (got[i] != got[i] and want[i] != want[i])
                           or (close is not None and close[i] <= tolerance))]
            shown = ", ".join(f"[{i}] dace {got[i]!r} vs ours {want[i]!r}" for i in bad[:5])
            fail(failures, name, f"{out_name} differs at {len(bad)} element(s): {shown}")


def main():
    args = sys.argv[1:]
    validate_only = "--validate-only" in args
    args = [a for a in args if a != "--validate-only"]
    if len(args) != 1:
        print(__doc__)
        return 2
    folder = os.path.abspath(args[0])
    # DaCe writes debris (_dacegraphs/, .dacecache/) into the working
    # directory: keep it out of the caller's tree.
    os.chdir(tempfile.mkdtemp(prefix="dace_check_"))
    # DaCe builds with cmake; the pip `cmake` lives next to this python.
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    import dace

    files = sorted(f for f in os.listdir(folder) if f.endswith(".sdfg"))
    if not files:
        print(f"FAIL: no .sdfg files in {folder}")
        return 1
    failures = []
    for f in files:
        name = f[:-len(".sdfg")]
        path = os.path.join(folder, f)
        try:
            # DaCe reports unknown or broken elements as warnings and goes
            # on with a half-loaded SDFG: treat them as errors.
            with warnings.catch_warnings():
                warnings.filterwarnings("error", message="Failed to deserialize")
                sdfg = dace.SDFG.from_file(path)
            sdfg.validate()
        except Exception as e:  # noqa: BLE001 (report every failure, go on)
            fail(failures, name, f"load/validate: {type(e).__name__}: {e}")
            continue
        if validate_only:
            print(f"ok   {name}: loads and validates", flush=True)
            continue
        run_json = os.path.join(folder, name + ".run.json")
        if not os.path.exists(run_json):
            if not uses_gpu(sdfg):
                print(f"ok   {name}: loads and validates", flush=True)
                continue
            try:
                generate_gpu_code(sdfg, name)
                print(f"ok   {name}: loads, validates, DaCe generates its CUDA code (not run: no GPU)", flush=True)
            except Exception as e:  # noqa: BLE001
                traceback.print_exc()
                fail(failures, name, f"code generation: {type(e).__name__}: {e}")
            continue
        if uses_gpu(sdfg):
            fail(failures, name, "has GPU storage but a .run.json: cannot run without a GPU")
            continue
        try:
            with open(run_json) as fh:
                spec = json.load(fh)
            before = len(failures)
            run_on_cpu(sdfg, spec, name, failures)
            if len(failures) == before:
                print(f"ok   {name}: loads, validates, and DaCe's CPU run matches ours", flush=True)
        except Exception as e:  # noqa: BLE001
            traceback.print_exc()
            fail(failures, name, f"compile/run: {type(e).__name__}: {e}")
    print(f"{len(files) - len({x.split(':')[0] for x in failures})}/{len(files)} SDFGs passed")
    if failures:
        print("failures:\n  " + "\n  ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
