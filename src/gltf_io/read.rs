//! Parsing: container → JSON → checked structure → model. Every index, range and count is
//! checked before it is used, so damaged or hostile files give errors, never panics.

use super::accessor::{self, Data};
use super::buffers::{self, Buffer, BufferData, Resources};
use super::container::{self, Format};
use super::error::{invalid, ErrorKind};
use super::extract;
use super::lazy::{self, Json, LazyJson};
use super::read_keys::Located;
use crate::model::{Model, Warning, WarningCode};
use gltf::json::validation::{Error as VError, Validate};
use gltf::json::Root;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;

/// What parsing gives: the container, the JSON, the buffers, the model and the warnings, and
/// where the key values of the model lie in the buffers (see `read_keys.rs`).
pub(crate) type Parsed = (Format, Json, Vec<BufferData>, Model, Vec<Warning>, Located);

/// Whether parsing keeps the key values of the tracks it reads and checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keys {
    /// The model's tracks hold their values.
    Keep,
    /// Every track's values are read and checked, then let go: the model's tracks hold none.
    LetGo,
}

/// What [`typed`] gives.
type Typed = Result<(Root, Vec<(usize, usize)>), ErrorKind>;

/// The typed document of JSON text, deserialized straight from the text (not from its `Value`,
/// which a document held as text does not build: issue 19), or `None` when that fails.
/// When it succeeds and the text's `Value` has no channel without a target node, it is the
/// document [`typed`] makes from that `Value`: both deserialize the same tokens in the same
/// order (`tests` compares them on every fixture and asset). A failure is never reported from here: the
/// `Value` is typed again and its error is the one the user sees, as before.
pub(crate) fn typed_text(text: &[u8]) -> Option<Root> {
    serde_json::from_slice(text).ok()
}

/// Whether the text of a document's `animations` may hold a channel that [`pointer_channels`]
/// counts (one without a target node): a channel, or its `target`, that is not an object (the
/// typed document takes an array as a struct's fields in order, `pointer_channels` finds no
/// `target` or `node` in it), a target object without `node`, or any escape (escaped text may
/// spell any key). Read by one pass of serde_json's parser that keeps nothing; `true` when the
/// text does not read as an array of animations. Without such a channel, a document
/// [`typed_text`] takes types as its `Value` does.
///
/// A document the typed document takes has every channel and target as an object or an array
/// (and a node in every target object), so a text with no array directly in an array and no
/// `target` but objects has none, found by a byte scan first; the parser reads the rest.
fn maybe_pointer_channels(animations: Option<&[u8]>) -> bool {
    let Some(text) = animations else {
        return false;
    };
    if text.contains(&b'\\') {
        return true;
    }
    const TARGET: &[u8] = b"\"target\"";
    let target_not_object = memchr::memmem::find_iter(text, TARGET).any(|i| {
        let colon = lazy::skip_space(text, i + TARGET.len());
        text.get(colon) == Some(&b':') && text.get(lazy::skip_space(text, colon + 1)) != Some(&b'{')
    });
    let array_in_array = memchr::memchr_iter(b'[', text).any(|i| {
        let before = text[..i].iter().rev().find(|&&b| !lazy::is_space(b));
        matches!(before, Some(b'[' | b','))
    });
    if !target_not_object && !array_in_array {
        return false;
    }
    let mut de = serde_json::Deserializer::from_slice(text);
    match serde::de::DeserializeSeed::deserialize(pointers::Animations, &mut de) {
        Ok(found) => found || de.end().is_err(),
        Err(_) => true,
    }
}

/// The visitors of [`maybe_pointer_channels`]: each says whether what it read holds a channel
/// without a target node, as [`pointer_channels`] reads a `Value` (an animation or a list that
/// is not an array or object holds none).
mod pointers {
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
    use std::fmt;

    /// Which part of the animations a visitor reads.
    #[derive(Clone, Copy)]
    pub(super) enum Part {
        Animations,
        Animation,
        Channels,
        Channel,
        /// A channel's target: `true` when it has a node.
        Target,
    }
    pub(super) use Part::Animations;

