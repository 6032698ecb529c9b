//! Prefix patterns simple enough to match without a regex engine (issue 20: building the
//! profile's prefix regexes was a sixth of mapping a small file, and every pattern of the
//! built-in profile is of this kind). A plain pattern is a leading `^` (optional), then ASCII
//! literals, `.`, escaped metacharacters and bracket classes of non-letters, each optionally
//! followed by a greedy `*`, `+` or `?`, and groups of alternatives, `(a|b)`, without a
//! quantifier. It matches case-insensitively as the `regex` crate does (Unicode simple case
//! folding: `k` also matches the Kelvin sign and `s` the long s), anchored at the start, with
//! the same leftmost-first preference, by backtracking over the alternatives and repetitions in
//! the order the regex engines prefer them. Anything else (flags, `$`, Unicode, letter classes,
//! quantified groups, more than one unbounded repetition) is left to the regex engine. With one
//! unbounded repetition (`*`, `+`) the backtracking tries each of its lengths once against a
//! bounded rest, so a match costs time linear in the name, as the regex engine's does; two could
//! cost the square of a hostile file's name length (`a*a*b` against a long run of `a`s).

/// The characters one position of a pattern accepts.
#[derive(Debug, Clone, PartialEq)]
enum Class {
    /// `.`: any character but `\n`.
    Any,
    /// These characters and inclusive ranges (letters already in every case).
    Set(Vec<(char, char)>),
}

impl Class {
    fn accepts(&self, c: char) -> bool {
        match self {
            Class::Any => c != '\n',
            Class::Set(ranges) => ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi),
        }
    }
}

/// How often an item repeats: at least `min`, at most `max` times, as many as possible first.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Repeat {
    min: usize,
    max: usize,
}

/// One part of a sequence.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    /// A character class, repeated.
    Item(Class, Repeat),
    /// Alternatives, in order of preference (each not empty).
    Group(Vec<Vec<Node>>),
}

/// A plain prefix pattern.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Plain {
    /// The top-level alternatives, in order of preference.
    alternatives: Vec<Vec<Node>>,
    /// ASCII characters one of which any text the pattern matches in holds, when that is worth
    /// checking first (a pattern such as `.*[:|]` would otherwise run through every name).
    needs: Option<[bool; 128]>,
}

/// [`Plain::needs`] for these alternatives: `None` when each starts with a character it needs
/// (a search fails at once) or some has no ASCII character class it needs.
fn needs(alternatives: &[Vec<Node>]) -> Option<[bool; 128]> {
    fn required(n: &Node) -> Option<&[(char, char)]> {
        match n {
            Node::Item(Class::Set(ranges), r) if r.min >= 1 => Some(ranges),
            _ => None,
        }
    }
    if alternatives
        .iter()
        .all(|alt| alt.first().and_then(required).is_some())
    {
        return None;
    }
    let mut set = [false; 128];
    for alt in alternatives {
        let ranges = alt
            .iter()
            .filter_map(required)
            .find(|ranges| ranges.iter().all(|&(_, hi)| hi.is_ascii()))?;
        for &(lo, hi) in ranges {
            for c in lo..=hi {
                set[c as usize] = true;
            }
        }
    }
    Some(set)
}

/// Metacharacters that may be escaped with `\`.
const META: &[u8] = b".\\|()[]{}*+?^$-";
/// ASCII characters that stand for themselves outside brackets (besides letters and digits).
const LITERAL: &[u8] = b"_ :-,=/!@%'\"<>;";
/// Non-letter ASCII characters that stand for themselves inside brackets (`-` only first or
/// last, `^` never, so that no class is negated or spans a range by accident).
const IN_CLASS: &[u8] = b"_ :|.,=/!@%'\"<>;*+?(){}$";
/// Deepest group nesting, and most unbounded repetitions, a plain pattern may have (one: see
/// the module's note on time).
const MAX_DEPTH: usize = 4;
const MAX_UNBOUNDED: usize = 1;

