//! The vocabulary of our DaCe `.sdfg` files beyond DaCe's own schema, shared
//! by the writer (`export::dace`, `export::cpp`) and the reader (`import`),
//! so neither reads the other: the `_meta_*` marks (DaCe ignores attributes
//! with that prefix), the C++ helpers installed in tasklets' `code_global`,
//! and the names a C++ local may not take.

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