    impl<'de> DeserializeSeed<'de> for Part {
        type Value = bool;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Part {
        type Value = bool;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("glTF animations")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
            let mut found = false;
            match self {
                Part::Animations | Part::Channels => {
                    let inner = match self {
                        Part::Animations => Part::Animation,
                        _ => Part::Channel,
                    };
                    while let Some(f) = seq.next_element_seed(inner)? {
                        found |= f;
                    }
                }
                _ => while seq.next_element::<IgnoredAny>()?.is_some() {},
            }
            // A channel written as an array has no `target` to `pointer_channels`; an animation
            // or a target written as one has no `channels` or `node`.
            Ok(found || matches!(self, Part::Channel))
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let mut found = false;
            let mut target_has_node = false;
            while let Some(key) = map.next_key::<&str>()? {
                match (self, key) {
                    (Part::Animation, "channels") => {
                        found |= map.next_value_seed(Part::Channels)?
                    }
                    (Part::Channel, "target") => {
                        target_has_node = map.next_value_seed(Part::Target)?;
                    }
                    (Part::Target, "node") => {
                        map.next_value::<IgnoredAny>()?;
                        found = true;
                    }
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(match self {
                Part::Channel => !target_has_node,
                Part::Animations | Part::Channels => false,
                _ => found,
            })
        }

        fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
            Ok(matches!(self, Part::Channel))
        }
        fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
            Ok(matches!(self, Part::Channel))
        }
        fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
            Ok(matches!(self, Part::Channel))
        }
        fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
            Ok(matches!(self, Part::Channel))
        }
        fn visit_str<E>(self, _: &str) -> Result<bool, E> {
            Ok(matches!(self, Part::Channel))
        }
        fn visit_unit<E>(self) -> Result<bool, E> {
            Ok(matches!(self, Part::Channel))
        }
    }
}

/// Parses a document from its file's bytes, which it keeps: a GLB's binary chunk becomes the
/// first buffer where it lies in `bytes`, not a copy of it. The JSON is held as its text split
/// into members (`lazy.rs`) when it can be: the stages do not look at it, and a document
/// written changed parses only what it patches.
pub(crate) fn parse(bytes: Vec<u8>, res: &Resources, keys: Keys) -> Result<Parsed, ErrorKind> {
    let bytes = Arc::new(bytes);
    let parts = container::split(&bytes)?;
    // The bytes of `part` (inside `bytes`), shared.
    let part = |part: &[u8]| {
        let start = part.as_ptr() as usize - bytes.as_ptr() as usize;
        Buffer::part(bytes.clone(), start..start + part.len())
    };
    // Split into members when it can be, else parsed into a `Value`: the same errors either way.
    let json = match lazy::split(parts.json) {
        Some(members) => {
            let lazy = LazyJson::new(part(parts.json), members);
            check_version(lazy.get("asset"))?;
            Json::Lazy(lazy)
        }
        None => Json::Whole(parse_json(parts.json)?),
    };
    finish(parts.format, json, parts.bin.map(part), res, keys)
}

pub(crate) fn parse_json(text: &[u8]) -> Result<Value, ErrorKind> {
    let json: Value = serde_json::from_slice(text).map_err(|e| ErrorKind::Json(e.to_string()))?;
    if !json.is_object() {
        return Err(ErrorKind::Json("the document is not a JSON object".into()));
    }
    check_version(json.get("asset"))?;
    Ok(json)
}

/// Reads the document's buffers, checks and types it and reads its model.
fn finish(
    format: Format,
    mut json: Json,
    bin: Option<Buffer>,
    res: &Resources,
    keys: Keys,
) -> Result<Parsed, ErrorKind> {
    let mut buffers = buffers::load_buffers(json.get("buffers"), bin, res)?;
    if buffers::embeds_images(json.get("images")) {
        buffers::embed_images(json.whole_mut(), &mut buffers, res)?;
    }
    // Held as text: typed from it, when that gives what typing its `Value` gives.
    let from_text = |json: &Json| {
        let lazy = json.as_lazy()?;
        if maybe_pointer_channels(lazy.text_of("animations")) {
            return None;
        }
        typed_text(lazy.text()).map(|root| (root, Vec::new()))
    };
    let (root, pointers) = match from_text(&json) {
        Some(typed) => typed,
        None => typed(json.whole_mut())?,
    };
    let mut warnings = Vec::new();
    check_structure(&root, &buffers, &mut warnings)?;
    let parents = parents(&root)?;
    let mut data = Data::new(&root, &buffers);
    data.keep_keys = keys == Keys::Keep;
    if data.keep_keys {
        // At most a track per channel (each parsed already).
        data.located
            .reserve(root.animations.iter().map(|a| a.channels.len()).sum());
    }
    let (model, more) = extract::model(&root, &json, &parents, &pointers, &mut data)?;
    warnings.extend(more);
    let located = std::mem::take(&mut data.located);
    Ok((format, json, buffers, model, warnings, located))
}

