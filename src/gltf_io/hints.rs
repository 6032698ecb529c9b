//! What a file says about its bones beyond the hierarchy: which skin joints carry vertex
//! weights, and the humanoid bone map of a VRM 0.x, VRM 1.0 or VRMA extension.

use super::accessor::Data;
use super::extract::BoneOf;
use super::lazy::Json;
use crate::model::{BoneId, DeclaredMap, DeclaredSource, Skeleton, Warning, WarningCode};
use gltf::json::accessor::Type;
use gltf::json::mesh::Semantic;
use gltf::json::validation::Checked;
use gltf::json::Root;
use serde_json::Value;

/// Marks each bone `weighted` (Some(true/false)) from the skinned meshes' JOINTS_n/WEIGHTS_n.
/// Joints of a skin whose mesh data cannot be read (Draco, unsupported compression) or that no
/// mesh uses are `None` (unknown); bones that are no joint are `Some(false)`.
pub(crate) fn weights(
    root: &Root,
    bone_of: &BoneOf,
    skeletons: &mut [Skeleton],
    data: &mut Data,
    warnings: &mut Vec<Warning>,
) {
    let mut used: Vec<Option<Vec<bool>>> = root
        .skins
        .iter()
        .map(|s| Some(vec![false; s.joints.len()]))
        .collect();
    let mut referenced = vec![false; root.skins.len()];
    for node in &root.nodes {
        let (Some(m), Some(k)) = (node.mesh, node.skin) else {
            continue;
        };
        let (m, k) = (m.value(), k.value());
        referenced[k] = true;
        let Some(mesh) = root.meshes.get(m) else {
            continue;
        };
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let read = if super::bake::is_draco(prim) {
                None
            } else {
                mark(prim, data, used[k].as_deref_mut())
            };
            if read.is_none() {
                if used[k].is_some() {
                    warnings.push(Warning::new(WarningCode::WeightsUnknown, format!(
                        "meshes[{m}].primitives[{p}]: skin weights cannot be read \
                         (compressed or malformed), so which joints of skins[{k}] carry weight is unknown"
                    )));
                }
                used[k] = None;
            }
        }
    }
    for (k, u) in used.iter_mut().enumerate() {
        if !referenced[k] {
            *u = None;
        }
    }
    for b in skeletons.iter_mut().flat_map(|s| s.bones.iter_mut()) {
        b.weighted = Some(false);
    }
    for (k, skin) in root.skins.iter().enumerate() {
        for (j, joint) in skin.joints.iter().enumerate() {
            let Some(&(s, b)) = bone_of.get(&joint.value()) else {
                continue;
            };
            let bone = &mut skeletons[s.index()].bones[b.index()];
            match &used[k] {
                None if bone.weighted != Some(true) => bone.weighted = None,
                Some(u) if u[j] => bone.weighted = Some(true),
                _ => {}
            }
        }
    }
}

/// Sets `used[j]` for every joint index that some vertex weighs above zero. `None` when the
/// attributes cannot be read; `Some(())` otherwise (also when `used` is `None`: nothing to mark).
fn mark(
    prim: &gltf::json::mesh::Primitive,
    data: &mut Data,
    used: Option<&mut [bool]>,
) -> Option<()> {
    let used = used?;
    for (sem, acc) in &prim.attributes {
        let Checked::Valid(Semantic::Joints(set)) = sem else {
            continue;
        };
        let weights = prim
            .attributes
            .iter()
            .find(|(s, _)| matches!(s, Checked::Valid(Semantic::Weights(w)) if w == set))
            .map(|(_, a)| a.value())?;
        let (j, _) = data.floats(acc.value(), &[Type::Vec4]).ok()?;
        let (w, _) = data.floats(weights, &[Type::Vec4]).ok()?;
        for (ji, wi) in j.iter().zip(&w) {
            if *wi > 0.0 {
                if let Some(slot) = used.get_mut(*ji as usize) {
                    *slot = true;
                }
            }
        }
    }
    Some(())
}

/// A humanoid bone map as a VRM extension declares it: its source and its bones that name a
/// node, as (bone name, node); a VRM 0.x bone may lack its name.
pub(crate) type Humanoid = (DeclaredSource, Vec<(Option<String>, u64)>);

/// The humanoid bone maps the VRM extensions of `json` declare, in the order they are looked
/// at: VRM 1.0, VRMA, then VRM 0.x.
pub(crate) fn humanoids(json: &Json) -> Vec<Humanoid> {
    let node = |b: &Value| b.get("node").and_then(Value::as_u64);
    let mut out = Vec::new();
    for (ptr, source) in [
        (
            "/extensions/VRMC_vrm/humanoid/humanBones",
            DeclaredSource::Vrm1,
        ),
        (
            "/extensions/VRMC_vrm_animation/humanoid/humanBones",
            DeclaredSource::VrmAnimation,
        ),
    ] {
        if let Some(bones) = json.pointer(ptr).and_then(Value::as_object) {
            let bones = bones
                .iter()
                .filter_map(|(n, b)| Some((Some(n.clone()), node(b)?)));
            out.push((source, bones.collect()));
        }
    }
    let vrm0 = json.pointer("/extensions/VRM/humanoid/humanBones");
    if let Some(bones) = vrm0.and_then(Value::as_array) {
        let name = |b: &Value| b.get("bone").and_then(Value::as_str).map(str::to_string);
        let bones = bones.iter().filter_map(|b| Some((name(b), node(b)?)));
        out.push((DeclaredSource::Vrm0, bones.collect()));
    }
    out
}

/// Reads the humanoid bone map of a VRM extension (the first of [`humanoids`]) into the skeleton
/// holding the mapped nodes.
pub(crate) fn declared(json: &Json, bone_of: &BoneOf, skeletons: &mut [Skeleton]) {
    let Some((source, entries)) = humanoids(json).into_iter().next() else {
        return;
    };
    let mut per_skeleton: Vec<Vec<(String, BoneId)>> = vec![Vec::new(); skeletons.len()];
    for (name, node) in entries {
        if let (Some(name), Some(&(s, b))) = (name, bone_of.get(&(node as usize))) {
            per_skeleton[s.index()].push((name, b));
        }
    }
    for (s, mut bones) in per_skeleton.into_iter().enumerate() {
        if bones.is_empty() {
            continue;
        }
        bones.sort();
        skeletons[s].declared = Some(DeclaredMap { source, bones });
    }
}
