//! The animations of a document as read, which a patch takes one by one (issue 19): kept as
//! read (parsed then), rebuilt (their channels and samplers parsed one by one, only those kept),
//! or removed (never parsed). Held parsed, or as their text when the document is (`draft.rs`;
//! then the text has no escapes and is split by `json_text.rs`, once: [`AnimText`]).

use super::json_text;
use super::lazy::parse_checked as parse;
use crate::model::Channel;
use serde_json::Value;

/// The animations as read, each taken at most once.
pub(crate) enum ReadAnimations<'t> {
    /// Parsed (`null` once taken).
    Values(Vec<Value>),
    /// Their text, for a document whose `animations` has no key given twice and no escapes.
    Text(Vec<Option<AnimText<'t>>>),
}

/// An animation's text split once: its members (none when it is no object) and the items of
/// its `channels` and `samplers` (none when they are no arrays), which marking what it uses and
/// rebuilding it both read.
pub(crate) struct AnimText<'t> {
    text: &'t [u8],
    members: Option<Vec<(&'t str, &'t [u8])>>,
    channels: Vec<&'t [u8]>,
    samplers: Vec<&'t [u8]>,
}

impl<'t> AnimText<'t> {
    /// The animations of the array `text` (with no key given twice), each split; none when
    /// `text` is no array.
    pub(crate) fn all_of(text: &'t [u8]) -> Option<Vec<AnimText<'t>>> {
        Some(
            json_text::items(text)?
                .into_iter()
                .map(AnimText::of)
                .collect(),
        )
    }

    /// The animation whose text is `text`, split.
    fn of(text: &'t [u8]) -> AnimText<'t> {
        let members = json_text::members(text);
        let items = |key| {
            let (_, part) = members.iter().flatten().find(|(k, _)| *k == key)?;
            json_text::items(part)
        };
        let (channels, samplers) = (items("channels"), items("samplers"));
        AnimText {
            channels: channels.unwrap_or_default(),
            samplers: samplers.unwrap_or_default(),
            text,
            members,
        }
    }
}

/// The channels or samplers of an animation being rebuilt, as read.
pub(crate) enum OldItems<'t> {
    Values(Vec<Value>),
    Text(Vec<&'t [u8]>),
}

impl<'t> ReadAnimations<'t> {
    /// Animation `a` as read, parsed; `null` when there is none (or it was taken).
    pub(crate) fn take(&mut self, a: usize) -> Value {
        match self {
            ReadAnimations::Values(v) => v.get_mut(a).map(std::mem::take).unwrap_or_default(),
            ReadAnimations::Text(t) => t
                .get_mut(a)
                .and_then(Option::take)
                .map_or(Value::Null, |anim| parse(anim.text)),
        }
    }

    /// Animation `a` as read, to be rebuilt: its members parsed but `channels` and `samplers`
    /// (`null` in their places, when it has them), and those as read (none when they are no
    /// arrays).
    pub(crate) fn take_to_rebuild(&mut self, a: usize) -> (Value, OldItems<'t>, OldItems<'t>) {
        let text = match self {
            ReadAnimations::Text(t) => t.get_mut(a).and_then(Option::take),
            ReadAnimations::Values(_) => return parts_of(self.take(a)),
        };
        let Some(anim) = text else {
            return parts_of(Value::Null);
        };
        let Some(members) = anim.members else {
            return parts_of(parse(anim.text));
        };
        let mut map = serde_json::Map::with_capacity(members.len());
        for (key, text) in members {
            let value = match key {
                "channels" | "samplers" => Value::Null,
                _ => parse(text),
            };
            map.insert(key.to_string(), value);
        }
        let anim_value = Value::Object(map);
        let (channels, samplers) = (anim.channels, anim.samplers);
        (
            anim_value,
            OldItems::Text(channels),
            OldItems::Text(samplers),
        )
    }
}

/// Marks in `used` the accessors the samplers of the animations `anims` refer to (their
/// `input` and `output`).
pub(crate) fn mark_accessors(anims: &[AnimText], used: &mut [bool]) {
    for sampler in anims.iter().flat_map(|anim| &anim.samplers) {
        for i in json_text::fields(sampler, ["input", "output"]) {
            if let Some(slot) = i
                .and_then(json_text::as_u64)
                .and_then(|i| used.get_mut(i as usize))
            {
                *slot = true;
            }
        }
    }
}

/// The parsed animation `anim` with its `channels` and `samplers` taken out (`null` in their
/// places), and those (none when they are no arrays).
fn parts_of<'t>(mut anim: Value) -> (Value, OldItems<'t>, OldItems<'t>) {
    let mut part = |key| match anim.get_mut(key).map(Value::take) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    };
    let (channels, samplers) = (part("channels"), part("samplers"));
    (anim, OldItems::Values(channels), OldItems::Values(samplers))
}

impl OldItems<'_> {
    /// How many there are.
    pub(crate) fn len(&self) -> usize {
        match self {
            OldItems::Values(v) => v.len(),
            OldItems::Text(t) => t.len(),
        }
    }

    /// Item `i`, parsed (a copy); `None` when there is none.
    pub(crate) fn get(&self, i: usize) -> Option<Value> {
        match self {
            OldItems::Values(v) => v.get(i).cloned(),
            OldItems::Text(t) => t.get(i).map(|text| parse(text)),
        }
    }

    /// The node and channel that channel `i` targets, when it names both (`target.node` a
    /// `u64`, `target.path` a channel's path).
    pub(crate) fn target(&self, i: usize) -> Option<(u64, Channel)> {
        let (node, path) = match self {
            OldItems::Values(v) => {
                let target = v.get(i)?.get("target")?;
                (target.get("node")?.as_u64()?, target.get("path")?.as_str()?)
            }
            OldItems::Text(t) => {
                let target = json_text::member(t.get(i)?, "target")?;
                let [node, path] = json_text::fields(target, ["node", "path"]);
                let path = path?;
                // A string without escapes: its text between the quotes.
                let path = (path.first() == Some(&b'"')).then(|| &path[1..path.len() - 1])?;
                (json_text::as_u64(node?)?, std::str::from_utf8(path).ok()?)
            }
        };
        Some((node, Channel::from_gltf_path(path)?))
    }
}
