//! Building the model from a checked document: which nodes form skeletons, their skins and the
//! non-bone nodes hanging from them, and the clips.
//!
//! A skeleton is the joints of one or more skins plus the nodes connecting them (up to their
//! lowest common ancestor), plus the empty nodes below bones (helpers, end sites). Skins that
//! share or hang from each other's nodes form one skeleton. A file without skins takes its
//! skeleton from its VRM humanoid bones, else from its animated nodes (clip-only files), else
//! from its largest tree of empty nodes (a plain node hierarchy).

use super::accessor::Data;
use super::error::{invalid, ErrorKind};
use super::hints;
use super::lazy::Json;
use super::read_keys::ReadValue;
use crate::model::{
    Attachment, Bone, BoneId, BoneTracks, Channel, Clip, Interpolation, Model, NodeName,
    OpaqueKind, OpaqueTrack, Skeleton, SkeletonId, Skin, Track, TrackValue, Transform, Warning,
    WarningCode,
};
use glam::{Mat4, Quat, Vec3};
use gltf::json::accessor::Type;
use gltf::json::animation::{Interpolation as GInterp, Property};
use gltf::json::validation::Checked;
use gltf::json::Root;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The skeleton and bone of each bone node, by glTF node index.
pub(crate) type BoneOf = HashMap<usize, (SkeletonId, BoneId)>;

/// Reads the model: skeletons (with their skins, attachments and hints) first, then the clips
/// that animate them; plus the warnings found on the way.
pub(crate) fn model(
    root: &Root,
    json: &Json,
    parents: &[Option<usize>],
    pointers: &[(usize, usize)],
    data: &mut Data,
) -> Result<(Model, Vec<Warning>), ErrorKind> {
    let mut warnings = Vec::new();
    let locals = node_locals(root, &mut warnings)?;
    let (skeletons, bone_of) = skeletons(root, json, parents, &locals, data, &mut warnings)?;
    let read = Read {
        root,
        json,
        pointers,
        bone_of: &bone_of,
        skeletons: &skeletons,
    };
    let clips = clips(&read, data)?;
    let vrm_points = super::vrm_data::points(json.pointer("/extensions"), &bone_of);
    let other_nodes = root
        .nodes
        .iter()
        .enumerate()
        .filter(|(n, _)| !bone_of.contains_key(n))
        .filter_map(|(n, node)| {
            node.name.clone().map(|name| NodeName {
                node: n as u32,
                name,
            })
        })
        .collect();
    Ok((
        Model {
            skeletons,
            clips,
            other_nodes,
            scene_turn: glam::Quat::IDENTITY,
            view_turn: view_turn(json),
            points: vrm_points,
        },
        warnings,
    ))
}

/// The turn VRM 0.x clients give the scene on load (180° about +Y: the convention faces −Z),
/// else identity. Exactly (0, 1, 0, 0), so turning by it only flips signs.
fn view_turn(json: &Json) -> Quat {
    if json.pointer("/extensions/VRM").is_some() {
        Quat::from_xyzw(0.0, 1.0, 0.0, 0.0)
    } else {
        Quat::IDENTITY
    }
}

