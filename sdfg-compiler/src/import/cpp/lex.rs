//! C++ tokens and type names.

use super::{construct, syntax, CodeError};
use crate::ir::ScalarType;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Name(String),
    Int(u128, Option<ScalarType>),
    Float(f64, Option<ScalarType>),
    Op(&'static str),
}

const OPS: [&str; 46] = [
    "<<=", ">>=", "::", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--", "+=", "-=",
    "*=", "/=", "%=", "&=", "|=", "^=", "->", "+", "-", "*", "/", "%", "&", "|", "^", "~", "!",
    "<", ">", "(", ")", "[", "]", "{", "}", ",", ";", "?", ":", "=", ".",
];

pub(super) fn tokenize(code: &str) -> Result<Vec<Tok>, CodeError> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
        } else if c == '"' || c == '\'' {
            return Err(construct("string literal"));
        } else if c == '#' {
            return Err(construct("preprocessor directive"));
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let start = i;
            if c == '0' && matches!(chars.get(i + 1), Some('x' | 'X')) {
                i += 2;
                let s = i;
                while i < chars.len() && chars[i].is_ascii_hexdigit() {
                    i += 1;
                }
                let digits: String = chars[s..i].iter().collect();
                let v = u128::from_str_radix(&digits, 16).map_err(|_| syntax("bad hex number"))?;
                let suffix = int_suffix(&chars, &mut i)?;
                out.push(Tok::Int(v, suffix));
                continue;
            }
            let mut float = false;
            while i < chars.len() {
                let d = chars[i];
                if d.is_ascii_digit() {
                    i += 1;
                } else if d == '.' && !float {
                    float = true;
                    i += 1;
                } else if (d == 'e' || d == 'E')
                    && (chars.get(i + 1).is_some_and(|x| x.is_ascii_digit())
                        || (matches!(chars.get(i + 1), Some('+' | '-'))
                            && chars.get(i + 2).is_some_and(|x| x.is_ascii_digit())))
                {
                    float = true;
                    i += 2;
                } else {
                    break;
                }
            }
            let text: String = chars[start..i].iter().collect();
            if float {
                let suffix = match chars.get(i) {
                    Some('f' | 'F') => {
                        i += 1;
                        Some(ScalarType::F32)
                    }
                    Some('l' | 'L') => return Err(construct("long double literal")),
                    _ => None,
                };
                let v: f64 = match suffix {
                    // An f32 literal rounds once, from the decimal text.
                    Some(_) => text.parse::<f32>().map(f64::from),
                    None => text.parse::<f64>(),
                }
                .map_err(|_| syntax(format!("bad number `{text}`")))?;
                out.push(Tok::Float(v, suffix));
            } else {
                let v: u128 = text
                    .parse()
                    .map_err(|_| syntax(format!("number `{text}` is too large")))?;
                let suffix = int_suffix(&chars, &mut i)?;
                out.push(Tok::Int(v, suffix));
            }
            if i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                return Err(syntax(format!("bad number suffix `{}`", chars[i])));
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Tok::Name(chars[start..i].iter().collect()));
        } else {
            let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
            let Some(op) = OPS.iter().find(|op| rest.starts_with(**op)) else {
                return Err(syntax(format!("unexpected character `{c}`")));
            };
            i += op.chars().count();
            out.push(Tok::Op(op));
        }
    }
    Ok(out)
}

/// `u`, `l`, `ll`, `ul`, `ull` (any case): the literal's type.
fn int_suffix(chars: &[char], i: &mut usize) -> Result<Option<ScalarType>, CodeError> {
    let start = *i;
    while *i < chars.len() && matches!(chars[*i], 'u' | 'U' | 'l' | 'L') {
        *i += 1;
    }
    let s: String = chars[start..*i].iter().collect::<String>().to_lowercase();
    Ok(match s.as_str() {
        "" => None,
        "u" => Some(ScalarType::U32),
        "l" | "ll" => Some(ScalarType::I64),
        "ul" | "ull" | "lu" | "llu" => Some(ScalarType::U64),
        other => return Err(syntax(format!("bad integer suffix `{other}`"))),
    })
}

/// C++ spellings of the element types (after `std::`/`dace::` prefixes).
pub(super) fn type_name(words: &[String]) -> Option<ScalarType> {
    let joined = words.join(" ");
    Some(match joined.as_str() {
        "signed char" | "int8_t" | "int8" => ScalarType::I8,
        "unsigned char" | "uint8_t" | "uint8" => ScalarType::U8,
        "short" | "short int" | "int16_t" | "int16" => ScalarType::I16,
        "unsigned short" | "unsigned short int" | "uint16_t" | "uint16" => ScalarType::U16,
        "int" | "int32_t" | "int32" | "signed" | "signed int" => ScalarType::I32,
        "long" | "long int" | "long long" | "long long int" | "int64_t" | "int64" | "ptrdiff_t" => {
            ScalarType::I64
        }
        "unsigned" | "unsigned int" | "uint32_t" | "uint32" | "uint" => ScalarType::U32,
        "unsigned long" | "unsigned long long" | "uint64_t" | "uint64" | "size_t" => {
            ScalarType::U64
        }
        "float" | "float32" => ScalarType::F32,
        "double" | "float64" => ScalarType::F64,
        "complex64" => ScalarType::C32,
        "complex128" => ScalarType::C64,
        "bool" => ScalarType::Bool,
        _ => return None,
    })
}

pub(super) const TYPE_WORDS: [&str; 21] = [
    "int8_t",
    "uint8_t",
    "int16_t",
    "uint16_t",
    "int",
    "long",
    "unsigned",
    "signed",
    "float",
    "double",
    "bool",
    "int32_t",
    "int64_t",
    "uint32_t",
    "uint64_t",
    "size_t",
    "ptrdiff_t",
    "char",
    "short",
    "auto",
    "void",
];
