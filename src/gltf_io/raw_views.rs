//! A document's buffer views packed from their text (issue 19): for a document held as text
//! (`lazy.rs`), each view's members are kept as their text and the numbers packing sets
//! (`layout::pack_raw`) are written in their place, as the views parsed into `Value`s and
//! changed by `layout::pack` would be written; none is parsed into a `Value`.

use super::layout::ViewRef;
use super::lazy::{LazyJson, Transcode};
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;

/// A document's `bufferViews` as the text of each view's members, packed without parsing them
/// into `Value`s: for a document held as text whose views have no `EXT_meshopt_compression`
/// and no key given twice ([`RawViews::of`]). Written as the `Value`s [`pack`] changes would be.
pub(crate) struct RawViews<'t>(Vec<RawView<'t>>);

/// One view's members in order: their keys and values (text, or a number packing set).
pub(crate) type Members<'t> = Vec<(Cow<'t, str>, Slot<'t>)>;

enum RawView<'t> {
    /// An object's members in order: their keys and values (text, or a number packing set).
    Object(Vec<(Cow<'t, str>, Slot<'t>)>),
    /// Anything else (packing leaves it as it is).
    Other(&'t RawValue),
}

pub(crate) enum Slot<'t> {
    Text(&'t RawValue),
    Num(u64),
}

impl<'t> RawViews<'t> {
    /// The views that are objects (packing leaves the others as they are).
    pub(crate) fn objects_mut(&mut self) -> impl Iterator<Item = &mut Members<'t>> {
        self.0.iter_mut().filter_map(|view| match view {
            RawView::Object(members) => Some(members),
            RawView::Other(_) => None,
        })
    }

    /// The buffer views of `json`, when it is held as text, has them as an array, and they can
    /// be packed from their text.
    pub(crate) fn of(json: &'t LazyJson) -> Option<RawViews<'t>> {
        if !json.is_plain("bufferViews") {
            return None;
        }
        let text = json.text_of("bufferViews")?;
        if text.contains(&b'\\') || super::lazy::contains(text, b"EXT_meshopt_compression") {
            return None;
        }
        let items: Vec<&RawValue> = serde_json::from_slice(text).ok()?;
        let views = items.into_iter().map(|item| {
            if !item.get().starts_with('{') {
                return Some(RawView::Other(item));
            }
            let mut de = serde_json::Deserializer::from_str(item.get());
            serde::Deserializer::deserialize_map(&mut de, Entries)
                .ok()
                .map(RawView::Object)
        });
        views.collect::<Option<Vec<_>>>().map(RawViews)
    }
}

/// An object's members as key and value text.
struct Entries;

impl<'de> serde::de::Visitor<'de> for Entries {
    type Value = Vec<(Cow<'de, str>, Slot<'de>)>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key_seed(super::lazy::Key)? {
            entries.push((key, Slot::Text(map.next_value()?)));
        }
        Ok(entries)
    }
}

impl ViewRef for Vec<(Cow<'_, str>, Slot<'_>)> {
    fn num(&self, key: &str) -> Option<u64> {
        match &self.iter().find(|(k, _)| k == key)?.1 {
            Slot::Num(n) => Some(*n),
            Slot::Text(raw) => serde_json::from_str::<Value>(raw.get()).ok()?.as_u64(),
        }
    }
    fn set_buffer(&mut self, b: u64) {
        match self.iter_mut().find(|(k, _)| k == "buffer") {
            Some((_, slot)) => *slot = Slot::Num(b),
            None => self.push((Cow::Borrowed("buffer"), Slot::Num(b))),
        }
    }
    fn set_offset(&mut self, at: usize) {
        let i = self.iter().position(|(k, _)| k == "byteOffset");
        match (i, at) {
            // As `serde_json::Map::remove` with `preserve_order`: the last member takes its place.
            (Some(i), 0) => {
                self.swap_remove(i);
            }
            (None, 0) => {}
            (Some(i), at) => self[i].1 = Slot::Num(at as u64),
            (None, at) => self.push((Cow::Borrowed("byteOffset"), Slot::Num(at as u64))),
        }
    }
}

impl serde::Serialize for RawViews<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for view in &self.0 {
            match view {
                RawView::Other(raw) => seq.serialize_element(&Transcode(raw.get().as_bytes()))?,
                RawView::Object(entries) => seq.serialize_element(&RawObject(entries))?,
            }
        }
        seq.end()
    }
}

struct RawObject<'a, 't>(&'a [(Cow<'t, str>, Slot<'t>)]);

impl serde::Serialize for RawObject<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, slot) in self.0 {
            match slot {
                Slot::Text(raw) => map.serialize_entry(k, &Transcode(raw.get().as_bytes()))?,
                Slot::Num(n) => map.serialize_entry(k, n)?,
            }
        }
        map.end()
    }
}
