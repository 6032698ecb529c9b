//! Arrays of JSON objects kept as their text (issue 19): for a document held as text
//! (`lazy.rs`), each item's members are kept as their text and the numbers a write sets (buffer
//! views' `buffer` and `byteOffset` when packed, accessors' `bufferView` when views are dropped)
//! are written in their place, as the items parsed into `Value`s and changed would be written;
//! none is parsed into a `Value`. An object is split into its members only when a number of it
//! is set: the many a write drops (a file's animation data, replaced) are never split. Items a
//! patch adds are their members, at the end. An item whose text holds an extension or a
//! sparse part (which may refer to buffer views) or an escape, and every item of an array with
//! a key given twice, is held parsed: the walks of `layout.rs` read and change it as a `Value`.

use super::json_text;
use super::layout::ViewRef;
use super::lazy::{contains, parse_checked, LazyJson, Transcode};
use serde_json::Value;

/// The items of a top-level array of a document held as text, as the text of each item's
/// members (or parsed: see the module's text), then the items a patch added. Written as the
/// `Value`s changed the same way would be.
pub(crate) struct RawItems<'t>(Vec<RawItem<'t>>);

/// One object's members in order: their keys and values (text, or a number set since).
pub(crate) type Members<'t> = Vec<(&'t str, Slot<'t>)>;

enum RawItem<'t> {
    /// An object as read, not split into its members yet (no number of it set).
    Whole(&'t [u8]),
    /// An object's members in order: their keys and values (text, or a number set since).
    Object(Members<'t>),
    /// Anything else read (no number of it is ever set).
    Other(&'t [u8]),
    /// An item read that is not held as text (see the module's text).
    Parsed(Value),
}

pub(crate) enum Slot<'t> {
    Text(&'t [u8]),
    Num(u64),
    /// A value a patch gave a member of an item it added.
    Value(Value),
}

impl<'t> RawItems<'t> {
    /// The items that are objects, to read and set numbers in (the others have none). An
    /// object read is split into its members when a number of it is first set.
    pub(crate) fn objects_mut(&mut self) -> impl Iterator<Item = &mut dyn ViewRef> + use<'_, 't> {
        self.0.iter_mut().filter_map(|item| match item {
            RawItem::Other(_) => None,
            item => Some(item as &mut dyn ViewRef),
        })
    }

    /// [`RawItems::objects_mut`], each object read split into its members first (for a walk
    /// that sets numbers in most of them: packing).
    pub(crate) fn split_objects_mut(
        &mut self,
    ) -> impl Iterator<Item = &mut dyn ViewRef> + use<'_, 't> {
        self.0.iter_mut().filter_map(RawItem::split)
    }

    /// No items (for an array the document does not have).
    pub(crate) fn empty() -> RawItems<'t> {
        RawItems(Vec::new())
    }

    /// How many items there are.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Adds objects a patch made as their members, at the end.
    pub(crate) fn extend_objects(&mut self, added: Vec<Members<'t>>) {
        self.0.extend(added.into_iter().map(RawItem::Object));
    }

    /// Removes the items whose `drop` is true (none past its end).
    pub(crate) fn remove(&mut self, drop: &[bool]) {
        let mut i = 0;
        self.0.retain(|_| {
            i += 1;
            !drop.get(i - 1).copied().unwrap_or(false)
        });
    }

    /// The items held parsed (see the module's text), to walk as `Value`s.
    pub(crate) fn parsed_mut(&mut self) -> impl Iterator<Item = &mut Value> + use<'_, 't> {
        self.0.iter_mut().filter_map(|item| match item {
            RawItem::Parsed(value) => Some(value),
            _ => None,
        })
    }

    /// Member `key` of `json`, when it is an array: each item held as its text, or parsed when
    /// it may hold an extension, a sparse part, an escape or a key given twice.
    pub(crate) fn of(json: &'t LazyJson, key: &str) -> Option<RawItems<'t>> {
        let text = json.text_of(key)?;
        let plain = json.is_plain(key);
        let as_text = |item: &[u8]| {
            !item.contains(&b'\\') && !contains(item, b"extensions") && !contains(item, b"sparse")
        };
        // Most arrays hold none of them: their items are not looked at one by one.
        let all_as_text = as_text(text);
        let items = json_text::items(text)?
            .into_iter()
            .map(|item| match item.first() {
                _ if !plain => RawItem::Parsed(parse_checked(item)),
                Some(b'{') if all_as_text || as_text(item) => RawItem::Whole(item),
                Some(b'{') => RawItem::Parsed(parse_checked(item)),
                _ => RawItem::Other(item),
            });
        Some(RawItems(items.collect()))
    }
}

/// Items held parsed, to compare with the same items held as text.
#[cfg(test)]
impl From<Vec<Value>> for RawItems<'_> {
    fn from(items: Vec<Value>) -> Self {
        RawItems(items.into_iter().map(RawItem::Parsed).collect())
    }
}

impl<'t> RawItem<'t> {
    /// The item to read and set numbers in, an object read split into its members first (or,
    /// should its text not split, which checked text without escapes always does, parsed);
    /// none when it is no object.
    fn split(&mut self) -> Option<&mut dyn ViewRef> {
        if let RawItem::Whole(text) = *self {
            let members = json_text::members(text);
            *self = match members {
                Some(members) => RawItem::Object(
                    members
                        .into_iter()
                        .map(|(k, v)| (k, Slot::Text(v)))
                        .collect(),
                ),
                None => RawItem::Parsed(parse_checked(text)),
            };
        }
        match self {
            RawItem::Object(members) => Some(members),
            RawItem::Parsed(value) => Some(value),
            RawItem::Whole(_) | RawItem::Other(_) => None,
        }
    }
}

/// An item read or added: numbers are read from an object read without splitting it (its text
/// has no key given twice: the first member `key` is the one), and setting one splits it.
impl ViewRef for RawItem<'_> {
    fn num(&self, key: &str) -> Option<u64> {
        match self {
            RawItem::Whole(text) => json_text::member(text, key).and_then(json_text::as_u64),
            RawItem::Object(members) => members.num(key),
            RawItem::Parsed(value) => value.num(key),
            RawItem::Other(_) => None,
        }
    }
    fn set_num(&mut self, key: &str, n: u64) {
        if let Some(item) = self.split() {
            item.set_num(key, n);
        }
    }
    fn set_buffer(&mut self, b: u64) {
        if let Some(item) = self.split() {
            item.set_buffer(b);
        }
    }
    fn set_offset(&mut self, at: usize) {
        if let Some(item) = self.split() {
            item.set_offset(at);
        }
    }
}

