//! Writing model changes into the original JSON: only what differs from what was read is
//! touched (node transforms and names, inverse bind matrices, animations). New data goes into new
//! accessors; `layout` later drops the ones left unused and packs the buffers.

use super::bake::Baked;
use super::buffers::{array_mut, push_array, Added, OutBuffers};
use super::error::ErrorKind;
use super::raw_items::{Members, Slot};
use super::read_animations::{OldItems, ReadAnimations};
use super::read_keys::{ModelAsRead, ReadValue};
use super::rebuilt::{AnimItem, Rebuilt};
use crate::model::{Channel, Clip, FxMap, Model, Skeleton, Track, TrackValue, Transform};
use glam::{Mat4, Quat, Vec3};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

fn fail(msg: impl Into<String>) -> ErrorKind {
    ErrorKind::Write(msg.into())
}

/// An f32 as a JSON number with its shortest decimal form (0.1, not 0.10000000149011612).
pub(crate) fn num(x: f32) -> Value {
    let x = if x == 0.0 { 0.0 } else { x }; // no "-0.0"
    x.to_string()
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(Value::Null, Value::Number)
}

fn nums(xs: &[f32]) -> Value {
    Value::Array(xs.iter().map(|&x| num(x)).collect())
}

/// Patches `json` (a copy of the document as read whose animations may be left out:
/// [`patch_clips`] puts each back, as read or rebuilt, taking it out of `read`) with what
/// changed from `original` to `model`.
pub(crate) fn apply(
    json: &mut Value,
    read: &mut ReadAnimations,
    adds: &mut Additions,
    read_model: ModelAsRead,
    model: &Model,
    baked: &Baked,
) -> Result<(), ErrorKind> {
    let original = read_model.model;
    if model.skeletons.len() != original.skeletons.len() {
        return Err(fail("skeletons cannot be added or removed"));
    }
    let was: HashMap<u32, &str> = original
        .other_nodes
        .iter()
        .map(|n| (n.node, n.name.as_str()))
        .collect();
    for n in &model.other_nodes {
        if was.get(&n.node) != Some(&n.name.as_str()) {
            node_mut(json, Some(n.node), &n.name)?.insert("name".into(), n.name.clone().into());
        }
    }
    // The scene's turn relative to the file as read.
    let turn = (model.scene_turn * original.scene_turn.conjugate()).normalize();
    let turned = !turn.abs_diff_eq(Quat::IDENTITY, 1e-7);
    // Found before the skeletons are patched: a node put above a skeleton's roots is placed.
    let roots = if turned {
        free_scene_roots(json, original)
    } else {
        Vec::new()
    };
    for (new, old) in model.skeletons.iter().zip(&original.skeletons) {
        patch_skeleton(
            json,
            adds,
            old,
            new,
            if turned { turn } else { Quat::IDENTITY },
        )?;
    }
    turn_scene_roots(json, &roots, turn)?;
    super::vrm_data::apply(
        json,
        original,
        model,
        if turned { turn } else { Quat::IDENTITY },
    )?;
    put_baked(json, adds, baked)?;
    patch_clips(json, read, adds, read_model, model)
}

/// The buffer view target of vertex attributes.
const ARRAY_BUFFER: u64 = 34962;

/// Adds the new vertex data of skins moved into a new bind and points their primitives at it.
fn put_baked(json: &mut Value, adds: &mut Additions, baked: &Baked) -> Result<(), ErrorKind> {
    let added: Vec<usize> = baked
        .data
        .iter()
        .map(|d| {
            let bounds = d.bounds.then_some(&d.floats[..]);
            let at = add_accessor(json, adds, Added::Floats(d.floats.clone()), d.ty, bounds);
            // Vertex data: its view says so (the validator hints at a view without a target).
            if let Some(view) = adds.views.last_mut() {
                view.push(("target", Slot::Num(ARRAY_BUFFER)));
            }
            at
        })
        .collect();
    for (slot, i) in &baked.uses {
        let at = json
            .pointer_mut(slot)
            .ok_or_else(|| fail(format!("{slot} does not exist")))?;
        *at = added[*i].into();
    }
    Ok(())
}