/// Skeleton discovery: which nodes form each skeleton, its skins, the non-bone nodes hanging
/// from it and the hints read from weights and declared humanoids; with the skeleton and bone
/// of every bone node.
fn skeletons(
    root: &Root,
    json: &Json,
    parents: &[Option<usize>],
    locals: &[Transform],
    data: &mut Data,
    warnings: &mut Vec<Warning>,
) -> Result<(Vec<Skeleton>, BoneOf), ErrorKind> {
    let groups = skeleton_nodes(root, json, parents);
    let mut skeletons = Vec::with_capacity(groups.len());
    let joints: HashSet<usize> = root
        .skins
        .iter()
        .flat_map(|s| s.joints.iter().map(|j| j.value()))
        .collect();
    let mut bone_of: BoneOf = HashMap::new();
    for (s, nodes) in (0..).map(SkeletonId).zip(&groups) {
        let sk = build_skeleton(root, parents, locals, nodes, s, &joints, &mut bone_of)?;
        skeletons.push(sk);
    }
    for (k, skin) in root.skins.iter().enumerate() {
        let Some(&(s, _)) = skin.joints.first().and_then(|j| bone_of.get(&j.value())) else {
            continue;
        };
        let joints: Vec<BoneId> = skin.joints.iter().map(|j| bone_of[&j.value()].1).collect();
        let inverse_bind_matrices = inverse_binds(skin, k, joints.len(), data)?;
        let name = skin.name.clone().unwrap_or_default();
        skeletons[s.index()].skins.push(Skin {
            name,
            joints,
            inverse_bind_matrices,
            source: Some(k as u32),
            bake: Vec::new(),
            fixed_vertices: None,
            meshless: false,
        });
    }
    attach(root, parents, locals, &bone_of, &mut skeletons);
    hints::weights(root, &bone_of, &mut skeletons, data, warnings);
    super::bake::mark_fixed(root, &mut skeletons);
    hints::declared(json, &bone_of, &mut skeletons);
    Ok((skeletons, bone_of))
}

/// The inverse bind matrices of skin `k` for its `joints` joints (identities when it has none);
/// an error when the accessor holds fewer or non-finite matrices.
fn inverse_binds(
    skin: &gltf::json::Skin,
    k: usize,
    joints: usize,
    data: &mut Data,
) -> Result<Vec<Mat4>, ErrorKind> {
    let Some(a) = skin.inverse_bind_matrices else {
        return Ok(vec![Mat4::IDENTITY; joints]);
    };
    let (m, _) = data.floats(a.value(), &[Type::Mat4])?;
    if m.len() / 16 < joints {
        return Err(invalid(
            format!("skins[{k}]"),
            format!(
                "{} inverse bind matrices for {} joints",
                m.len() / 16,
                joints
            ),
        ));
    }
    let mats: Vec<Mat4> = m
        .chunks_exact(16)
        .take(joints)
        .map(Mat4::from_cols_slice)
        .collect();
    if mats.iter().any(|m| !m.is_finite()) {
        return Err(invalid(
            format!("accessors[{}]", a.value()),
            "holds a non-finite matrix",
        ));
    }
    Ok(mats)
}

fn node_locals(root: &Root, warnings: &mut Vec<Warning>) -> Result<Vec<Transform>, ErrorKind> {
    let mut out = Vec::with_capacity(root.nodes.len());
    for (i, n) in root.nodes.iter().enumerate() {
        let t = if let Some(m) = n.matrix {
            let mat = Mat4::from_cols_array(&m);
            let t = Transform::from_mat4(&mat);
            if mat.is_finite()
                && !t.to_mat4().abs_diff_eq(
                    mat,
                    1e-4 * mat
                        .abs()
                        .to_cols_array()
                        .iter()
                        .fold(1.0, |a: f32, b| a.max(*b)),
                )
            {
                warnings.push(Warning::new(
                    WarningCode::MatrixShear,
                    format!("nodes[{i}]: matrix has shear, which is dropped"),
                ));
            }
            t
        } else {
            Transform {
                translation: n.translation.map_or(Vec3::ZERO, Vec3::from),
                rotation: n.rotation.map_or(Quat::IDENTITY, |q| Quat::from_array(q.0)),
                scale: n.scale.map_or(Vec3::ONE, Vec3::from),
            }
        };
        if !(t.translation.is_finite() && t.rotation.is_finite() && t.scale.is_finite()) {
            return Err(invalid(format!("nodes[{i}]"), "transform is not finite"));
        }
        if (t.rotation.length() - 1.0).abs() > 1e-2 {
            return Err(invalid(
                format!("nodes[{i}]"),
                "rotation is not a unit quaternion",
            ));
        }
        out.push(t);
    }
    Ok(out)
}

fn depth(parents: &[Option<usize>], mut n: usize) -> usize {
    let mut d = 0;
    while let Some(p) = parents[n] {
        n = p;
        d += 1;
    }
    d
}