impl ViewRef for Members<'_> {
    fn num(&self, key: &str) -> Option<u64> {
        match &self.iter().find(|(k, _)| *k == key)?.1 {
            Slot::Num(n) => Some(*n),
            Slot::Text(text) => json_text::as_u64(text),
            Slot::Value(v) => v.as_u64(),
        }
    }
    fn set_num(&mut self, key: &str, n: u64) {
        if let Some((_, slot)) = self.iter_mut().find(|(k, _)| *k == key) {
            *slot = Slot::Num(n);
        }
    }
    fn set_buffer(&mut self, b: u64) {
        match self.iter_mut().find(|(k, _)| *k == "buffer") {
            Some((_, slot)) => *slot = Slot::Num(b),
            None => self.push(("buffer", Slot::Num(b))),
        }
    }
    fn set_offset(&mut self, at: usize) {
        let i = self.iter().position(|(k, _)| *k == "byteOffset");
        match (i, at) {
            // As `serde_json::Map::remove` with `preserve_order`: the last member takes its place.
            (Some(i), 0) => {
                self.swap_remove(i);
            }
            (None, 0) => {}
            (Some(i), at) => self[i].1 = Slot::Num(at as u64),
            (None, at) => self.push(("byteOffset", Slot::Num(at as u64))),
        }
    }
}

impl serde::Serialize for RawItems<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for item in &self.0 {
            match item {
                RawItem::Whole(text) | RawItem::Other(text) => {
                    seq.serialize_element(&Transcode(text))?
                }
                RawItem::Object(entries) => seq.serialize_element(&RawObject(entries))?,
                RawItem::Parsed(value) => seq.serialize_element(value)?,
            }
        }
        seq.end()
    }
}

struct RawObject<'a, 't>(&'a [(&'t str, Slot<'t>)]);

impl serde::Serialize for RawObject<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, slot) in self.0 {
            match slot {
                Slot::Text(text) => map.serialize_entry(k, &Transcode(text))?,
                Slot::Num(n) => map.serialize_entry(k, n)?,
                Slot::Value(v) => map.serialize_entry(k, v)?,
            }
        }
        map.end()
    }
}