/// Checks `asset.version` (`asset`, the document's `asset`).
fn check_version(asset: Option<&Value>) -> Result<(), ErrorKind> {
    let version = asset
        .and_then(|a| a.pointer("/version"))
        .and_then(Value::as_str);
    match version {
        Some(v) if v.starts_with("2.") => Ok(()),
        Some(v) => Err(invalid(
            "asset.version",
            format!("glTF {v} is not supported (only 2.x)"),
        )),
        None => Err(invalid("asset.version", "is missing")),
    }
}

/// Deserializes the typed document. Channels without a target node (`KHR_animation_pointer`)
/// are set aside first, since the typed model requires a node; their (animation, channel)
/// indices are returned. The document is copied only when there are such channels.
pub(crate) fn typed(json: &Value) -> Typed {
    let pointers = pointer_channels(json);
    let not_gltf = |e: serde_json::Error| ErrorKind::Json(format!("not a glTF document: {e}"));
    if pointers.is_empty() {
        return Ok((Root::deserialize(json).map_err(not_gltf)?, pointers));
    }
    let mut copy = json.clone();
    for &(a, c) in pointers.iter().rev() {
        if let Some(channels) = copy["animations"][a]["channels"].as_array_mut() {
            channels.remove(c);
        }
    }
    Ok((serde_json::from_value(copy).map_err(not_gltf)?, pointers))
}

/// The (animation, channel) indices of the channels without a target node
/// (`KHR_animation_pointer`).
fn pointer_channels(json: &Value) -> Vec<(usize, usize)> {
    let mut pointers = Vec::new();
    for (a, anim) in json
        .get("animations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        for (c, ch) in anim
            .get("channels")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            if ch.get("target").and_then(|t| t.get("node")).is_none() {
                pointers.push((a, c));
            }
        }
    }
    pointers
}

/// Runs the `gltf` crate's structural validation (index ranges and the like), ignoring only
/// extensions it does not know, then checks every buffer view's range.
fn check_structure(
    root: &Root,
    buffers: &[BufferData],
    warnings: &mut Vec<Warning>,
) -> Result<(), ErrorKind> {
    check_primitive_accessors(root)?;
    check_channel_targets(root)?;
    let mut problems = Vec::new();
    root.validate(
        root,
        gltf::json::Path::new,
        &mut |path: &dyn Fn() -> gltf::json::Path, e| {
            if !matches!(e, VError::Unsupported) {
                problems.push((path().to_string(), e));
            }
        },
    );
    for (path, e) in problems {
        let what = match e {
            VError::IndexOutOfBounds => "index out of range",
            VError::Invalid => "invalid value",
            VError::Missing => "required value missing",
            VError::Oversize => "size exceeds the system's limits",
            VError::Unsupported => "unsupported",
        };
        // The specification allows a primitive without POSITION (it is not drawn), and an
        // accessor without a buffer view (zeros, or data from an extension such as Draco).
        // A texture's image may come from an extension instead of `source` (EXT_texture_webp,
        // KHR_texture_basisu, MSFT_texture_dds, EXT_texture_avif), which the `gltf` crate does not
        // read.
        let image_extension = root.extensions_used.iter().any(|e| {
            matches!(
                e.as_str(),
                "EXT_texture_webp" | "KHR_texture_basisu" | "MSFT_texture_dds" | "EXT_texture_avif"
            )
        });
        let allowed = path.contains(".attributes.POSITION")
            || (path.starts_with("accessors[") && path.ends_with("].bufferView"))
            || (image_extension && path.starts_with("textures[") && path.ends_with("].source"));
        if allowed && matches!(e, VError::Missing) {
            continue;
        }
        if FATAL.iter().any(|k| {
            path == *k || path.starts_with(&format!("{k}[")) || path.starts_with(&format!("{k}."))
        }) {
            return Err(invalid(path, what));
        }
        warnings.push(Warning::new(
            WarningCode::GltfInvalid,
            format!("{path}: {what}"),
        ));
    }
    for (i, acc) in root.accessors.iter().enumerate() {
        check_accessor_range(root, i, acc)?;
    }
    for (i, view) in root.buffer_views.iter().enumerate() {
        // Named only in an error: not formatted for every view.
        let at = || format!("bufferViews[{i}]");
        check_range(
            buffers,
            view.buffer.value() as u64,
            view.byte_offset.map_or(0, |o| o.0),
            view.byte_length.0,
            at,
        )?;
        if let Some(ext) = accessor::meshopt(view) {
            let num = |k: &str| ext.get(k).and_then(Value::as_u64);
            let b = num("buffer")
                .ok_or_else(|| invalid(at(), "EXT_meshopt_compression has no buffer"))?;
            let len = num("byteLength")
                .ok_or_else(|| invalid(at(), "EXT_meshopt_compression has no byteLength"))?;
            check_range(buffers, b, num("byteOffset").unwrap_or(0), len, at)?;
        }
    }
    Ok(())
}

