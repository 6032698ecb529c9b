//! A changed document being written, its accessors and buffer views held as their text (issue
//! 19): the patch, garbage collection and packing set the few numbers they change in them
//! (`raw_items.rs`) and append new ones, so the many accessors and views of a file with many
//! clips are never parsed into `Value`s. Its animations are held as their text too, each parsed
//! as far as the patch needs it (`read_animations.rs`); the other members are parsed to be
//! patched. What cannot be held as text is held parsed in the same places: an accessor or view
//! with an extension, a sparse part or an escape (`raw_items.rs`), animations with an extension,
//! an escape or a key given twice (in `json`). Every changed document is written so, a document
//! parsed whole being first written out as text (`super::Document::with_parts`).

use super::buffers::OutBuffers;
use super::layout::{self, Packed, RawItems, Usage};
use super::lazy::{self, LazyJson};
use super::patch::AddedItems;
use super::read_animations::{self, AnimText, ReadAnimations};
use super::rebuilt::{Animations, Rebuilt};
use serde_json::Value;

/// The document being patched: `json` holds every member but the accessors and buffer views,
/// which `accessors` and `views` hold (`json` has placeholders for them, as many `null` items,
/// so that the indices of the items a patch adds are right; they are never written).
pub(crate) struct Draft<'t> {
    pub json: Value,
    accessors: RawItems<'t>,
    views: RawItems<'t>,
    /// The length of the JSON text as read.
    read_len: usize,
    /// The animations as their text, split, when they are held so (`json` holds as many
    /// `null`s).
    animations: Option<Vec<AnimText<'t>>>,
    /// The channels and samplers of the animations the patch rebuilt (`json` holds `null`s in
    /// their places), in increasing animation index.
    rebuilt: Vec<Rebuilt>,
}

/// The members held as text.
const ACCESSORS: &str = "accessors";
const VIEWS: &str = "bufferViews";
const ANIMATIONS: &str = "animations";

/// The animations of `json` as their text, split, when they are an array with no key given
/// twice, no escapes and no extension (which may refer to buffer views).
fn animation_texts<'t>(json: &'t LazyJson) -> Option<Vec<AnimText<'t>>> {
    let text = json.text_of(ANIMATIONS)?;
    if !json.is_plain(ANIMATIONS) || text.contains(&b'\\') || lazy::contains(text, b"extensions") {
        return None;
    }
    AnimText::all_of(text)
}

/// The items of member `key`, none when it is absent; `None` when it is no array (which the
/// typed read refuses).
fn items<'t>(json: &'t LazyJson, key: &str) -> Option<RawItems<'t>> {
    match json.text_of(key) {
        Some(_) => RawItems::of(json, key),
        None => Some(RawItems::empty()),
    }
}

impl<'t> Draft<'t> {
    /// The document held as text `json`, to be patched; `None` when its accessors or buffer
    /// views are no array.
    pub(crate) fn of(json: &'t LazyJson) -> Option<Draft<'t>> {
        let accessors = items(json, ACCESSORS)?;
        let views = items(json, VIEWS)?;
        let read = (accessors.len(), views.len());
        let text_len = json.text().len();
        let animations = animation_texts(json);
        let anims = animations.as_ref().map(Vec::len);
        let json = json.to_value_owned_but(|key| match key {
            ACCESSORS => Some(Value::Array(vec![Value::Null; read.0])),
            VIEWS => Some(Value::Array(vec![Value::Null; read.1])),
            ANIMATIONS => anims.map(|n| Value::Array(vec![Value::Null; n])),
            _ => None,
        });
        Some(Draft {
            read_len: text_len,
            json,
            accessors,
            views,
            animations,
            rebuilt: Vec::new(),
        })
    }

    /// The length of the JSON text as read (about that of the text written).
    pub(crate) fn read_len(&self) -> usize {
        self.read_len
    }

    /// The animations as read, for the patch to take (`json` holding `null`s in their places).
    pub(crate) fn take_animations(&mut self) -> ReadAnimations<'t> {
        match self.animations.take() {
            Some(anims) => ReadAnimations::Text(anims.into_iter().map(Some).collect()),
            None => {
                let mut read = Vec::new();
                if let Some(Value::Array(anims)) = self.json.get_mut(ANIMATIONS) {
                    let len = anims.len();
                    read = std::mem::replace(anims, vec![Value::Null; len]);
                }
                ReadAnimations::Values(read)
            }
        }
    }

