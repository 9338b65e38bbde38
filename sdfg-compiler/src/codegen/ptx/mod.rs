//! GPU maps -> PTX.

pub mod math;

/// A documented accuracy bound of one math function (vs Rust std, which the
/// evaluator uses), in units in the last place of the result type.
#[derive(Clone, Copy, Debug)]
pub struct UlpBound {
    pub function: &'static str,
    pub ulp: f64,
    pub note: &'static str,
}

/// Per function and type: the maximal error against Rust std.
pub const ULP_BOUNDS: &[UlpBound] = &[
    UlpBound {
        function: "exp f64",
        ulp: 2.0,
        note: "",
    },
    UlpBound {
        function: "exp f32",
        ulp: 1.0,
        note: "",
    },
    UlpBound {
        function: "ln f64",
        ulp: 2.0,
        note: "",
    },
    UlpBound {
        function: "ln f32",
        ulp: 1.0,
        note: "",
    },
    UlpBound {
        function: "sin f64",
        ulp: 2.0,
        note: "",
    },
    UlpBound {
        function: "cos f64",
        ulp: 2.0,
        note: "",
    },
    UlpBound {
        function: "sin f32",
        ulp: 1.0,
        note: "",
    },
    UlpBound {
        function: "cos f32",
        ulp: 1.0,
        note: "",
    },
    UlpBound {
        function: "tanh f64",
        ulp: 4.0,
        note: "",
    },
    UlpBound {
        function: "tanh f32",
        ulp: 2.0,
        note: "",
    },
    UlpBound {
        function: "powf f64",
        ulp: 2.0,
        note: "",
    },
    UlpBound {
        function: "powf f32",
        ulp: 1.0,
        note: "",
    },
];