fn node_mut<'a>(
    json: &'a mut Value,
    node: Option<u32>,
    what: &str,
) -> Result<&'a mut Map<String, Value>, ErrorKind> {
    let n = node.ok_or_else(|| fail(format!("`{what}` has no glTF node")))?;
    // As `pointer_mut("/nodes/{n}")` finds it (the document as read has its nodes as an
    // array), without making the pointer's text.
    json.get_mut("nodes")
        .and_then(Value::as_array_mut)
        .and_then(|nodes| nodes.get_mut(n as usize))
        .and_then(Value::as_object_mut)
        .ok_or_else(|| fail(format!("`{what}`: node {n} does not exist")))
}

/// Skin `k` of the document, as an object (gltf-json also takes a struct written as an array,
/// which the patch cannot edit: an error, not a panic).
fn skin_mut(json: &mut Value, k: u32) -> Result<&mut Map<String, Value>, ErrorKind> {
    json.pointer_mut(&format!("/skins/{k}"))
        .and_then(Value::as_object_mut)
        .ok_or_else(|| fail(format!("skin {k} is not a JSON object")))
}

fn write_trs(node: &mut Map<String, Value>, t: &Transform) {
    node.remove("matrix");
    node.insert("translation".into(), nums(&t.translation.to_array()));
    node.insert("rotation".into(), nums(&t.rotation.to_array()));
    node.insert("scale".into(), nums(&t.scale.to_array()));
}

fn patch_skeleton(
    json: &mut Value,
    adds: &mut Additions,
    old: &Skeleton,
    new: &Skeleton,
    turn: Quat,
) -> Result<(), ErrorKind> {
    if new.bones.len() != old.bones.len()
        || new
            .bones
            .iter()
            .zip(&old.bones)
            .any(|(a, b)| a.node != b.node)
    {
        return Err(fail(format!(
            "skeleton `{}`: bones cannot be added, removed or reordered",
            new.name
        )));
    }
    // A new name for a skeleton without a node above its bones needs that node: set_base
    // inserts it.
    let renamed_bare = new.name != old.name && old.base_nodes.is_empty();
    if new.base != old.base || turn != Quat::IDENTITY || renamed_bare {
        set_base(json, old, new, turn)?;
    }
    if let (true, Some(&armature)) = (new.name != old.name, old.base_nodes.last()) {
        node_mut(json, Some(armature), &new.name)?.insert("name".into(), new.name.clone().into());
    }
    for (b, o) in new.bones.iter().zip(&old.bones) {
        if b.name != o.name {
            node_mut(json, b.node, &b.name)?.insert("name".into(), b.name.clone().into());
        }
        if b.rest != o.rest {
            write_trs(node_mut(json, b.node, &b.name)?, &b.rest);
        }
    }
    if new.attachments.len() != old.attachments.len() {
        return Err(fail(format!(
            "skeleton `{}`: attachments cannot be added or removed",
            new.name
        )));
    }
    for (a, o) in new.attachments.iter().zip(&old.attachments) {
        if a.transform != o.transform {
            write_trs(node_mut(json, a.node, &a.name)?, &a.transform);
        }
    }
    if new.skins.len() != old.skins.len() {
        return Err(fail(format!(
            "skeleton `{}`: skins cannot be added or removed",
            new.name
        )));
    }
    for (s, o) in new.skins.iter().zip(&old.skins) {
        let k = s.source.ok_or_else(|| fail("a skin has no glTF source"))?;
        if s.joints != o.joints {
            let nodes: Result<Vec<Value>, _> = s
                .joints
                .iter()
                .map(|j| {
                    new.bones[j.index()]
                        .node
                        .map(Value::from)
                        .ok_or_else(|| fail("a joint has no node"))
                })
                .collect();
            let nodes = Value::Array(nodes?);
            skin_mut(json, k)?.insert("joints".into(), nodes);
        }
        if s.inverse_bind_matrices != o.inverse_bind_matrices || !s.bake.is_empty() {
            // Moved into a new bind, the vertices are `B · v`: the file's matrices `IBM · B⁻¹`.
            let written: Vec<Mat4> = match s.bake.len() == s.inverse_bind_matrices.len() {
                true => s
                    .inverse_bind_matrices
                    .iter()
                    .zip(&s.bake)
                    .map(|(m, b)| (m.as_dmat4() * b.as_dmat4().inverse()).as_mat4())
                    .collect(),
                false => s.inverse_bind_matrices.clone(),
            };
            let flat: Vec<f32> = written
                .iter()
                .flat_map(|m| {
                    let mut c = m.to_cols_array();
                    // glTF requires the last row to be exactly (0, 0, 0, 1).
                    (c[3], c[7], c[11], c[15]) = (0.0, 0.0, 0.0, 1.0);
                    c
                })
                .collect();
            let acc = add_accessor(json, adds, Added::Floats(flat.into()), "MAT4", None);
            skin_mut(json, k)?.insert("inverseBindMatrices".into(), acc.into());
        }
    }
    Ok(())
}