/// Parts of a document skelnorm reads or rewrites: a problem there stops the read; a problem
/// elsewhere (materials, cameras, textures) is a warning and passes through untouched.
const FATAL: &[&str] = &[
    "nodes",
    "skins",
    "animations",
    "accessors",
    "bufferViews",
    "buffers",
    "scenes",
    "scene",
    "meshes",
    "images",
];

/// Checks what `gltf`'s validation leaves out: animation channels' target nodes (it checks only
/// their samplers).
fn check_channel_targets(root: &Root) -> Result<(), ErrorKind> {
    for (a, anim) in root.animations.iter().enumerate() {
        for (c, ch) in anim.channels.iter().enumerate() {
            if ch.target.node.value() >= root.nodes.len() {
                let at = format!("animations[{a}].channels[{c}].target.node");
                return Err(invalid(at, "index out of range"));
            }
        }
    }
    Ok(())
}

/// Checks the accessor indices of mesh primitives before `gltf`'s validation runs: its POSITION
/// check indexes the accessor list without a bounds check.
fn check_primitive_accessors(root: &Root) -> Result<(), ErrorKind> {
    let n = root.accessors.len();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let targets = prim
                .targets
                .iter()
                .flatten()
                .flat_map(|t| [t.positions, t.normals, t.tangents]);
            let all = prim
                .attributes
                .values()
                .copied()
                .map(Some)
                .chain(targets)
                .chain([prim.indices]);
            if all.flatten().any(|a| a.value() >= n) {
                return Err(invalid(
                    format!("meshes[{m}].primitives[{p}]"),
                    "accessor index out of range",
                ));
            }
        }
    }
    Ok(())
}

/// Checks that an accessor's elements lie inside its buffer view (without reading them).
fn check_accessor_range(
    root: &Root,
    i: usize,
    acc: &gltf::json::Accessor,
) -> Result<(), ErrorKind> {
    use gltf::json::validation::Checked;
    let (Some(v), Checked::Valid(ct), Checked::Valid(ty)) =
        (acc.buffer_view, acc.component_type, acc.type_)
    else {
        return Ok(());
    };
    let view = &root.buffer_views[v.value()];
    let elem = (ct.0.size() * ty.multiplicity()) as u64;
    let stride = view.byte_stride.map_or(elem, |s| s.0 as u64);
    let count = acc.count.0;
    let need = accessor::span(acc.byte_offset.map_or(0, |o| o.0), stride, count, elem);
    match need {
        Some(need) if need <= view.byte_length.0 => Ok(()),
        _ => Err(invalid(
            format!("accessors[{i}]"),
            format!(
                "{count} elements of {elem} bytes read past the end of buffer view {} ({} bytes)",
                v.value(),
                view.byte_length.0
            ),
        )),
    }
}

/// Checks that bytes `offset..offset + len` of buffer `b` exist; the error names the place
/// `at` gives (formatted only then: a range that does not fit is checked again with it).
fn check_range(
    buffers: &[BufferData],
    b: u64,
    offset: u64,
    len: u64,
    at: impl Fn() -> String,
) -> Result<(), ErrorKind> {
    match buffers::slice(buffers, b, offset, len, "") {
        Ok(_) => Ok(()),
        Err(_) => buffers::slice(buffers, b, offset, len, &at()).map(|_| ()),
    }
}