    /// What the document refers to (see [`Usage::of`]), before its animations are taken.
    pub(crate) fn usage(&mut self) -> Usage {
        let animations = &self.animations;
        let (accessors, views) = (&mut self.accessors, &mut self.views);
        Usage::of(&mut self.json, accessors, views, |used| {
            if let Some(anims) = animations {
                read_animations::mark_accessors(anims, used);
            }
        })
    }

    /// Moves the buffer views and accessors the patch added (`added`) into the items held as
    /// text, and holds the channels and samplers of the animations it rebuilt, drops the items it left unused (see [`layout::collect_garbage`])
    /// and packs the buffer views into one buffer (see [`layout::pack`]).
    pub(crate) fn finish<'a>(
        &mut self,
        before: &Usage,
        added: AddedItems,
        buffers: &'a OutBuffers,
        bin_uri: Option<&str>,
    ) -> Packed<'a> {
        self.views.extend_objects(added.views);
        self.accessors.extend_objects(added.accessors);
        self.rebuilt = added.animations;
        self.rebuilt.sort_by_key(|r| r.index);
        let rebuilt = &mut self.rebuilt;
        layout::collect_garbage(
            &mut self.json,
            &mut self.accessors,
            &mut self.views,
            rebuilt,
            before,
        );
        layout::pack(&mut self.json, &mut self.views, buffers, bin_uri)
    }
}

impl serde::Serialize for Draft<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Some(map) = self.json.as_object() else {
            return Err(serde::ser::Error::custom(
                "the document is not a JSON object",
            ));
        };
        let mut out = s.serialize_map(Some(map.len()))?;
        for (k, v) in map {
            match k.as_str() {
                ACCESSORS => out.serialize_entry(k, &self.accessors)?,
                VIEWS => out.serialize_entry(k, &self.views)?,
                ANIMATIONS if !self.rebuilt.is_empty() => {
                    let rebuilt = &self.rebuilt;
                    out.serialize_entry(k, &Animations { anims: v, rebuilt })?
                }
                _ => out.serialize_entry(k, v)?,
            }
        }
        out.end()
    }
}

#[cfg(test)]
mod tests {
    use super::super::buffers::{Buffer, OutBuffers};
    use super::super::patch::Additions;
    use super::super::raw_items::Slot;
    use super::super::rebuilt::AnimItem;
    use super::*;
    use serde_json::json;

    /// A stand-in for a patch: animation 0 rebuilt with two new channels and samplers and one
    /// kept, that refer to accessors 0 and 5 (its accessors 1 and 2 left unused, 5 renumbered),
    /// animation 1 kept, a view and an accessor added, which the skin refers to.
    fn patch(json: &mut Value, read: &mut ReadAnimations, adds: &mut Additions) {
        json["animations"][0] = json!({ "name": "a", "samplers": null, "channels": null });
        let sampler = |input: u64, output: u64| AnimItem::Sampler {
            input: input.into(),
            output: output.into(),
            interpolation: "LINEAR",
        };
        let channel = |sampler: u64, path| AnimItem::Channel {
            sampler,
            node: 0,
            path,
        };
        adds.animations.push(Rebuilt {
            index: 0,
            channels: vec![
                channel(0, "rotation"),
                AnimItem::Kept(json!({ "sampler": 2, "target": { "node": 0, "path": "scale" } })),
                channel(1, "translation"),
            ],
            samplers: vec![
                sampler(0, 5),
                sampler(5, 0),
                AnimItem::Kept(json!({ "input": 0, "output": 5, "interpolation": "STEP" })),
            ],
        });
        json["animations"][1] = read.take(1);
        let len = |key: &str| json[key].as_array().map_or(0, Vec::len);
        let (views, accessors) = (len("bufferViews"), len("accessors"));
        adds.views.push(vec![
            ("buffer", Slot::Num(0)),
            ("byteOffset", Slot::Num(0)),
            ("byteLength", Slot::Num(4)),
        ]);
        adds.accessors.push(vec![
            ("bufferView", Slot::Num(views as u64)),
            ("type", Slot::Value("SCALAR".into())),
        ]);
        json["skins"][0]["inverseBindMatrices"] = accessors.into();
    }

