//! Python tokens, with the indentation that makes Python's blocks.

use super::{construct, syntax, CodeError};

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Name(String),
    Int(u128),
    Float(f64),
    Op(&'static str),
    Newline,
    Indent,
    Dedent,
}

const OPS: [&str; 43] = [
    "**=", "//=", ">>=", "<<=", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+=", "-=", "*=",
    "/=", "%=", "&=", "|=", "^=", "->", ":=", "+", "-", "*", "/", "%", "&", "|", "^", "~", "<",
    ">", "(", ")", "[", "]", "{", "}", ",", ":", ".", "=",
];

/// Keywords that start a construct outside the subset.
pub(super) const UNSUPPORTED_KEYWORDS: [&str; 19] = [
    "lambda", "def", "return", "import", "from", "with", "yield", "class", "try", "raise",
    "global", "nonlocal", "del", "assert", "is", "async", "await", "None", "print",
];

pub(super) fn tokenize(code: &str) -> Result<Vec<Tok>, CodeError> {
    let mut out = Vec::new();
    let mut indents: Vec<usize> = vec![0];
    let mut depth = 0usize;
    let mut at_line_start = true;
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if at_line_start && depth == 0 {
            let mut width = 0;
            while i < chars.len() && (chars[i] == ' ' || chars[i] == '\t') {
                width += if chars[i] == '\t' { 8 - width % 8 } else { 1 };
                i += 1;
            }
            if i >= chars.len() {
                break;
            }
            if matches!(chars[i], '\n' | '\r' | '#') {
                // A blank or comment line does not count for indentation.
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                i += 1;
                continue;
            }
            at_line_start = false;
            let current = indents.last().copied().unwrap_or(0);
            if width > current {
                indents.push(width);
                out.push(Tok::Indent);
            } else {
                while width < indents.last().copied().unwrap_or(0) {
                    indents.pop();
                    out.push(Tok::Dedent);
                }
                if width != indents.last().copied().unwrap_or(0) {
                    return Err(syntax("inconsistent indentation"));
                }
            }
            continue;
        }
        match c {
            '\n' => {
                if depth == 0 && !matches!(out.last(), Some(Tok::Newline) | None) {
                    out.push(Tok::Newline);
                }
                if depth == 0 {
                    at_line_start = true;
                }
                i += 1;
            }
            ' ' | '\t' | '\r' => i += 1,
            '\\' if chars.get(i + 1) == Some(&'\n') => i += 2,
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ';' => {
                if !matches!(out.last(), Some(Tok::Newline) | None) {
                    out.push(Tok::Newline);
                }
                i += 1;
            }
            '\'' | '"' => return Err(construct("string literal")),
            c if c.is_ascii_digit()
                || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())) =>
            {
                let start = i;
                let mut float = false;
                if c == '0' && matches!(chars.get(i + 1), Some('x' | 'X' | 'b' | 'B' | 'o' | 'O')) {
                    let radix = match chars[i + 1] {
                        'x' | 'X' => 16,
                        'b' | 'B' => 2,
                        _ => 8,
                    };
                    i += 2;
                    let s = i;
                    while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                        i += 1;
                    }
                    let digits: String = chars[s..i].iter().filter(|c| **c != '_').collect();
                    let v = u128::from_str_radix(&digits, radix).map_err(|_| {
                        syntax(format!(
                            "bad number `{}`",
                            chars[start..i].iter().collect::<String>()
                        ))
                    })?;
                    out.push(Tok::Int(v));
                    continue;
                }
                while i < chars.len() {
                    let d = chars[i];
                    if d.is_ascii_digit() || d == '_' {
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
                let text: String = chars[start..i].iter().filter(|c| **c != '_').collect();
                if i < chars.len() && (chars[i].is_alphabetic() || chars[i] == '_') {
                    return Err(syntax(format!("bad number `{text}{}`", chars[i])));
                }
                if float {
                    let v: f64 = text
                        .parse()
                        .map_err(|_| syntax(format!("bad number `{text}`")))?;
                    out.push(Tok::Float(v));
                } else {
                    let v: u128 = text
                        .parse()
                        .map_err(|_| syntax(format!("number `{text}` is too large")))?;
                    out.push(Tok::Int(v));
                }
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                if matches!(chars.get(i), Some('\'' | '"')) {
                    return Err(construct("string literal"));
                }
                out.push(Tok::Name(word));
            }
            _ => {
                let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
                let Some(op) = OPS.iter().find(|op| rest.starts_with(**op)) else {
                    return Err(syntax(format!("unexpected character `{c}`")));
                };
                match *op {
                    "(" | "[" | "{" => depth += 1,
                    ")" | "]" | "}" => depth = depth.saturating_sub(1),
                    _ => {}
                }
                i += op.chars().count();
                out.push(Tok::Op(op));
            }
        }
    }
    if !matches!(out.last(), Some(Tok::Newline) | None) {
        out.push(Tok::Newline);
    }
    while indents.len() > 1 {
        indents.pop();
        out.push(Tok::Dedent);
    }
    Ok(out)
}

/// The code without the indentation all its lines share (DaCe keeps
/// tasklet code as written inside a `with dace.tasklet:` block).
pub(super) fn dedent(code: &str) -> String {
    let indent = code
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches([' ', '\t']).len())
        .min()
        .unwrap_or(0);
    code.lines()
        .map(|l| l.get(indent..).unwrap_or(l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
}

pub(super) fn is_keyword(n: &str) -> bool {
    matches!(
        n,
        "if" | "else"
            | "elif"
            | "for"
            | "while"
            | "break"
            | "continue"
            | "in"
            | "and"
            | "or"
            | "not"
            | "pass"
            | "True"
            | "False"
    ) || UNSUPPORTED_KEYWORDS.contains(&n)
}