/// The parent of every node; refuses a node with two parents and cycles.
fn parents(root: &Root) -> Result<Vec<Option<usize>>, ErrorKind> {
    let n = root.nodes.len();
    let mut parent = vec![None; n];
    for (i, node) in root.nodes.iter().enumerate() {
        for c in node.children.iter().flatten() {
            let c = c.value();
            if c == i {
                return Err(invalid(format!("nodes[{i}]"), "is its own child"));
            }
            if let Some(p) = parent[c] {
                return Err(invalid(
                    format!("nodes[{c}]"),
                    format!("has two parents (nodes {p} and {i})"),
                ));
            }
            parent[c] = Some(i);
        }
    }
    // 0 = not seen, 1 = on the current walk, 2 = known to reach a root.
    let mut state = vec![0u8; n];
    for start in 0..n {
        let mut walk = Vec::new();
        let mut at = Some(start);
        while let Some(i) = at {
            match state[i] {
                2 => break,
                1 => {
                    return Err(invalid(
                        format!("nodes[{i}]"),
                        "is part of a cycle of children",
                    ))
                }
                _ => {
                    state[i] = 1;
                    walk.push(i);
                    at = parent[i];
                }
            }
        }
        for i in walk {
            state[i] = 2;
        }
    }
    Ok(parent)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The typed document [`typed_text`] deserializes from a JSON text, against the one
    /// [`typed`] makes from the text's `Value` (compared as JSON: the `gltf` crate's types have
    /// no equality); `None` when the text's `Value` does not parse, has pointer channels or
    /// `typed_text` fails (where the `Value` is typed instead). `typed_text` never takes a text
    /// whose `Value` the typed document refuses.
    fn both(text: &[u8]) -> Option<(Value, Value)> {
        let json = parse_json(text).ok()?;
        if !pointer_channels(&json).is_empty() {
            return None;
        }
        let from_value = typed(&json).ok().map(|(root, _)| root);
        let from_text = typed_text(text)?;
        let Some(from_value) = from_value else {
            panic!(
                "typed from the text but not from its Value: {}",
                String::from_utf8_lossy(text)
            );
        };
        let to_json = |root: Root| serde_json::to_value(root).ok();
        Some((to_json(from_text)?, to_json(from_value)?))
    }

    #[test]
    fn typed_from_text_is_typed_from_value_on_every_fixture_and_asset() {
        let mut compared = 0;
        container::each_fixture_and_asset_json(|path, text| {
            let Some((from_text, from_value)) = both(text) else {
                return;
            };
            assert_eq!(from_text, from_value, "{}", path.display());
            compared += 1;
        });
        assert!(compared >= 10, "only {compared} documents compared");
    }

    /// A text [`typed_text`] takes and whose `animations` [`maybe_pointer_channels`] clears has
    /// no pointer channel: what lets a split document be typed from its text.
    #[test]
    fn typed_text_and_no_target_but_objects_means_no_pointer_channels() {
        let anims = [
            r#"[{"channels":[{"sampler":0,"target":{"node":0,"path":"rotation"}}],"samplers":[{"input":0,"output":0}]}]"#,
            r#"[{"channels":[{"sampler":0,"target":[null,null,0,"rotation"]}],"samplers":[{"input":0,"output":0}]}]"#,
            r#"[{"channels":[{"sampler":0,"target" : [null,null,0,"rotation"]}],"samplers":[{"input":0,"output":0}]}]"#,
            r#"[{"channels":[{"sampler":0,"t\u0061rget":[null,null,0,"rotation"]}],"samplers":[{"input":0,"output":0}]}]"#,
            r#"[{"channels":[{"sampler":0,"target":{"path":"rotation"}}],"samplers":[{"input":0,"output":0}]}]"#,
            r#"[{"name":"target","channels":[],"samplers":[]}]"#,
            // A channel written as an array (no `target` key at all), or as a scalar.
            r#"[{"channels":[[0,{"node":0,"path":"rotation"}]],"samplers":[{"input":0,"output":0}]}]"#,
            r#"[{"channels":[[0,[null,null,0,"rotation"]]],"samplers":[{"input":0,"output":0}]}]"#,
            r#"[{"channels":[7],"samplers":[]}]"#,
            // A node of null is a node to `pointer_channels`; a target given twice, the last.
            r#"[{"channels":[{"sampler":0,"target":{"node":null,"path":"rotation"}}],"samplers":[]}]"#,
            r#"[{"channels":[{"sampler":0,"target":{"path":"rotation"},"target":{"node":0}}],"samplers":[]}]"#,
            r#"[{"channels":[{"sampler":0,"target":{"node":0},"target":{"path":"rotation"}}],"samplers":[]}]"#,
            // An animation written as an array, channels as an object: no channel to count.
            r#"[[[{"sampler":0,"target":{"node":0,"path":"rotation"}}],[{"input":0,"output":0}]]]"#,
            r#"[{"channels":{"a":{"target":{}}},"samplers":[]}]"#,
            r#"{"a":1}"#,
        ];
        let mut typed_ones = 0;
        for anims in anims {
            let text = format!(
                r#"{{"asset":{{"version":"2.0"}},"nodes":[{{}}],"accessors":[{{"componentType":5126,"count":1,"type":"SCALAR"}}],"animations":{anims}}}"#
            );
            let json = parse_json(text.as_bytes()).expect("parses");
            let typed = typed_text(text.as_bytes()).is_some();
            typed_ones += usize::from(typed);
            let maybe = maybe_pointer_channels(Some(anims.as_bytes()));
            if typed && !maybe {
                assert!(pointer_channels(&json).is_empty(), "{anims}");
            }
            // Exactly what `pointer_channels` finds where the typed document takes the text,
            // but where an escape may spell a key.
            if typed && !anims.contains('\\') {
                assert_eq!(maybe, !pointer_channels(&json).is_empty(), "{anims}");
            }
        }
        // The array targets are taken as targets by the typed document.
        assert!(typed_ones >= 3, "{typed_ones}");
        assert!(maybe_pointer_channels(Some(anims[1].as_bytes())));
        assert!(maybe_pointer_channels(Some(anims[3].as_bytes())));
        assert!(!maybe_pointer_channels(Some(anims[0].as_bytes())));
        assert!(!maybe_pointer_channels(Some(anims[5].as_bytes())));
        // The array channel the typed document takes as a channel of node 0.
        assert!(typed_text(
            format!(
                r#"{{"asset":{{"version":"2.0"}},"nodes":[{{}}],"accessors":[{{"componentType":5126,"count":1,"type":"SCALAR"}}],"animations":{}}}"#,
                anims[6]
            )
            .as_bytes()
        )
        .is_some());
        assert!(maybe_pointer_channels(Some(anims[6].as_bytes())));
    }

    #[test]
    fn typed_from_text_is_typed_from_value_on_odd_json() {
        let node = r#"{"name":"a","translation":[1,-0,1e2],"rotation":[0,0,0,1]}"#;
        let cases = [
            // Unknown members, extras with spaces, integers written as floats and with signs.
            format!(r#"{{"asset":{{"version":"2.0","x":1}},"nodes":[{node}],"extras":{{ "a" : [ 1 , 2 ] }}}}"#),
            // A member given twice: the typed document refuses it either way.
            format!(r#"{{"asset":{{"version":"2.0"}},"nodes":[{node}],"nodes":[]}}"#),
            format!(r#"{{"asset":{{"version":"2.0","version":"2.1"}},"nodes":[{node}]}}"#),
            // Twice in a map (extensions): the last value wins either way.
            r#"{"asset":{"version":"2.0"},"extensions":{"A":{"b":1},"A":{"b":2}}}"#.into(),
            // Wrong types and out-of-range numbers.
            r#"{"asset":{"version":"2.0"},"nodes":[{"children":[1.0]}]}"#.into(),
            r#"{"asset":{"version":"2.0"},"nodes":[{"children":[-1]}]}"#.into(),
            r#"{"asset":{"version":"2.0"},"nodes":[{"children":[18446744073709551616]}]}"#.into(),
            r#"{"asset":{"version":"2.0"},"accessors":[{"componentType":5126.0,"count":1,"type":"VEC3"}]}"#.into(),
            r#"{"asset":{"version":"2.0"},"accessors":[{"componentType":5126,"count":1,"type":"VEC9"}]}"#.into(),
            r#"{"asset":{"version":"2.0"},"nodes":[{"scale":[1e39,1,1]}]}"#.into(),
            r#"{"asset":{"version":"2.0"},"nodes":[{"name":"\u00e9\ud83d\ude00"}]}"#.into(),
            r#"{"asset":{"version":"2.0"},"nodes":{}}"#.into(),
            r#"{"asset":{"version":"2.0"},"scene":null}"#.into(),
        ];
        let mut compared = 0;
        for case in &cases {
            if let Some((from_text, from_value)) = both(case.as_bytes()) {
                assert_eq!(from_text, from_value, "{case}");
                compared += 1;
            }
        }
        // Duplicated members, wrong types, unknown names and out-of-range numbers are refused
        // from the text (and the `Value` is typed instead); the other four are compared.
        assert_eq!(compared, 4, "{compared} of {} compared", cases.len());
    }
}