/// A node's local transform as stored (`matrix`, or TRS with glTF's defaults).
fn stored_local(json: &Value, n: u32) -> Result<Mat4, ErrorKind> {
    let node = json
        .pointer(&format!("/nodes/{n}"))
        .ok_or_else(|| fail(format!("node {n} does not exist")))?;
    let floats = |key: &str, len: usize| -> Option<Vec<f32>> {
        let v: Vec<f32> = node
            .get(key)?
            .as_array()?
            .iter()
            .filter_map(|x| x.as_f64())
            .map(|x| x as f32)
            .collect();
        (v.len() == len).then_some(v)
    };
    if let Some(m) = floats("matrix", 16) {
        return Ok(Mat4::from_cols_slice(&m));
    }
    let t = floats("translation", 3).map_or(Vec3::ZERO, |v| Vec3::from_slice(&v));
    let r = floats("rotation", 4).map_or(Quat::IDENTITY, |v| Quat::from_slice(&v).normalize());
    let sc = floats("scale", 3).map_or(Vec3::ONE, |v| Vec3::from_slice(&v));
    Ok(Mat4::from_scale_rotation_translation(sc, r, t))
}

/// The TRS form of `m`, or an error naming `what` when `m` has shear.
fn as_trs(m: &Mat4, what: &str) -> Result<Transform, ErrorKind> {
    let t = Transform::from_mat4(m);
    let size = m.x_axis.truncate().length().max(1e-30);
    let back = t.to_mat4();
    if (0..4).all(|c| (back.col(c) - m.col(c)).length() <= 1e-4 * size.max(1.0)) {
        Ok(t)
    } else {
        Err(fail(format!(
            "{what}: the new transform cannot be written as translation, rotation and scale"
        )))
    }
}

/// Gives a skeleton its new base transform, and the scene its turn `turn`. A base that became
/// the identity (folded in) leaves every node above the skeleton with the identity; any other
/// base goes into the node right above the roots alone, the nodes above it unchanged (a new
/// node there if the roots hang from the scene, or if the skeleton's new name needs a node).
/// The other children of the nodes that change take the scene's turn and otherwise stay where
/// they were ([`place`]).
fn set_base(json: &mut Value, old: &Skeleton, new: &Skeleton, turn: Quat) -> Result<(), ErrorKind> {
    let roots: Vec<u32> = new
        .bones
        .iter()
        .filter(|b| b.parent.is_none())
        .filter_map(|b| b.node)
        .collect();
    let identity = new.base.abs_diff_eq(Mat4::IDENTITY, 1e-7);
    let path = &old.base_nodes;
    let Some(&last) = path.last() else {
        return if identity && new.name == old.name {
            Ok(())
        } else {
            insert_base(json, new, &roots)
        };
    };
    let turn = Mat4::from_quat(turn);
    let mut old_world = Mat4::IDENTITY;
    let mut new_world = Mat4::IDENTITY;
    for (d, &n) in path.iter().enumerate() {
        let old_local = stored_local(json, n)?;
        old_world *= old_local;
        let changed = identity || n == last;
        if !changed {
            // Above the last node, kept.
            new_world *= old_local;
            continue;
        }
        let new_local = if identity {
            Transform::IDENTITY
        } else {
            as_trs(&(new_world.inverse() * new.base), &format!("node {n}"))?
        };
        new_world *= new_local.to_mat4();
        let children: Vec<u32> = child_nodes(json, n)
            .into_iter()
            .filter(|c| !roots.contains(c) && path.get(d + 1) != Some(c))
            .collect();
        for c in children {
            let target = turn * old_world * stored_local(json, c)?;
            place(json, c, new_world, target)?;
        }
        if !old_local.abs_diff_eq(new_local.to_mat4(), 0.0) {
            write_trs(node_mut(json, Some(n), &format!("node {n}"))?, &new_local);
        }
    }
    Ok(())
}

/// The children of node `n`.
fn child_nodes(json: &Value, n: u32) -> Vec<u32> {
    json["nodes"][n as usize]["children"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_u64().map(|c| c as u32))
        .collect()
}

