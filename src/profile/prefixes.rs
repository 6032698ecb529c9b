//! A profile's name prefixes (`naming.prefixes`), compiled: case-insensitive regexes, each
//! removed in turn from the start of a bone name. They are compiled as one multi-pattern regex
//! (issue 19: compiling eleven regexes one by one was a tenth of normalizing a small file, most
//! of it the same set-up per regex), each searched for alone, anchored at the name's start: the
//! match a search of that pattern alone finds there, so the same names come out.

/// The compiled prefix patterns of a profile.
#[derive(Debug, Clone)]
pub struct Prefixes {
    /// How many patterns there are.
    count: usize,
    /// The patterns as one regex, pattern `k` the `k`-th (unless it could not be built, or
    /// there are none).
    all: Option<regex_automata::meta::Regex>,
    /// Each alone, when they could not be built as one (never for patterns that compile
    /// alone, unless together they pass the size limit).
    each: Vec<regex::Regex>,
}

impl Prefixes {
    /// Compiles `patterns` (case-insensitive); the problems name each pattern that does not
    /// compile, with the `regex` crate's error.
    pub(crate) fn compile(patterns: &[String], problems: &mut Vec<String>) -> Prefixes {
        let mut all = None;
        let mut each = Vec::new();
        if !patterns.is_empty() {
            let syntax = regex_automata::util::syntax::Config::new().case_insensitive(true);
            all = regex_automata::meta::Builder::new()
                .syntax(syntax)
                .build_many(patterns)
                .ok();
            if all.is_none() {
                for p in patterns {
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
            count: patterns.len(),
            all,
            each,
        }
    }

    /// `name` less every prefix in turn: where pattern `i` matches at the start of what is
    /// left, and not all of it, the match is removed.
    pub fn strip<'n>(&self, name: &'n str) -> &'n str {
        let mut left = name;
        for k in 0..self.count {
            if let Some(end) = self.match_end(k, left) {
                if end < left.len() {
                    left = &left[end..];
                }
            }
        }
        left
    }

    /// Where pattern `k`'s match starting at the start of `text` ends, if it
    /// has one.
    pub(super) fn match_end(&self, k: usize, text: &str) -> Option<usize> {
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