/// A letter in every case the regex crate's case-insensitive matching accepts.
fn folded(c: u8) -> Vec<(char, char)> {
    if !c.is_ascii_alphabetic() {
        return vec![(c as char, c as char)];
    }
    let (lower, upper) = (
        c.to_ascii_lowercase() as char,
        c.to_ascii_uppercase() as char,
    );
    let mut set = vec![(upper, upper), (lower, lower)];
    match lower {
        'k' => set.push(('\u{212A}', '\u{212A}')),
        's' => set.push(('\u{017F}', '\u{017F}')),
        _ => {}
    }
    set
}

struct Parser<'p> {
    bytes: &'p [u8],
    at: usize,
    unbounded: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// Alternatives up to the end or a `)`; none may be empty.
    fn alternatives(&mut self, depth: usize) -> Option<Vec<Vec<Node>>> {
        let mut alternatives = vec![self.sequence(depth)?];
        while self.peek() == Some(b'|') {
            self.at += 1;
            alternatives.push(self.sequence(depth)?);
        }
        Some(alternatives)
    }

    /// Items up to the end, a `|` or a `)`; at least one.
    fn sequence(&mut self, depth: usize) -> Option<Vec<Node>> {
        let mut nodes = Vec::new();
        while let Some(b) = self.peek() {
            let node = match b {
                b'|' | b')' => break,
                b'(' => {
                    if depth >= MAX_DEPTH || self.bytes.get(self.at + 1) == Some(&b'?') {
                        return None;
                    }
                    self.at += 1;
                    let inner = self.alternatives(depth + 1)?;
                    if self.peek() != Some(b')') {
                        return None;
                    }
                    self.at += 1;
                    if matches!(self.peek(), Some(b'*' | b'+' | b'?' | b'{')) {
                        return None;
                    }
                    Node::Group(inner)
                }
                _ => {
                    let class = self.class()?;
                    let repeat = self.repeat()?;
                    Node::Item(class, repeat)
                }
            };
            nodes.push(node);
        }
        (!nodes.is_empty()).then_some(nodes)
    }

    /// One character class: a literal, `.`, an escape or a bracket class.
    fn class(&mut self) -> Option<Class> {
        let b = self.peek()?;
        self.at += 1;
        match b {
            b'.' => Some(Class::Any),
            b'\\' => {
                let e = self.peek().filter(|e| META.contains(e))?;
                self.at += 1;
                Some(Class::Set(vec![(e as char, e as char)]))
            }
            b'[' => self.bracket(),
            _ if b.is_ascii_alphanumeric() || LITERAL.contains(&b) => Some(Class::Set(folded(b))),
            _ => None,
        }
    }

    /// The members of a bracket class after its `[`, through its `]`: non-letters, escaped
    /// metacharacters, ranges of non-letters.
    fn bracket(&mut self) -> Option<Class> {
        let mut set = Vec::new();
        let mut first = true;
        loop {
            let b = self.peek()?;
            self.at += 1;
            let c = match b {
                b']' if !first => break,
                b'\\' => {
                    let e = self.peek().filter(|e| META.contains(e))?;
                    self.at += 1;
                    e
                }
                b'-' if (first || self.peek() == Some(b']')) && self.peek() != Some(b'-') => b'-',
                _ if b.is_ascii_digit() || IN_CLASS.contains(&b) => b,
                _ => return None,
            };
            first = false;
            if self.peek() == Some(b'-') && self.bytes.get(self.at + 1) != Some(&b']') {
                let hi = *self.bytes.get(self.at + 1)?;
                if !(hi.is_ascii_digit() || IN_CLASS.contains(&hi)) || hi < c {
                    return None;
                }
                // No letters inside a range (they would need case folding).
                if (c..=hi).any(|x| x.is_ascii_alphabetic()) {
                    return None;
                }
                self.at += 2;
                set.push((c as char, hi as char));
            } else {
                set.push((c as char, c as char));
            }
        }
        Some(Class::Set(set))
    }

    /// An optional greedy quantifier after a class.
    fn repeat(&mut self) -> Option<Repeat> {
        let (min, max) = match self.peek() {
            Some(b'*') => (0, usize::MAX),
            Some(b'+') => (1, usize::MAX),
            Some(b'?') => (0, 1),
            Some(b'{') => return None,
            _ => return Some(Repeat { min: 1, max: 1 }),
        };
        self.at += 1;
        if matches!(self.peek(), Some(b'*' | b'+' | b'?' | b'{')) {
            return None;
        }
        if max == usize::MAX {
            self.unbounded += 1;
            if self.unbounded > MAX_UNBOUNDED {
                return None;
            }
        }
        Some(Repeat { min, max })
    }
}