fn lca(parents: &[Option<usize>], a: usize, b: usize) -> Option<usize> {
    let (mut a, mut b) = (a, b);
    let (mut da, mut db) = (depth(parents, a), depth(parents, b));
    while da > db {
        a = parents[a]?;
        da -= 1;
    }
    while db > da {
        b = parents[b]?;
        db -= 1;
    }
    while a != b {
        a = parents[a]?;
        b = parents[b]?;
    }
    Some(a)
}

fn find(uf: &mut [usize], mut x: usize) -> usize {
    while uf[x] != x {
        uf[x] = uf[uf[x]];
        x = uf[x];
    }
    x
}

/// Seed nodes for files without skins: VRM humanoid bones, else nodes with TRS channels.
fn skinless_seeds(root: &Root, json: &Json) -> Vec<Vec<usize>> {
    let mut seeds: Vec<usize> = hints::humanoids(json)
        .into_iter()
        .flat_map(|(_, bones)| bones)
        .map(|(_, node)| node as usize)
        .filter(|&n| n < root.nodes.len())
        .collect();
    if seeds.is_empty() {
        for anim in &root.animations {
            for ch in &anim.channels {
                if matches!(
                    ch.target.path,
                    Checked::Valid(Property::Translation | Property::Rotation | Property::Scale)
                ) {
                    seeds.push(ch.target.node.value());
                }
            }
        }
    }
    if seeds.is_empty() {
        seeds = plain_tree(root);
    }
    seeds.sort_unstable();
    seeds.dedup();
    if seeds.is_empty() {
        vec![]
    } else {
        vec![seeds]
    }
}

/// A plain node hierarchy with no skin, humanoid extension or animation: the largest tree of
/// empty nodes (no mesh, camera or skin), when it has at least [`PLAIN_TREE_MIN`] nodes and is at
/// least four deep, is taken as the skeleton.
fn plain_tree(root: &Root) -> Vec<usize> {
    let n = root.nodes.len();
    let mut parent = vec![None; n];
    for (i, node) in root.nodes.iter().enumerate() {
        for c in node.children.iter().flatten() {
            if c.value() < n {
                parent[c.value()] = Some(i);
            }
        }
    }
    let empty: Vec<bool> = (0..n).map(|i| is_empty_node(root, i)).collect();
    // Each empty node's top: the highest empty ancestor reached through empty nodes only.
    let mut best: Vec<usize> = Vec::new();
    let mut seen = vec![false; n];
    for top in (0..n).filter(|&i| empty[i] && parent[i].is_none_or(|p| !empty[p])) {
        let mut tree = vec![top];
        let mut depth = vec![0usize];
        seen[top] = true;
        let mut k = 0;
        while k < tree.len() {
            let (at, d) = (tree[k], depth[k]);
            for c in root.nodes[at].children.iter().flatten().map(|c| c.value()) {
                if c < n && empty[c] && !seen[c] {
                    seen[c] = true;
                    tree.push(c);
                    depth.push(d + 1);
                }
            }
            k += 1;
        }
        let deep = depth.iter().copied().max().unwrap_or(0) >= 3;
        if deep && tree.len() >= PLAIN_TREE_MIN && tree.len() > best.len() {
            best = tree;
        }
    }
    best
}

/// The fewest nodes a plain node hierarchy needs to be taken as a skeleton.
const PLAIN_TREE_MIN: usize = 8;

fn is_empty_node(root: &Root, n: usize) -> bool {
    let node = &root.nodes[n];
    node.mesh.is_none() && node.camera.is_none() && node.skin.is_none() && node.extensions.is_none()
}

/// Per node, whether a clip keys its translation, rotation or scale.
fn animated_nodes(root: &Root) -> Vec<bool> {
    let mut out = vec![false; root.nodes.len()];
    for ch in root.animations.iter().flat_map(|a| &a.channels) {
        let node = ch.target.node.value();
        if node < out.len()
            && matches!(
                ch.target.path,
                Checked::Valid(Property::Translation | Property::Rotation | Property::Scale)
            )
        {
            out[node] = true;
        }
    }
    out
}

