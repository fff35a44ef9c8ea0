//! A small evaluator of GitHub Actions expressions (`${{ ... }}` and step `if:`), enough for
//! the workflow test to ask which steps run for which event and branch instead of matching
//! strings: string literals, context names (`github.ref`, `env.X`, ...), `==`, `!=`, `!`,
//! `&&`, `||`, parentheses and the status functions. As GitHub does, `&&` and `||` give an
//! operand, strings compare case-insensitively, and a boolean stored in `env` reads "true"
//! or "false". Anything else panics: the test must not guess what GitHub would do.
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Str(String),
    Bool(bool),
}

impl Value {
    pub fn truthy(&self) -> bool {
        match self {
            Value::Bool(b) => *b,
            Value::Str(s) => !s.is_empty(),
        }
    }

    /// As GitHub writes a value into `env`.
    pub fn text(&self) -> String {
        match self {
            Value::Bool(b) => b.to_string(),
            Value::Str(s) => s.clone(),
        }
    }
}

/// The context names an expression may read (`github.event_name` -> "push") and what the
/// status functions answer (`cancelled()` is false, `success()` true, as in a run going well).
pub struct Context(pub BTreeMap<String, String>);

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Str(String),
    Name(String),
    Call(String),
    Op(&'static str),
}

fn tokens(src: &str) -> Vec<Tok> {
    const OPS: [&str; 7] = ["==", "!=", "&&", "||", "!", "(", ")"];
    let mut out = Vec::new();
    let mut rest = src;
    while let Some(ch) = rest.chars().next() {
        if ch.is_whitespace() {
            rest = &rest[ch.len_utf8()..];
        } else if let Some(lit) = rest.strip_prefix('\'') {
            // '' inside a literal is one quote.
            let mut s = String::new();
            let mut it = lit.char_indices().peekable();
            let end = loop {
                match it.next() {
                    None => panic!("unterminated string in {src}"),
                    Some((_, '\'')) if it.peek().map(|p| p.1) == Some('\'') => {
                        it.next();
                        s.push('\'');
                    }
                    Some((i, '\'')) => break i + 1,
                    Some((_, c)) => s.push(c),
                }
            };
            out.push(Tok::Str(s));
            rest = &lit[end..];
        } else if let Some(op) = OPS.into_iter().find(|op| rest.starts_with(op)) {
            out.push(Tok::Op(op));
            rest = &rest[op.len()..];
        } else if ch.is_alphanumeric() || ch == '_' {
            let len = rest
                .find(|c: char| !(c.is_alphanumeric() || "_.-".contains(c)))
                .unwrap_or(rest.len());
            let name = rest[..len].to_string();
            rest = &rest[len..];
            if let Some(after) = rest.strip_prefix("()") {
                out.push(Tok::Call(name));
                rest = after;
            } else {
                out.push(Tok::Name(name));
            }
        } else {
            panic!("unsupported character {ch:?} in expression {src}");
        }
    }
    out
}

struct Parser<'a> {
    toks: Vec<Tok>,
    at: usize,
    ctx: &'a Context,
    src: &'a str,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn eat(&mut self, op: &'static str) -> bool {
        let hit = self.peek() == Some(&Tok::Op(op));
        if hit {
            self.at += 1;
        }
        hit
    }

    fn or(&mut self) -> Value {
        let mut v = self.and();
        while self.eat("||") {
            let r = self.and();
            v = if v.truthy() { v } else { r };
        }
        v
    }

    fn and(&mut self) -> Value {
        let mut v = self.cmp();
        while self.eat("&&") {
            let r = self.cmp();
            v = if v.truthy() { r } else { v };
        }
        v
    }

    fn cmp(&mut self) -> Value {
        let l = self.unary();
        let eq = if self.eat("==") {
            true
        } else if self.eat("!=") {
            false
        } else {
            return l;
        };
        let r = self.unary();
        let same = match (&l, &r) {
            (Value::Str(a), Value::Str(b)) => a.eq_ignore_ascii_case(b),
            (Value::Bool(a), Value::Bool(b)) => a == b,
            _ => panic!("comparing a boolean with a string in {}", self.src),
        };
        Value::Bool(same == eq)
    }

    fn unary(&mut self) -> Value {
        if self.eat("!") {
            return Value::Bool(!self.unary().truthy());
        }
        if self.eat("(") {
            let v = self.or();
            assert!(self.eat(")"), "missing ) in {}", self.src);
            return v;
        }
        let t = self.toks.get(self.at).cloned();
        self.at += 1;
        match t {
            Some(Tok::Str(s)) => Value::Str(s),
            Some(Tok::Name(n)) => Value::Str(
                self.ctx
                    .0
                    .get(&n)
                    .unwrap_or_else(|| panic!("{n} is not in the test's context ({})", self.src))
                    .clone(),
            ),
            Some(Tok::Call(f)) => Value::Bool(match f.as_str() {
                "success" | "always" => true,
                "cancelled" | "failure" => false,
                _ => panic!("unsupported function {f}() in {}", self.src),
            }),
            t => panic!("unexpected {t:?} in {}", self.src),
        }
    }
}

/// The value of `expr` (with or without its `${{ }}`) in `ctx`.
pub fn eval(expr: &str, ctx: &Context) -> Value {
    let inner = expr
        .trim()
        .strip_prefix("${{")
        .and_then(|e| e.strip_suffix("}}"))
        .unwrap_or(expr);
    let mut p = Parser {
        toks: tokens(inner),
        at: 0,
        ctx,
        src: expr,
    };
    let v = p.or();
    assert_eq!(p.at, p.toks.len(), "trailing tokens in {expr}");
    v
}