    /// The document `text` made a draft, patched by [`patch`] and finished: what it writes, its
    /// value, the packed buffer, how many of its accessors and views were held parsed, and
    /// whether its animations were held as text.
    fn patched(text: &str, uri: Option<&str>) -> (String, Value, Vec<u8>, (usize, bool)) {
        let data = vec![Some(Buffer::from((0..20).collect::<Vec<u8>>()))];
        let lazy = LazyJson::new(
            Buffer::from(text.as_bytes().to_vec()),
            lazy::split(text.as_bytes()).expect("splits"),
        );
        let mut draft = Draft::of(&lazy).expect("a draft");
        let parsed = draft.accessors.parsed_mut().count() + draft.views.parsed_mut().count();
        let held = (parsed, draft.animations.is_some());
        let before = draft.usage();
        let mut read = draft.take_animations();
        let mut adds = Additions::new(OutBuffers::new(&data));
        patch(&mut draft.json, &mut read, &mut adds);
        let (buffers, added) = adds.into_parts(&mut draft.json);
        let packed = draft.finish(&before, added, &buffers, uri).to_vec();
        let written = serde_json::to_string(&draft).expect("written");
        (
            written,
            serde_json::to_value(&draft).expect("a value"),
            packed,
            held,
        )
    }

    /// A draft whose accessors, buffer views and animations are held as text writes what the
    /// same document writes with them held parsed (each of those members given a key twice, with
    /// the same value: see `raw_items.rs`), which is what the document parsed whole and patched
    /// wrote (compared so until that way of writing was removed, issue 44): accessors
    /// renumbered where views were dropped (and one whose view is no `u64` left as it is), items
    /// that are no objects, references from meshes, skins and images renumbered, the packed
    /// buffer the same.
    #[test]
    fn a_draft_held_as_text_writes_what_one_held_parsed_writes() {
        let text = r#"{"asset":{"version":"2.0"},
            "accessors":[{"bufferView":0,"componentType":5126,"count":1,"type":"SCALAR","min":[0.5],"max":[1]},
                {"bufferView":1,"count":1},{"count":2,"bufferView":2},{"bufferView":3.0},7,
                {"name":"x","bufferView":4}],
            "bufferViews":[{"buffer":0,"byteLength":4},{"buffer":0,"byteOffset":4,"byteLength":4},
                {"byteLength":4,"byteOffset":8,"buffer":0},{"buffer":0,"byteOffset":12,"byteLength":4},
                {"buffer":0,"byteOffset":16,"byteLength":4},{"buffer":0,"byteLength":2}, null],
            "buffers":[{"byteLength":20}],
            "images":[{"bufferView":5,"mimeType":"image/png"}],
            "meshes":[{"primitives":[{"attributes":{"POSITION":5},"indices":3}]}],
            "skins":[{"joints":[0],"inverseBindMatrices":5}],
            "animations":[{"name":"a","samplers":[{"input":0,"output":1},{"input":0,"output":2}],
                "channels":[{"sampler":0,"target":{"node":0,"path":"rotation"}}]},
                {"samplers":[{"input":0,"output":0}],"channels":[]}]}"#;
        let twice = text
            .replacen(r#"{"name":"x","#, r#"{"name":"x","name":"x","#, 1)
            .replacen(
                r#"{"buffer":0,"byteLength":2}"#,
                r#"{"buffer":0,"byteLength":2,"buffer":0}"#,
                1,
            )
            .replacen(r#"{"name":"a","#, r#"{"name":"a","name":"a","#, 1);
        for uri in [None, Some("out.bin")] {
            let (written, value, packed, held_parsed) = patched(text, uri);
            assert_eq!(held_parsed, (0, true));
            let (written_parsed, value_parsed, packed_parsed, held_parsed) = patched(&twice, uri);
            assert_eq!(held_parsed, (6 + 7, false));
            assert_eq!(written, written_parsed);
            assert_eq!(value, value_parsed);
            assert_eq!(packed, packed_parsed);
            assert_eq!(serde_json::to_string(&value).expect("written"), written);
            assert_eq!(value["accessors"].as_array().map(Vec::len), Some(5));
            let samplers = &value["animations"][0]["samplers"];
            assert_eq!(
                samplers[0],
                json!({ "input": 0, "output": 3, "interpolation": "LINEAR" })
            );
            assert_eq!(samplers[2]["output"], 3);
            assert_eq!(value["skins"][0]["inverseBindMatrices"], 4);
            assert_eq!(value["images"][0]["bufferView"], 3);
        }
    }
}