/// The top of a skin's joints raised to the highest empty node above it that a clip animates
/// (with the empty nodes between): a node that moves the whole body in a clip is a bone of the
/// skeleton, not a fixed base. A 3ds Max Biped keeps its body's motion in `Bip001`, the root
/// above `Bip001 Pelvis` (the joints' top), which no vertex is weighted to.
fn animated_top(root: &Root, parents: &[Option<usize>], animated: &[bool], top: usize) -> usize {
    let (mut best, mut at) = (top, parents[top]);
    while let Some(p) = at.filter(|&p| is_empty_node(root, p)) {
        if animated[p] {
            best = p;
        }
        at = parents[p];
    }
    best
}

/// The node sets of the skeletons, each in bone order (parents first), sorted by first node.
fn skeleton_nodes(root: &Root, json: &Json, parents: &[Option<usize>]) -> Vec<Vec<usize>> {
    let n = root.nodes.len();
    let sets: Vec<Vec<usize>> = if root.skins.iter().any(|s| !s.joints.is_empty()) {
        root.skins
            .iter()
            .map(|s| s.joints.iter().map(|j| j.value()).collect())
            .collect()
    } else {
        skinless_seeds(root, json)
    };
    let mut marked = vec![false; n];
    let mut uf: Vec<usize> = (0..n).collect();
    let animated = animated_nodes(root);
    for set in sets.iter().filter(|s| !s.is_empty()) {
        let top = set
            .iter()
            .skip(1)
            .try_fold(set[0], |a, &b| lca(parents, a, b))
            .map(|t| animated_top(root, parents, &animated, t));
        for &j in set {
            let mut at = Some(j);
            while let Some(i) = at {
                marked[i] = true;
                if Some(i) == top {
                    break;
                }
                at = parents[i];
            }
            let (a, b) = (find(&mut uf, j), find(&mut uf, set[0]));
            uf[a] = b;
        }
    }
    // Empty nodes below marked nodes (helpers, end sites) are bones too.
    for i in 0..n {
        if marked[i] {
            let mut stack: Vec<usize> = root.nodes[i]
                .children
                .iter()
                .flatten()
                .map(|c| c.value())
                .collect();
            while let Some(c) = stack.pop() {
                if !marked[c] && is_empty_node(root, c) {
                    marked[c] = true;
                    stack.extend(root.nodes[c].children.iter().flatten().map(|c| c.value()));
                }
            }
        }
    }
    for i in 0..n {
        if let Some(p) = parents[i] {
            if marked[i] && marked[p] {
                let (a, b) = (find(&mut uf, i), find(&mut uf, p));
                uf[a] = b;
            }
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    // Roots in node order, then a depth-first walk in child order: parents before children.
    for r in (0..n).filter(|&i| marked[i] && parents[i].is_none_or(|p| !marked[p])) {
        let g = find(&mut uf, r);
        let k = *group_of.entry(g).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        let mut stack = vec![r];
        while let Some(i) = stack.pop() {
            groups[k].push(i);
            let kids = root.nodes[i]
                .children
                .iter()
                .flatten()
                .map(|c| c.value())
                .filter(|&c| marked[c]);
            let kids: Vec<usize> = kids.collect();
            stack.extend(kids.into_iter().rev());
        }
    }
    groups
}

fn node_world(parents: &[Option<usize>], locals: &[Transform], n: usize) -> (Mat4, Vec<u32>) {
    let mut path = vec![n];
    let mut at = n;
    while let Some(p) = parents[at] {
        path.push(p);
        at = p;
    }
    path.reverse();
    let m = path
        .iter()
        .fold(Mat4::IDENTITY, |m, &i| m * locals[i].to_mat4());
    (m, path.into_iter().map(|i| i as u32).collect())
}

fn build_skeleton(
    root: &Root,
    parents: &[Option<usize>],
    locals: &[Transform],
    nodes: &[usize],
    index: SkeletonId,
    joints: &HashSet<usize>,
    bone_of: &mut BoneOf,
) -> Result<Skeleton, ErrorKind> {
    let mut bones = Vec::with_capacity(nodes.len());
    for (b, &n) in nodes.iter().enumerate() {
        bone_of.insert(n, (index, BoneId(b as u32)));
        let parent = parents[n].and_then(|p| bone_of.get(&p)).map(|&(_, id)| id);
        let name = root.nodes[n]
            .name
            .clone()
            .unwrap_or_else(|| format!("node{n}"));
        bones.push(Bone {
            name,
            parent,
            rest: locals[n],
            is_joint: joints.contains(&n),
            weighted: None,
            node: Some(n as u32),
        });
    }
    let roots: Vec<usize> = nodes
        .iter()
        .copied()
        .filter(|&n| parents[n].is_none_or(|p| !bone_of.contains_key(&p)))
        .collect();
    let (base, base_nodes, name) = match (roots.as_slice(), roots.first().and_then(|&r| parents[r]))
    {
        ([_], Some(p)) => {
            let (m, path) = node_world(parents, locals, p);
            (m, path, root.nodes[p].name.clone())
        }
        _ => (Mat4::IDENTITY, Vec::new(), None),
    };
    if !base.is_finite() {
        return Err(invalid(
            format!("nodes[{}]", base_nodes.last().unwrap_or(&0)),
            "world transform is not finite",
        ));
    }
    let name = name.unwrap_or_else(|| format!("skeleton {index}"));
    Ok(Skeleton {
        name,
        bones,
        skins: Vec::new(),
        attachments: Vec::new(),
        base,
        base_nodes,
        declared: None,
    })
}

fn attach(
    root: &Root,
    parents: &[Option<usize>],
    locals: &[Transform],
    bone_of: &BoneOf,
    skeletons: &mut [Skeleton],
) {
    for (n, node) in root.nodes.iter().enumerate() {
        if bone_of.contains_key(&n) {
            continue;
        }
        if let Some(&(s, parent)) = parents[n].and_then(|p| bone_of.get(&p)) {
            let name = node.name.clone().unwrap_or_else(|| format!("node{n}"));
            skeletons[s.index()].attachments.push(Attachment {
                name,
                parent,
                transform: locals[n],
                node: Some(n as u32),
            });
        }
    }
}

fn interpolation(root: &Root, a: usize, s: usize) -> Result<Interpolation, ErrorKind> {
    match root.animations[a].samplers[s].interpolation {
        Checked::Valid(GInterp::Linear) => Ok(Interpolation::Linear),
        Checked::Valid(GInterp::Step) => Ok(Interpolation::Step),
        Checked::Valid(GInterp::CubicSpline) => Ok(Interpolation::CubicSpline),
        Checked::Invalid => Err(invalid(
            format!("animations[{a}].samplers[{s}]"),
            "unknown interpolation",
        )),
    }
}

/// Reads a sampler's key times and values (accessors of type `ty`, elements made by `make`),
/// checking their counts and that they are finite.
fn sampler<T: TrackValue + ReadValue, const N: usize>(
    root: &Root,
    data: &mut Data,
    a: usize,
    s: usize,
    ty: Type,
    make: impl Fn([f32; N]) -> T,
) -> Result<Track<T>, ErrorKind> {
    // Named only in an error: not formatted for every sampler read.
    let at = || format!("animations[{a}].samplers[{s}]");
    let smp = &root.animations[a].samplers[s];
    let interpolation = interpolation(root, a, s)?;
    let (times, ok) = data.checked_key_times(smp.input.value())?;
    if !ok {
        return Err(invalid(at(), "key times are not finite and increasing"));
    }
    let times = times.clone();
    // Values let go are checked where they lie, not built.
    let (values, (len, finite)) = if data.keep_keys {
        let (values, at) = data.elements_located(smp.output.value(), ty, make)?;
        if let Some(at) = at {
            data.located.note(&values, at);
        }
        let checked = (values.len(), T::all_finite(&values));
        (values, checked)
    } else {
        let checked = data.checked_elements(smp.output.value(), ty, make)?;
        (Arc::from([]), checked)
    };
    let per_key = if interpolation == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    if times.is_empty() || len != times.len() * per_key {
        return Err(invalid(
            at(),
            format!("{len} output values for {} keys", times.len()),
        ));
    }
    if !finite {
        return Err(invalid(at(), "output holds non-finite values"));
    }
    Ok(Track {
        interpolation,
        times,
        values,
    })
}

/// The clips of every animation, in animation order: one per skeleton it animates (the first
/// also carries the channels that are not bone transforms).
fn clips(read: &Read<'_>, data: &mut Data) -> Result<Vec<Clip>, ErrorKind> {
    let mut out = Vec::new();
    for a in 0..read.root.animations.len() {
        out.extend(animation_clips(read, data, a)?);
    }
    Ok(out)
}

/// What reading an animation's clips takes beside a [`Data`]: the document and the skeletons
/// read.
struct Read<'r> {
    root: &'r Root,
    json: &'r Json,
    pointers: &'r [(usize, usize)],
    bone_of: &'r BoneOf,
    skeletons: &'r [Skeleton],
}

/// The clips of animation `a`: one per skeleton it animates, or one clip of skeleton 0 when it
/// animates no bone; the first carries the opaque channels, in channel order.
fn animation_clips(read: &Read<'_>, data: &mut Data, a: usize) -> Result<Vec<Clip>, ErrorKind> {
    let Read {
        root,
        json,
        pointers,
        bone_of,
        skeletons,
    } = *read;
    let anim = &root.animations[a];
    let name = anim.name.clone().unwrap_or_else(|| format!("animation{a}"));
    // The animation's extras as the typed document holds them (their text): not the whole
    // `animations` parsed into `Value`s.
    let extras: Option<Value> = anim
        .extras
        .as_ref()
        .and_then(|raw| serde_json::from_str(raw.get()).ok());
    let motion_scale = extras
        .as_ref()
        .and_then(|e| e.pointer("/skelnorm/motion_scale"))
        .and_then(Value::as_f64)
        .map(|h| h as f32)
        .filter(|h| h.is_finite() && *h > 0.0);
    let mut per_skeleton: Vec<Option<Clip>> = vec![None; skeletons.len()];
    // Channel indices in the original JSON: the typed list skips pointer channels.
    let original: Vec<usize> = {
        let total = anim.channels.len() + pointers.iter().filter(|p| p.0 == a).count();
        (0..total)
            .filter(|c| !pointers.contains(&(a, *c)))
            .collect()
    };
    let mut opaque = pointer_tracks(root, json, pointers, data, a)?;
    for (c, ch) in anim.channels.iter().enumerate() {
        let s = ch.sampler.value();
        let node = ch.target.node.value();
        let channel = original[c] as u32;
        let path = match ch.target.path {
            Checked::Valid(p) => p,
            Checked::Invalid => {
                return Err(invalid(
                    format!("animations[{a}].channels[{}]", channel),
                    "unknown target path",
                ))
            }
        };
        let bone = bone_of.get(&node).copied();
        let clip = bone.map(|(sk, _)| {
            per_skeleton[sk.index()].get_or_insert_with(|| Clip {
                name: name.clone(),
                skeleton: sk,
                tracks: vec![BoneTracks::default(); skeletons[sk.index()].bones.len()],
                opaque: Vec::new(),
                source: Some(a as u32),
                motion_scale,
                curves: Vec::new(),
            })
        });
        let placed = match (clip, bone, path) {
            (
                Some(clip),
                Some((_, b)),
                Property::Translation | Property::Rotation | Property::Scale,
            ) => put_track(root, data, a, s, &mut clip.tracks[b.index()], path)?,
            _ => false,
        };
        if !placed {
            let input = root.animations[a].samplers[s].input.value();
            let duration = data.key_times(input)?.last().copied().unwrap_or(0.0);
            let kind = match path {
                Property::MorphTargetWeights => OpaqueKind::Weights { node: node as u32 },
                p => OpaqueKind::NodeTransform {
                    node: node as u32,
                    path: property_name(p).into(),
                },
            };
            opaque.push(OpaqueTrack {
                kind,
                channel,
                duration,
            });
        }
    }
    opaque.sort_by_key(|o| o.channel);
    let mut made: Vec<Clip> = per_skeleton.into_iter().flatten().collect();
    if made.is_empty() && !skeletons.is_empty() {
        made.push(Clip {
            name: name.clone(),
            skeleton: SkeletonId(0),
            tracks: vec![BoneTracks::default(); skeletons[0].bones.len()],
            opaque: Vec::new(),
            source: Some(a as u32),
            motion_scale,
            curves: Vec::new(),
        });
    }
    if let Some(first) = made.first_mut() {
        first.opaque = opaque;
    }
    Ok(made)
}

/// The `KHR_animation_pointer` channels of animation `a`, carried through as opaque tracks.
fn pointer_tracks(
    root: &Root,
    json: &Json,
    pointers: &[(usize, usize)],
    data: &mut Data,
    a: usize,
) -> Result<Vec<OpaqueTrack>, ErrorKind> {
    let mut opaque = Vec::new();
    for &(pa, pc) in pointers.iter().filter(|p| p.0 == a) {
        let ch = json
            .pointer(&format!("/animations/{pa}/channels/{pc}"))
            .unwrap_or(&Value::Null);
        let pointer = ch
            .pointer("/target/extensions/KHR_animation_pointer/pointer")
            .and_then(Value::as_str)
            .unwrap_or("(no target node)")
            .to_string();
        let duration = channel_duration(json, root, data, pa, ch)?;
        opaque.push(OpaqueTrack {
            kind: OpaqueKind::Pointer { pointer },
            channel: pc as u32,
            duration,
        });
    }
    Ok(opaque)
}

fn channel_duration(
    json: &Json,
    root: &Root,
    data: &mut Data,
    a: usize,
    ch: &Value,
) -> Result<f32, ErrorKind> {
    let s = ch
        .get("sampler")
        .and_then(Value::as_u64)
        .unwrap_or(u64::MAX) as usize;
    let input = json
        .pointer(&format!("/animations/{a}/samplers/{s}/input"))
        .and_then(Value::as_u64);
    let input = input
        .filter(|&i| (i as usize) < root.accessors.len())
        .ok_or_else(|| {
            invalid(
                format!("animations[{a}]"),
                "a pointer channel names a missing sampler or accessor",
            )
        })?;
    Ok(data
        .key_times(input as usize)?
        .last()
        .copied()
        .unwrap_or(0.0))
}

fn property_name(p: Property) -> &'static str {
    match p {
        Property::Translation => Channel::Translation.as_str(),
        Property::Rotation => Channel::Rotation.as_str(),
        Property::Scale => Channel::Scale.as_str(),
        Property::MorphTargetWeights => "weights",
    }
}

/// Puts a TRS track on a bone; returns false if the bone already has that channel (the second
/// channel is then carried through as opaque).
fn put_track(
    root: &Root,
    data: &mut Data,
    a: usize,
    s: usize,
    tracks: &mut BoneTracks,
    path: Property,
) -> Result<bool, ErrorKind> {
    let taken = match path {
        Property::Translation => tracks.translation.is_some(),
        Property::Rotation => tracks.rotation.is_some(),
        _ => tracks.scale.is_some(),
    };
    if taken {
        return Ok(false);
    }
    match path {
        Property::Rotation => {
            let rotation = sampler(root, data, a, s, Type::Vec4, Quat::from_array)?;
            tracks.rotation = Some(rotation);
        }
        _ => {
            let track = Some(sampler(root, data, a, s, Type::Vec3, Vec3::from_array)?);
            if path == Property::Translation {
                tracks.translation = track;
            } else {
                tracks.scale = track;
            }
        }
    }
    Ok(true)
}
