//! A profile's name prefixes (`naming.prefixes`), compiled: case-insensitive regexes, each
//! removed in turn from the start of a bone name. All are compiled as one multi-pattern regex
//! (issue 19: compiling eleven regexes one by one was a tenth of normalizing a small file, most
//! of it the same set-up per regex), each searched for alone, anchored at the name's start:
//! the match a search of that pattern alone finds there, so the same names come out.

/// The compiled prefix patterns of a profile.
#[derive(Debug, Clone)]
pub struct Prefixes {
    /// How many patterns there are.
    len: usize,
    /// All of them as one regex, pattern `i` the `i`-th (unless it could not be built).
    all: Option<regex_automata::meta::Regex>,
    /// Each alone, when they could not be built as one (never for patterns that compile
    /// alone, unless together they pass the size limit).
    each: Vec<regex::Regex>,
}

impl Prefixes {
    /// Compiles `patterns` (case-insensitive); the problems name each pattern that does not
    /// compile, with the `regex` crate's error.
    pub(crate) fn compile(patterns: &[String], problems: &mut Vec<String>) -> Prefixes {
        let syntax = regex_automata::util::syntax::Config::new().case_insensitive(true);
        let all = regex_automata::meta::Builder::new()
            .syntax(syntax)
            .build_many(patterns)
            .ok();
        let mut each = Vec::new();
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
        Prefixes {
            len: patterns.len(),
            all,
            each,
        }
    }

    /// `name` less every prefix in turn: where pattern `i` matches at the start of what is
    /// left, and not all of it, the match is removed.
    pub fn strip<'n>(&self, name: &'n str) -> &'n str {
        let mut left = name;
        for i in 0..self.len {
            if let Some(end) = self.match_end(i, left) {
                if end < left.len() {
                    left = &left[end..];
                }
            }
        }
        left
    }

    /// Where pattern `i`'s match starting at the start of `text` ends, if it has one.
    fn match_end(&self, i: usize, text: &str) -> Option<usize> {
        match &self.all {
            Some(all) => {
                use regex_automata::{Anchored, Input, PatternID};
                let pattern = PatternID::new(i).ok()?;
                let input = Input::new(text).anchored(Anchored::Pattern(pattern));
                all.search(&input).map(|m| m.end())
            }
            None => self
                .each
                .get(i)?
                .find(text)
                .filter(|m| m.start() == 0)
                .map(|m| m.end()),
        }
    }
}