/// Gives node `n`, whose parent's world transform is now `parent`, the world transform
/// `target`. A skinned mesh keeps its own transform (glTF and three.js ignore it; writing one is
/// a validator warning) and its children take their targets instead.
fn place(json: &mut Value, n: u32, parent: Mat4, target: Mat4) -> Result<(), ErrorKind> {
    let what = format!("node {n}");
    if json["nodes"][n as usize].get("skin").is_some() {
        let local = stored_local(json, n)?;
        for c in child_nodes(json, n) {
            let child_target = target * stored_local(json, c)?;
            place(json, c, parent * local, child_target)?;
        }
        return Ok(());
    }
    let t = as_trs(&(parent.inverse() * target), &what)?;
    write_trs(node_mut(json, Some(n), &what)?, &t);
    Ok(())
}

/// Puts a new node holding the whole base right above the roots of a skeleton that hangs from
/// the scene.
fn insert_base(json: &mut Value, new: &Skeleton, roots: &[u32]) -> Result<(), ErrorKind> {
    let has_node_parent = json["nodes"].as_array().into_iter().flatten().any(|n| {
        n["children"].as_array().is_some_and(|c| {
            c.iter()
                .any(|v| v.as_u64().is_some_and(|v| roots.contains(&(v as u32))))
        })
    });
    if has_node_parent {
        return Err(fail(format!(
            "skeleton `{}`: its roots hang from different nodes, so no one node can be put above them",
            new.name
        )));
    }
    let t = as_trs(&new.base, &format!("skeleton `{}`", new.name))?;
    let mut node = json!({ "name": new.name.clone(), "children": roots });
    write_trs(node.as_object_mut().expect("an object"), &t);
    let idx = push_array(json, "nodes", node);
    for scene in json
        .get_mut("scenes")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        let Some(list) = scene.get_mut("nodes").and_then(Value::as_array_mut) else {
            continue;
        };
        let is_root = |v: &Value| v.as_u64().is_some_and(|n| roots.contains(&(n as u32)));
        if let Some(at) = list.iter().position(is_root) {
            list.retain(|v| !is_root(v));
            list.insert(at.min(list.len()), idx.into());
        }
    }
    Ok(())
}

/// The scene roots the skeletons do not place (not a bone, not above a skeleton), once each,
/// as the file was read: the nodes a scene turn turns.
fn free_scene_roots(json: &Value, model: &Model) -> Vec<u32> {
    let placed: Vec<u32> = model
        .skeletons
        .iter()
        .flat_map(|s| {
            s.base_nodes
                .iter()
                .copied()
                .chain(s.bones.iter().filter_map(|b| b.node))
        })
        .collect();
    let mut roots: Vec<u32> = json["scenes"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["nodes"].as_array().into_iter().flatten())
        .filter_map(|v| v.as_u64().map(|n| n as u32))
        .filter(|n| !placed.contains(n))
        .collect();
    roots.sort_unstable();
    roots.dedup();
    roots
}

/// Turns each of `roots` by `turn` about the scene origin.
fn turn_scene_roots(json: &mut Value, roots: &[u32], turn: Quat) -> Result<(), ErrorKind> {
    for &n in roots {
        let target = Mat4::from_quat(turn) * stored_local(json, n)?;
        place(json, n, Mat4::IDENTITY, target)?;
    }
    Ok(())
}

/// What a patch adds beside the document's JSON: the new data (in `buffers`), the buffer views
/// and accessors that describe it, held as their members (see `raw_items.rs`), and the
/// channels and samplers of the animations it rebuilt (see `rebuilt.rs`), until the patch is
/// done, rather than built as `Value`s one key at a time.
pub(crate) struct Additions<'a> {
    pub buffers: OutBuffers<'a>,
    pub views: Vec<Members<'static>>,
    pub accessors: Vec<Members<'static>>,
    /// In increasing animation index.
    pub animations: Vec<Rebuilt>,
    /// How many buffer views and accessors the document held before the first addition.
    first: Option<(usize, usize)>,
}

/// The items a patch added beside the document's JSON (see [`Additions`]).
pub(crate) struct AddedItems {
    pub views: Vec<Members<'static>>,
    pub accessors: Vec<Members<'static>>,
    pub animations: Vec<Rebuilt>,
}

