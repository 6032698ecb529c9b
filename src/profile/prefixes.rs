//! A profile's name prefixes (`naming.prefixes`), compiled: case-insensitive regexes, each
//! removed in turn from the start of a bone name. Patterns simple enough are matched without a
//! regex engine (issue 20: see [`Plain`]; every pattern of the built-in profile is). The others
//! are compiled as one multi-pattern regex (issue 19: compiling eleven regexes one by one was a
//! tenth of normalizing a small file, most of it the same set-up per regex), each searched for
//! alone, anchored at the name's start: the match a search of that pattern alone finds there,
//! so the same names come out.

use super::plain::Plain;

/// How one prefix pattern is matched.
#[derive(Debug, Clone)]
enum Pattern {
    /// Without a regex engine.
    Plain(Plain),
    /// By the regex engine: the `k`-th of the patterns compiled.
    Regex(usize),
}

/// The compiled prefix patterns of a profile.
#[derive(Debug, Clone)]
pub struct Prefixes {
    /// Every pattern, in order.
    patterns: Vec<Pattern>,
    /// The patterns that are not plain as one regex, pattern `k` the `k`-th (unless it could
    /// not be built, or there are none).
    all: Option<regex_automata::meta::Regex>,
    /// Each alone, when they could not be built as one (never for patterns that compile
    /// alone, unless together they pass the size limit).
    each: Vec<regex::Regex>,
}

impl Prefixes {
    /// Compiles `patterns` (case-insensitive); the problems name each pattern that does not
    /// compile, with the `regex` crate's error.
    pub(crate) fn compile(patterns: &[String], problems: &mut Vec<String>) -> Prefixes {
        let mut hard: Vec<&String> = Vec::new();
        let patterns: Vec<Pattern> = patterns
            .iter()
            .map(|p| match Plain::parse(p) {
                Some(plain) => Pattern::Plain(plain),
                None => {
                    hard.push(p);
                    Pattern::Regex(hard.len() - 1)
                }
            })
            .collect();
        let mut all = None;
        let mut each = Vec::new();
        if !hard.is_empty() {
            let syntax = regex_automata::util::syntax::Config::new().case_insensitive(true);
            all = regex_automata::meta::Builder::new()
                .syntax(syntax)
                .build_many(&hard)
                .ok();
            if all.is_none() {
                for p in hard {
                    match regex::RegexBuilder::new(p).case_insensitive(true).build() {
                        Ok(r) => each.push(r),
                        Err(e) => {
                            problems.push(format!("naming prefix `{p}` is not a valid regex: {e}"))
                        }
                    }
                }
            }
        }
        Prefixes {
            patterns,
            all,
            each,
        }
    }

    /// `name` less every prefix in turn: where pattern `i` matches at the start of what is
    /// left, and not all of it, the match is removed.
    pub fn strip<'n>(&self, name: &'n str) -> &'n str {
        let mut left = name;
        for pattern in &self.patterns {
            let end = match pattern {
                Pattern::Plain(plain) => plain.match_end(left),
                Pattern::Regex(k) => self.match_end(*k, left),
            };
            if let Some(end) = end {
                if end < left.len() {
                    left = &left[end..];
                }
            }
        }
        left
    }

    /// Where the `k`-th compiled pattern's match starting at the start of `text` ends, if it
    /// has one.
    fn match_end(&self, k: usize, text: &str) -> Option<usize> {
        match &self.all {
            Some(all) => {
                use regex_automata::{Anchored, Input, PatternID};
                let pattern = PatternID::new(k).ok()?;
                let input = Input::new(text).anchored(Anchored::Pattern(pattern));
                all.search(&input).map(|m| m.end())
            }
            None => self
                .each
                .get(k)?
                .find(text)
                .filter(|m| m.start() == 0)
                .map(|m| m.end()),
        }
    }
}
