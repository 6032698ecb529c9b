//! The BVH grammar: text → joints, channels and frame values, in file units, nothing else.
//!
//! Iterative (no recursion, so deep nesting cannot overflow the stack), and nothing is allocated
//! from a count in the header: frames are stored as their lines are read.

use super::error::{syntax, BvhError};
use super::MAX_BONES;

/// A channel of a joint: a position or rotation about axis 0 = X, 1 = Y, 2 = Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChannelKind {
    Position(usize),
    Rotation(usize),
}

/// A `ROOT`, `JOINT` or `End Site` as the file declares it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RawJoint {
    /// The name (`None` for an end site).
    pub name: Option<String>,
    /// Index of the parent in [`RawBvh::joints`].
    pub parent: Option<usize>,
    pub offset: [f32; 3],
    pub channels: Vec<ChannelKind>,
    /// Index of the first channel in a frame's values.
    pub first: usize,
}

/// A parsed file, in file units and degrees.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RawBvh {
    /// Joints and end sites in file order (parents before children).
    pub joints: Vec<RawJoint>,
    /// Channels per frame.
    pub channels: usize,
    /// Seconds per frame.
    pub frame_time: f64,
    /// `frames × channels` values, frame after frame.
    pub values: Vec<f32>,
}

impl RawBvh {
    /// Number of frames.
    pub fn frames(&self) -> usize {
        self.values.len().checked_div(self.channels).unwrap_or(0)
    }
}

#[derive(Clone, Copy)]
struct Tok<'a> {
    text: &'a str,
    line: usize,
}

/// Whitespace-separated tokens with their 1-based line numbers and one token of look-ahead.
struct Tokens<'a> {
    lines: std::iter::Enumerate<std::str::Lines<'a>>,
    words: std::str::SplitWhitespace<'a>,
    line: usize,
    peeked: Option<Tok<'a>>,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Self {
        Tokens {
            lines: text.lines().enumerate(),
            words: "".split_whitespace(),
            line: 0,
            peeked: None,
        }
    }

    fn next(&mut self) -> Option<Tok<'a>> {
        if let Some(t) = self.peeked.take() {
            return Some(t);
        }
        loop {
            if let Some(text) = self.words.next() {
                return Some(Tok {
                    text,
                    line: self.line,
                });
            }
            let (i, line) = self.lines.next()?;
            self.line = i + 1;
            self.words = line.split_whitespace();
        }
    }

    fn peek(&mut self) -> Option<Tok<'a>> {
        if self.peeked.is_none() {
            self.peeked = self.next();
        }
        self.peeked
    }

    /// The next token, or an error naming `what` was expected when the text ends.
    fn expect(&mut self, what: &str) -> Result<Tok<'a>, BvhError> {
        self.next().ok_or_else(|| {
            syntax(
                self.line + 1,
                format!("the file ends where {what} was expected"),
            )
        })
    }

    /// The next token, which must be `word` (compared without case).
    fn keyword(&mut self, word: &str) -> Result<Tok<'a>, BvhError> {
        let t = self.expect(&format!("`{word}`"))?;
        if t.text.eq_ignore_ascii_case(word) {
            Ok(t)
        } else {
            Err(syntax(
                t.line,
                format!("expected `{word}`, found `{}`", short(t.text)),
            ))
        }
    }

    fn number(&mut self, what: &str) -> Result<f32, BvhError> {
        let t = self.expect(what)?;
        parse_number(t.text).ok_or_else(|| {
            syntax(
                t.line,
                format!(
                    "expected a finite number for {what}, found `{}`",
                    short(t.text)
                ),
            )
        })
    }

    fn offset(&mut self) -> Result<[f32; 3], BvhError> {
        Ok([
            self.number("OFFSET")?,
            self.number("OFFSET")?,
            self.number("OFFSET")?,
        ])
    }
}

/// A finite number, or `None`.
fn parse_number(text: &str) -> Option<f32> {
    text.parse::<f32>().ok().filter(|v| v.is_finite())
}