impl<'a> Additions<'a> {
    pub(crate) fn new(buffers: OutBuffers<'a>) -> Additions<'a> {
        Additions {
            buffers,
            views: Vec::new(),
            accessors: Vec::new(),
            animations: Vec::new(),
            first: None,
        }
    }

    /// The buffers (the added one's length set in `json`), and the items added.
    pub(crate) fn into_parts(self, json: &mut Value) -> (OutBuffers<'a>, AddedItems) {
        self.buffers.set_length(json);
        let added = AddedItems {
            views: self.views,
            accessors: self.accessors,
            animations: self.animations,
        };
        (self.buffers, added)
    }
}

/// The length of the top-level array `key` of `json`, which is made an empty array when it is
/// missing or no array (where [`push_array`] would make it).
fn array_len(json: &mut Value, key: &str) -> usize {
    array_mut(json, key).map_or(0, |arr| arr.len())
}

/// Appends float data as a new buffer, buffer view and accessor of type `ty`, with `bounds`
/// (the values whose per-component minimum and maximum it records) if given; returns the
/// accessor index.
fn add_accessor(
    json: &mut Value,
    adds: &mut Additions,
    data: Added,
    ty: &str,
    bounds: Option<&[f32]>,
) -> usize {
    let n = match ty {
        "SCALAR" => 1,
        "VEC3" => 3,
        "VEC4" => 4,
        _ => 16,
    };
    let byte_len = data.byte_len();
    let (buffer, offset) = adds.buffers.append(json, data);
    // The arrays are made where the first push into them would make them.
    let (views, accessors) = *adds
        .first
        .get_or_insert_with(|| (array_len(json, "bufferViews"), array_len(json, "accessors")));
    let view = views + adds.views.len();
    adds.views.push(vec![
        ("buffer", Slot::Num(buffer as u64)),
        ("byteOffset", Slot::Num(offset as u64)),
        ("byteLength", Slot::Num(byte_len as u64)),
    ]);
    let mut acc = vec![
        ("bufferView", Slot::Num(view as u64)),
        ("componentType", Slot::Num(5126)),
        ("count", Slot::Num((byte_len / 4 / n) as u64)),
        ("type", Slot::Value(ty.into())),
    ];
    if let Some(data) = bounds {
        let mut lo = vec![f32::INFINITY; n];
        let mut hi = vec![f32::NEG_INFINITY; n];
        for e in data.chunks_exact(n) {
            for c in 0..n {
                lo[c] = lo[c].min(e[c]);
                hi[c] = hi[c].max(e[c]);
            }
        }
        acc.push(("min", Slot::Value(nums(&lo))));
        acc.push(("max", Slot::Value(nums(&hi))));
    }
    adds.accessors.push(acc);
    accessors + adds.accessors.len() - 1
}

/// The maps of [`Rebuild`] (indices, channels, key times' bits): only looked up in, never
/// walked, so what is written does not depend on their hasher ([`FxMap`]'s).
type KeyMap<K> = FxMap<K, usize>;

/// One animation being rebuilt: its new channels and samplers.
struct Rebuild<'a> {
    old_channels: &'a OldItems<'a>,
    old_samplers: &'a OldItems<'a>,
    channels: Vec<AnimItem>,
    samplers: Vec<AnimItem>,
    reused: KeyMap<u64>,
    /// The input accessor of each set of key times written, by their bits.
    inputs: KeyMap<Vec<u32>>,
    /// The same, by the address and length of the times a track shares (looked up first).
    shared_inputs: KeyMap<(usize, usize)>,
    /// The original channel of each (node, bone channel), looked up once per animation.
    targets: KeyMap<(u64, Channel)>,
}