/// What is left to match after the current sequence: the rest of each enclosing sequence.
struct Then<'a> {
    nodes: &'a [Node],
    next: Option<&'a Then<'a>>,
}

/// The end of the first match, in order of preference, of `nodes` and then `then` from `at`.
fn run(nodes: &[Node], then: Option<&Then>, text: &str, at: usize) -> Option<usize> {
    let Some((first, rest)) = nodes.split_first() else {
        return match then {
            Some(t) => run(t.nodes, t.next, text, at),
            None => Some(at),
        };
    };
    match first {
        Node::Group(alternatives) => {
            let after = Then {
                nodes: rest,
                next: then,
            };
            alternatives
                .iter()
                .find_map(|alt| run(alt, Some(&after), text, at))
        }
        Node::Item(class, repeat) => {
            // As many as possible, then one fewer at a time down to the least.
            let (mut end, mut count) = (at, 0);
            if *class == Class::Any && repeat.max == usize::MAX {
                // Up to the first line break.
                end = text[at..].find('\n').map_or(text.len(), |k| at + k);
                count = text[at..end].chars().count();
            } else {
                for c in text[at..].chars() {
                    if count == repeat.max || !class.accepts(c) {
                        break;
                    }
                    end += c.len_utf8();
                    count += 1;
                }
            }
            // A next item that needs a character the text does not have there fails at once.
            let next = match rest.first() {
                Some(Node::Item(next, r)) if r.min >= 1 => Some(next),
                _ => None,
            };
            loop {
                if count < repeat.min {
                    return None;
                }
                let hopeless =
                    next.is_some_and(|n| text[end..].chars().next().is_none_or(|c| !n.accepts(c)));
                if !hopeless {
                    if let Some(found) = run(rest, then, text, end) {
                        return Some(found);
                    }
                }
                if count == 0 {
                    return None;
                }
                let back = text[..end].chars().next_back()?;
                end -= back.len_utf8();
                count -= 1;
            }
        }
    }
}

impl Plain {
    /// The pattern as a plain pattern, or `None` when it needs the regex engine.
    pub(super) fn parse(pattern: &str) -> Option<Plain> {
        if !pattern.is_ascii() {
            return None;
        }
        let bytes = pattern.as_bytes();
        let start = usize::from(bytes.first() == Some(&b'^'));
        let mut parser = Parser {
            bytes,
            at: start,
            unbounded: 0,
        };
        let alternatives = parser.alternatives(0)?;
        (parser.at == bytes.len()).then(|| Plain {
            needs: needs(&alternatives),
            alternatives,
        })
    }

    /// Where the match starting at the start of `text` ends, if there is one.
    pub(super) fn match_end(&self, text: &str) -> Option<usize> {
        if let Some(needs) = &self.needs {
            if !text.bytes().any(|b| b < 128 && needs[usize::from(b)]) {
                return None;
            }
        }
        self.alternatives
            .iter()
            .find_map(|alt| run(alt, None, text, 0))
    }
}