/// `text` cut to 40 characters for an error message.
fn short(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Parses a whole BVH text.
pub(crate) fn parse(text: &str) -> Result<RawBvh, BvhError> {
    let mut tokens = Tokens::new(text);
    tokens.keyword("HIERARCHY")?;
    let mut joints = hierarchy(&mut tokens)?;
    let mut channels = 0;
    for j in &mut joints {
        j.first = channels;
        channels += j.channels.len();
    }
    if channels == 0 {
        return Err(syntax(tokens.line, "the hierarchy declares no channels"));
    }
    let (declared, frame_time, last_header_line) = motion_header(&mut tokens)?;
    let values = frames(text, last_header_line, declared, channels)?;
    Ok(RawBvh {
        joints,
        channels,
        frame_time,
        values,
    })
}

/// `ROOT` blocks up to and including the `MOTION` keyword.
fn hierarchy(tokens: &mut Tokens) -> Result<Vec<RawJoint>, BvhError> {
    let mut joints: Vec<RawJoint> = Vec::new();
    // Open joints, innermost last, with whether their OFFSET was seen.
    let mut open: Vec<(usize, bool)> = Vec::new();
    loop {
        let t = tokens.expect(if open.is_empty() {
            "`ROOT` or `MOTION`"
        } else {
            "`}`"
        })?;
        let word = t.text.to_ascii_uppercase();
        let top = open.last().copied();
        match (word.as_str(), top) {
            ("MOTION", None) if !joints.is_empty() => return Ok(joints),
            ("ROOT", None) | ("JOINT", Some(_)) => {
                let name = joint_name(tokens, t)?;
                tokens.keyword("{")?;
                joints.push(RawJoint {
                    name: Some(name),
                    parent: top.map(|o| o.0),
                    offset: [0.0; 3],
                    channels: Vec::new(),
                    first: 0,
                });
                open.push((joints.len() - 1, false));
            }
            ("OFFSET", Some((j, false))) => {
                joints[j].offset = tokens.offset()?;
                open.pop();
                open.push((j, true));
            }
            ("CHANNELS", Some((j, _))) if joints[j].channels.is_empty() => {
                joints[j].channels = channel_list(tokens, t.line)?;
            }
            ("END", Some((j, _))) => {
                tokens.keyword("Site")?;
                tokens.keyword("{")?;
                tokens.keyword("OFFSET")?;
                let offset = tokens.offset()?;
                tokens.keyword("}")?;
                joints.push(RawJoint {
                    name: None,
                    parent: Some(j),
                    offset,
                    channels: Vec::new(),
                    first: 0,
                });
            }
            ("}", Some((_, seen))) => {
                if !seen {
                    return Err(syntax(t.line, "joint block closes without an OFFSET"));
                }
                open.pop();
            }
            _ => {
                let expected = if open.is_empty() {
                    "`ROOT` or `MOTION`"
                } else {
                    "`OFFSET`, `CHANNELS`, `JOINT`, `End Site` or `}`"
                };
                return Err(syntax(
                    t.line,
                    format!("expected {expected}, found `{}`", short(t.text)),
                ));
            }
        }
        if joints.len() > MAX_BONES {
            return Err(syntax(t.line, format!("more than {MAX_BONES} joints")));
        }
    }
}

/// The name after `ROOT` or `JOINT`: the rest of its line up to a `{` (names may hold spaces).
fn joint_name(tokens: &mut Tokens, keyword: Tok) -> Result<String, BvhError> {
    let mut words = Vec::new();
    while let Some(t) = tokens.peek() {
        if t.line != keyword.line || t.text == "{" {
            break;
        }
        words.push(t.text);
        tokens.next();
    }
    if words.is_empty() {
        return Err(syntax(
            keyword.line,
            format!("`{}` without a name", keyword.text),
        ));
    }
    Ok(words.join(" "))
}

/// `n name…` after `CHANNELS`.
fn channel_list(tokens: &mut Tokens, line: usize) -> Result<Vec<ChannelKind>, BvhError> {
    let t = tokens.expect("a channel count")?;
    let n: usize = t.text.parse().ok().filter(|n| *n <= 6).ok_or_else(|| {
        syntax(
            t.line,
            format!("channel count `{}` is not 0 to 6", short(t.text)),
        )
    })?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let t = tokens.expect(&format!("{n} channel names"))?;
        let kind = channel_kind(t.text).ok_or_else(|| {
            syntax(
                t.line,
                format!(
                    "expected {n} channel names after CHANNELS on line {line}, found `{}`",
                    short(t.text)
                ),
            )
        })?;
        if out.contains(&kind) {
            return Err(syntax(t.line, format!("channel `{}` listed twice", t.text)));
        }
        out.push(kind);
    }
    Ok(out)
}