impl Rebuild<'_> {
    /// Keeps an original channel, with its sampler (shared if several channels keep it).
    fn keep_channel(&mut self, c: usize) -> Result<(), ErrorKind> {
        let mut ch = self
            .old_channels
            .get(c)
            .ok_or_else(|| fail(format!("channel {c} does not exist")))?;
        let s = ch["sampler"]
            .as_u64()
            .ok_or_else(|| fail("a channel has no sampler"))?;
        let idx = match self.reused.get(&s) {
            Some(&i) => i,
            None => {
                let sampler = self.old_samplers.get(s as usize).unwrap_or(Value::Null);
                self.samplers.push(AnimItem::Kept(sampler));
                self.reused.insert(s, self.samplers.len() - 1);
                self.samplers.len() - 1
            }
        };
        ch["sampler"] = idx.into();
        self.channels.push(AnimItem::Kept(ch));
        Ok(())
    }

    fn old_channel_for(&self, node: u32, channel: Channel) -> Option<usize> {
        self.targets.get(&(node as u64, channel)).copied()
    }

    /// Adds a sampler and channel for `track`: its key times (an accessor shared by every
    /// track with the same times) and its values (`added` makes them buffer data of type `ty`).
    #[allow(
        clippy::too_many_arguments,
        reason = "one call per channel kind, all named"
    )]
    fn new_track<T: TrackValue>(
        &mut self,
        json: &mut Value,
        adds: &mut Additions,
        node: u32,
        path: &'static str,
        track: &Track<T>,
        added: fn(Arc<[T]>) -> Added,
        ty: &str,
    ) {
        let address = (track.times.as_ptr() as usize, track.times.len());
        let input = match self.shared_inputs.get(&address) {
            Some(&i) => i,
            None => {
                let key: Vec<u32> = track.times.iter().map(|t| t.to_bits()).collect();
                let i = match self.inputs.get(&key) {
                    Some(&i) => i,
                    None => {
                        let data = Added::Floats(track.times.clone());
                        let i = add_accessor(json, adds, data, "SCALAR", Some(&track.times));
                        self.inputs.insert(key, i);
                        i
                    }
                };
                self.shared_inputs.insert(address, i);
                i
            }
        };
        let output = add_accessor(json, adds, added(track.values.clone()), ty, None);
        self.samplers.push(AnimItem::Sampler {
            input: input.into(),
            output: output.into(),
            interpolation: track.interpolation.as_gltf(),
        });
        self.channels.push(AnimItem::Channel {
            sampler: self.samplers.len() as u64 - 1,
            node: node.into(),
            path,
        });
    }
}

/// Puts every animation of `read` into `json`: as read when its clips did not change, else
/// rebuilt; then removes the ones left without clips and adds the clips not read from the file.
fn patch_clips(
    json: &mut Value,
    read: &mut ReadAnimations,
    adds: &mut Additions,
    original: ModelAsRead,
    model: &Model,
) -> Result<(), ErrorKind> {
    let anim_count = json
        .get("animations")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    // The clips of animation `a`, with their indices.
    fn of(clips: &[Clip], a: u32) -> Vec<(usize, &Clip)> {
        let clips = clips.iter().enumerate();
        clips.filter(|(_, c)| c.source == Some(a)).collect()
    }
    let mut removed = Vec::new();
    for a in 0..anim_count as u32 {
        let (new, old) = (of(&model.clips, a), of(&original.model.clips, a));
        let same = new.len() == old.len()
            && new
                .iter()
                .zip(&old)
                .all(|((_, n), (c, _))| original.same_clip(*c, n));
        if same {
            if let Some(slot) = json
                .get_mut("animations")
                .and_then(|v| v.get_mut(a as usize))
            {
                *slot = read.take(a as usize);
            }
            continue;
        }
        if new.is_empty() {
            removed.push(a as usize);
            continue;
        }
        let new: Vec<&Clip> = new.into_iter().map(|(_, c)| c).collect();
        rebuild(
            json,
            read,
            adds,
            model,
            &new,
            (original, &old),
            Some(a as usize),
        )?;
    }
    for clip in model.clips.iter().filter(|c| c.source.is_none()) {
        rebuild(json, read, adds, model, &[clip], (original, &[]), None)?;
    }
    if let Some(anims) = json.get_mut("animations").and_then(Value::as_array_mut) {
        // The animations rebuilt move down past those removed before them.
        for r in &mut adds.animations {
            r.index -= removed.iter().filter(|&&a| a < r.index).count();
        }
        for a in removed.into_iter().rev() {
            anims.remove(a);
        }
    }
    Ok(())
}

/// Whether `new` is a track and the one read as `channel` of bone `b` of clip `clip` of the
/// model as read.
fn is_read<T: ReadValue>(
    original: ModelAsRead,
    clip: Option<usize>,
    b: usize,
    channel: Channel,
    new: &Option<Track<T>>,
) -> bool {
    new.as_ref()
        .is_some_and(|t| clip.is_some_and(|c| original.same_channel(c, b, channel, Some(t))))
}

