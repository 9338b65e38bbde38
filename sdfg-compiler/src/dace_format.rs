//! The vocabulary of our DaCe `.sdfg` files beyond DaCe's own schema, shared
//! by the writer (`export::dace`, `export::cpp`) and the reader (`import`),
//! so neither reads the other: the `_meta_*` marks (DaCe ignores attributes
//! with that prefix), the C++ helpers installed in tasklets' `code_global`,
//! the names a C++ local may not take, and DaCe's names of our element
//! types.

use crate::ir::ScalarType;

/// DaCe's dtype of each element type (the names of `dace.dtypes`, which
/// match NumPy's). All but `bf16`: DaCe 1.0.2 has no bfloat16
/// ([`crate::export::dace::unexportable`] names such a container).
pub const DTYPES: [(ScalarType, &str); ScalarType::ALL.len() - 1] = [
    (ScalarType::I8, "int8"),
    (ScalarType::I16, "int16"),
    (ScalarType::I32, "int32"),
    (ScalarType::I64, "int64"),
    (ScalarType::U8, "uint8"),
    (ScalarType::U16, "uint16"),
    (ScalarType::U32, "uint32"),
    (ScalarType::U64, "uint64"),
    (ScalarType::F32, "float32"),
    (ScalarType::F64, "float64"),
    (ScalarType::F16, "float16"),
    (ScalarType::Bool, "bool"),
    (ScalarType::C32, "complex64"),
    (ScalarType::C64, "complex128"),
];

/// DaCe's name of an element type (`bf16`: `bfloat16`, a name DaCe 1.0.2
/// does not know; `export::dace::unexportable` reports it first).
pub fn dtype_name(t: ScalarType) -> &'static str {
    DTYPES
        .iter()
        .find(|(ty, _)| *ty == t)
        .map_or("bfloat16", |(_, name)| name)
}

/// The element type of a DaCe dtype name (`bool_` is NumPy's spelling).
pub fn dtype_of(name: &str) -> Option<ScalarType> {
    let name = if name == "bool_" { "bool" } else { name };
    DTYPES.iter().find(|(_, n)| *n == name).map(|(t, _)| *t)
}

/// Attribute of a data descriptor: a scalar written as a one-element
/// `Array` (see the module doc). DaCe ignores attributes named `_meta*`;
/// `crate::import` reads the scalar back.
pub const SCALAR_MARK: &str = "_meta_sdfg_rs_scalar";
/// Attribute of a map entry: its parameters' types (DaCe's ranges have none).
pub const PARAM_TYPES_MARK: &str = "_meta_sdfg_rs_param_types";
/// Attribute of a map entry: the containers of `#[independent(...)]` (the
/// race test trusts the user for them; DaCe has no such property).
pub const INDEPENDENT_MARK: &str = "_meta_sdfg_rs_independent";
/// Attribute of the SDFG: the declared symbols (the arguments; DaCe would
/// take every symbol read before an edge assigns it).
pub const ARGUMENTS_MARK: &str = "_meta_sdfg_rs_argument_symbols";

/// Helper functions for the integer semantics C++ leaves undefined.
/// Guarded, because DaCe pastes every tasklet's `code_global` into one file.
pub const HELPERS: &str = "\
#ifndef SDFG_RS_TASKLET_HELPERS
#define SDFG_RS_TASKLET_HELPERS
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>
// Rust-defined integer division: x / 0 == 0, MIN / -1 == MIN (no trap).
template <typename T> static inline T sdfg_rs_div(T a, T b) {
    if (b == 0) return 0;
    if (std::is_signed<T>::value && b == T(-1)) return T(0) - a;
    return a / b;
}
// x % 0 == x, MIN % -1 == 0.
template <typename T> static inline T sdfg_rs_rem(T a, T b) {
    if (b == 0) return a;
    if (std::is_signed<T>::value && b == T(-1)) return 0;
    return a % b;
}
// Rust's float -> int `as`: saturating, NaN -> 0.
template <typename T, typename F> static inline T sdfg_rs_f2i(F x) {
    if (x != x) return 0;
    if (x <= (F)std::numeric_limits<T>::min()) return std::numeric_limits<T>::min();
    if (x >= (F)std::numeric_limits<T>::max()) return std::numeric_limits<T>::max();
    return (T)x;
}
// Complex arithmetic as num-complex computes it (std::complex's `*` and `/`
// recover infinities and scale, and std::norm is |z|^2 through abs).
template <typename T> static inline std::complex<T> sdfg_rs_cmul(std::complex<T> a, std::complex<T> b) {
    return std::complex<T>(a.real() * b.real() - a.imag() * b.imag(),
                           a.real() * b.imag() + a.imag() * b.real());
}
template <typename T> static inline std::complex<T> sdfg_rs_cdiv(std::complex<T> a, std::complex<T> b) {
    T n = b.real() * b.real() + b.imag() * b.imag();
    return std::complex<T>((a.real() * b.real() + a.imag() * b.imag()) / n,
                           (a.imag() * b.real() - a.real() * b.imag()) / n);
}
template <typename T> static inline T sdfg_rs_cnorm_sqr(std::complex<T> a) {
    return a.real() * a.real() + a.imag() * a.imag();
}
template <typename T> static inline std::complex<T> sdfg_rs_cexp(std::complex<T> z) {
    T re = z.real(), im = z.imag();
    if (std::isinf(re)) {
        if (re < 0) {
            if (!std::isfinite(im)) return std::complex<T>(0, 0);
        } else if (im == 0 || !std::isfinite(im)) {
            if (std::isinf(im)) im = std::numeric_limits<T>::quiet_NaN();
            return std::complex<T>(re, im);
        }
    } else if (std::isnan(re) && im == 0) {
        return z;
    }
    T r = std::exp(re);
    return std::complex<T>(r * std::cos(im), r * std::sin(im));
}
#endif
";

/// C++ keywords and standard names a Rust local may be called.
pub const CPP_RESERVED: &[&str] = &[
    "auto",
    "bool",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "default",
    "delete",
    "double",
    "float",
    "friend",
    "goto",
    "inline",
    "int",
    "long",
    "namespace",
    "new",
    "operator",
    "private",
    "protected",
    "public",
    "register",
    "short",
    "signed",
    "sizeof",
    "static",
    "switch",
    "template",
    "this",
    "throw",
    "try",
    "typedef",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "NULL",
    "errno",
    "assert",
];