fn channel_kind(name: &str) -> Option<ChannelKind> {
    let lower = name.to_ascii_lowercase();
    let (axis, kind) = lower.split_at_checked(1)?;
    let axis = ["x", "y", "z"].iter().position(|a| *a == axis)?;
    match kind {
        "position" => Some(ChannelKind::Position(axis)),
        "rotation" => Some(ChannelKind::Rotation(axis)),
        _ => None,
    }
}

/// `word:` (any case), or `word` and `:` apart.
fn label(tokens: &mut Tokens, word: &str) -> Result<(), BvhError> {
    let t = tokens.expect(&format!("`{word}:`"))?;
    if !t.text.eq_ignore_ascii_case(&format!("{word}:")) {
        if !t.text.eq_ignore_ascii_case(word) {
            return Err(syntax(
                t.line,
                format!("expected `{word}:`, found `{}`", short(t.text)),
            ));
        }
        tokens.keyword(":")?;
    }
    Ok(())
}

/// `Frames: n` and `Frame Time: t`: the declared count, the frame time and the line it ends on.
fn motion_header(tokens: &mut Tokens) -> Result<(u64, f64, usize), BvhError> {
    label(tokens, "Frames")?;
    let t = tokens.expect("a frame count")?;
    let declared: u64 = t.text.parse().map_err(|_| {
        syntax(
            t.line,
            format!("frame count `{}` is not a whole number", short(t.text)),
        )
    })?;
    tokens.keyword("Frame")?;
    label(tokens, "Time")?;
    let t = tokens.expect("a frame time")?;
    let frame_time: f64 = t
        .text
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v > 0.0)
        .ok_or_else(|| {
            syntax(
                t.line,
                format!("frame time `{}` is not a positive number", short(t.text)),
            )
        })?;
    if let Some(extra) = tokens.peek().filter(|x| x.line == t.line) {
        return Err(syntax(
            extra.line,
            format!("unexpected `{}` after the frame time", short(extra.text)),
        ));
    }
    Ok((declared, frame_time, t.line))
}

/// The frame lines after line `header_end`: one frame per non-blank line, `channels` numbers
/// each, exactly `declared` of them.
fn frames(
    text: &str,
    header_end: usize,
    declared: u64,
    channels: usize,
) -> Result<Vec<f32>, BvhError> {
    let mut values = Vec::new();
    let mut found: usize = 0;
    for (i, line) in text.lines().enumerate().skip(header_end) {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        if found as u64 >= declared {
            return Err(syntax(
                line_no,
                format!("more frame lines than the {declared} declared"),
            ));
        }
        let start = values.len();
        for word in line.split_whitespace() {
            if values.len() - start == channels {
                break;
            }
            let v = parse_number(word).ok_or_else(|| {
                syntax(
                    line_no,
                    format!("frame {found}: `{}` is not a finite number", short(word)),
                )
            })?;
            values.push(v);
        }
        let count = line.split_whitespace().count();
        if count != channels {
            return Err(BvhError::FrameLength {
                line: line_no,
                frame: found,
                found: count,
                expected: channels,
            });
        }
        found += 1;
    }
    if (found as u64) < declared {
        return Err(BvhError::MissingFrames { found, declared });
    }
    Ok(values)
}