#[allow(
    clippy::too_many_arguments,
    reason = "the document being patched and what it is made of"
)]
fn rebuild(
    json: &mut Value,
    read: &mut ReadAnimations,
    adds: &mut Additions,
    model: &Model,
    new: &[&Clip],
    (original, old): (ModelAsRead, &[(usize, &Clip)]),
    a: Option<usize>,
) -> Result<(), ErrorKind> {
    // Its channels and samplers as read, taken out (`null` in their places).
    let (mut anim, old_channels, old_samplers) = match a {
        Some(a) => read.take_to_rebuild(a),
        None => (
            json!({}),
            OldItems::Values(vec![]),
            OldItems::Values(vec![]),
        ),
    };
    // gltf-json also takes an animation written as an array, which cannot be edited here.
    if !anim.is_object() {
        return Err(fail(format!(
            "animation {} is not a JSON object",
            a.unwrap_or_default()
        )));
    }
    let mut r = Rebuild {
        old_channels: &old_channels,
        old_samplers: &old_samplers,
        channels: vec![],
        samplers: vec![],
        reused: KeyMap::default(),
        inputs: KeyMap::default(),
        shared_inputs: KeyMap::default(),
        targets: KeyMap::with_capacity_and_hasher(old_channels.len(), Default::default()),
    };
    for c in (0..old_channels.len()).rev() {
        if let Some(target) = old_channels.target(c) {
            r.targets.insert(target, c); // the first channel wins
        }
    }
    for clip in new {
        let skeleton = model
            .get_skeleton(clip.skeleton)
            .ok_or_else(|| fail(format!("clip `{}`: no skeleton", clip.name)))?;
        let before = old.iter().find(|(_, c)| c.skeleton == clip.skeleton);
        for o in &clip.opaque {
            r.keep_channel(o.channel as usize)?;
        }
        for (b, tracks) in clip.tracks.iter().enumerate() {
            if tracks.is_empty() {
                continue;
            }
            let bone = &skeleton.bones[b];
            let node = bone
                .node
                .ok_or_else(|| fail(format!("bone `{}` has no glTF node", bone.name)))?;
            // Whether the track of `channel` is the one read (in the clip read before).
            let read_clip = before.map(|(c, _)| *c);
            for (channel, same) in [
                (
                    Channel::Translation,
                    is_read(
                        original,
                        read_clip,
                        b,
                        Channel::Translation,
                        &tracks.translation,
                    ),
                ),
                (
                    Channel::Rotation,
                    is_read(original, read_clip, b, Channel::Rotation, &tracks.rotation),
                ),
                (
                    Channel::Scale,
                    is_read(original, read_clip, b, Channel::Scale, &tracks.scale),
                ),
            ] {
                if let (true, Some(c)) = (same, r.old_channel_for(node, channel)) {
                    r.keep_channel(c)?;
                    continue;
                }
                let path = channel.as_str();
                match channel {
                    Channel::Translation => tracks
                        .translation
                        .iter()
                        .for_each(|t| r.new_track(json, adds, node, path, t, Added::Vec3s, "VEC3")),
                    Channel::Rotation => tracks
                        .rotation
                        .iter()
                        .for_each(|t| r.new_track(json, adds, node, path, t, Added::Quats, "VEC4")),
                    Channel::Scale => tracks
                        .scale
                        .iter()
                        .for_each(|t| r.new_track(json, adds, node, path, t, Added::Vec3s, "VEC3")),
                }
            }
        }
    }
    let (channels, samplers) = (r.channels, r.samplers);
    // Their places, which `adds.animations` fills (see `rebuilt.rs`).
    anim["channels"] = Value::Null;
    anim["samplers"] = Value::Null;
    // An unnamed animation keeps having no name unless the clip was renamed.
    let unnamed =
        a.is_some_and(|a| anim.get("name").is_none() && new[0].name == format!("animation{a}"));
    if !unnamed {
        anim["name"] = new[0].name.clone().into();
    }
    if let Some(h) = new[0].motion_scale {
        if !anim["extras"].is_object() {
            anim["extras"] = json!({});
        }
        if !anim["extras"]["skelnorm"].is_object() {
            anim["extras"]["skelnorm"] = json!({});
        }
        anim["extras"]["skelnorm"]["motion_scale"] = num(h);
    }
    let index = match a {
        Some(a) => {
            json["animations"][a] = anim;
            a
        }
        None => push_array(json, "animations", anim),
    };
    adds.animations.push(Rebuilt {
        index,
        channels,
        samplers,
    });
    Ok(())
}
