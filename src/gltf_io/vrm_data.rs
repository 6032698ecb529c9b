//! The VRM data that lives in a bone's own space or in the scene's, kept where it was when bones
//! change their rest frames or the scene turns (issue 40): spring-bone colliders (VRM 0.x
//! `secondaryAnimation.colliderGroups`, VRM 1.0 `VRMC_springBone` colliders and the extended
//! colliders of `VRMC_springBone_extended_collider`), the look-at origin (VRM 1.0
//! `lookAt.offsetFromHeadBone`, VRM 0.x `firstPerson.firstPersonBoneOffset`) and gravity
//! directions. The humanoid map names nodes, which never change, so it needs nothing.
//!
//! A point `o` given in bone `i`'s space stands at `W_i · o` in the scene as read; the same point
//! of the written file, whose scene turned by `T`, is `o' = W'_i⁻¹ · T · W_i · o` (joints do not
//! move, so this only turns, and scales where units were folded in). VRM 0.x stores such points
//! with z negated (Unity's left-handed axes), as three-vrm reads them.

use super::error::ErrorKind;
use crate::model::Model;
use glam::{Mat3, Mat4, Quat, Vec3};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The look-at origin three-vrm takes when a file gives none, in the head bone's space.
const LOOK_AT_DEFAULT: [f32; 3] = [0.0, 0.06, 0.0];

/// How a point or direction is stored: glTF's axes, or VRM 0.x's (z negated).
#[derive(Clone, Copy)]
enum Axes {
    Gltf,
    Vrm0,
}

impl Axes {
    fn to_gltf(self, v: Vec3) -> Vec3 {
        match self {
            Axes::Gltf => v,
            Axes::Vrm0 => Vec3::new(v.x, v.y, -v.z),
        }
    }
}

/// The change of a node's space: what a point given in it becomes, and how a length scales.
/// Linear: the bone's joint stays where it was in the (turned) scene, so its origin maps to its
/// origin.
struct Change {
    linear: Mat3,
}

impl Change {
    fn point(&self, p: Vec3) -> Vec3 {
        self.linear * p
    }
    fn direction(&self, d: Vec3) -> Vec3 {
        (self.linear * d).normalize_or(d)
    }
    fn length(&self, r: f32) -> f32 {
        r * self.linear.determinant().abs().cbrt()
    }
}

/// Below this (per matrix element) a bone's space did not change: rounding of an unchanged rest
/// (normalizing a normalized file), which must leave the data as it was.
const CHANGE_NOISE: f32 = 1e-5;

/// Per bone node whose space changed: the linear part of `W'⁻¹ · T · W`.
fn changes(original: &Model, model: &Model, turn: Quat) -> HashMap<u64, Change> {
    let t = Mat4::from_quat(turn);
    let mut out = HashMap::new();
    for (old, new) in original.skeletons.iter().zip(&model.skeletons) {
        let (w, w2) = (old.rest_world(), new.rest_world());
        for ((b, w), w2) in old.bones.iter().zip(&w).zip(&w2) {
            let Some(node) = b.node else { continue };
            let m = Mat3::from_mat4(w2.inverse() * t * *w);
            if !m.abs_diff_eq(Mat3::IDENTITY, CHANGE_NOISE) && m.is_finite() {
                out.insert(u64::from(node), Change { linear: m });
            }
        }
    }
    out
}

fn vec3_of(v: &Value, axes: Axes) -> Option<Vec3> {
    let v = match v {
        Value::Array(a) if a.len() == 3 => Vec3::new(
            a[0].as_f64()? as f32,
            a[1].as_f64()? as f32,
            a[2].as_f64()? as f32,
        ),
        Value::Object(o) => {
            let c = |k: &str| o.get(k).and_then(Value::as_f64).unwrap_or(0.0) as f32;
            Vec3::new(c("x"), c("y"), c("z"))
        }
        _ => return None,
    };
    Some(axes.to_gltf(v))
}

/// Writes `v` (glTF axes) back in the shape and axes `slot` had.
fn set_vec3(slot: &mut Value, v: Vec3, axes: Axes) {
    let v = axes.to_gltf(v); // the z flip is its own inverse
    let n = |x: f32| super::patch::num(x);
    match slot {
        Value::Array(a) => *a = vec![n(v.x), n(v.y), n(v.z)],
        Value::Object(o) => {
            o.insert("x".into(), n(v.x));
            o.insert("y".into(), n(v.y));
            o.insert("z".into(), n(v.z));
        }
        _ => {}
    }
}

/// Rewrites the vector at `key` as `f` maps it, unless it stays what it was (a zero offset, a
/// direction along the turn's axis): the file keeps its own numbers then.
fn map_vec3(obj: &mut Map<String, Value>, key: &str, axes: Axes, f: impl Fn(Vec3) -> Vec3) {
    if let Some(slot) = obj.get_mut(key) {
        if let Some(v) = vec3_of(slot, axes) {
            let new = f(v);
            if !new.abs_diff_eq(v, 1e-7 * v.length().max(1e-3)) {
                set_vec3(slot, new, axes);
            }
        }
    }
}

fn point(obj: &mut Map<String, Value>, key: &str, c: &Change, axes: Axes) {
    map_vec3(obj, key, axes, |v| c.point(v));
}

fn direction(obj: &mut Map<String, Value>, key: &str, c: &Change, axes: Axes) {
    map_vec3(obj, key, axes, |v| c.direction(v));
}

fn length(obj: &mut Map<String, Value>, key: &str, c: &Change) {
    if let Some(r) = obj.get(key).and_then(Value::as_f64) {
        let new = c.length(r as f32);
        if (new - r as f32).abs() > 1e-7 * new.abs() {
            obj.insert(key.into(), super::patch::num(new));
        }
    }
}

fn node_of(obj: &Map<String, Value>, key: &str) -> Option<u64> {
    obj.get(key).and_then(Value::as_u64)
}

fn objects(v: Option<&mut Value>) -> impl Iterator<Item = &mut Map<String, Value>> {
    v.and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
}

/// Keeps the VRM data of `json` where it was, given the model as read (`original`), the model
/// written and the scene's turn between them. Leaves everything else alone; a file without VRM
/// data is not touched.
pub(crate) fn apply(
    json: &mut Value,
    original: &Model,
    model: &Model,
    turn: Quat,
) -> Result<(), ErrorKind> {
    let Some(ext) = json.get_mut("extensions").and_then(Value::as_object_mut) else {
        return Ok(());
    };
    if !["VRM", "VRMC_vrm", "VRMC_springBone"]
        .iter()
        .any(|k| ext.contains_key(*k))
    {
        return Ok(());
    }
    let changes = changes(original, model, turn);
    let scene = Change {
        linear: Mat3::from_quat(turn),
    };
    if let Some(vrm) = ext.get_mut("VRM").and_then(Value::as_object_mut) {
        vrm0(vrm, &changes, &scene);
    }
    if let Some(vrm) = ext.get_mut("VRMC_vrm").and_then(Value::as_object_mut) {
        let head = vrm
            .get("humanoid")
            .and_then(|h| h.pointer("/humanBones/head/node"))
            .and_then(Value::as_u64);
        if let (Some(c), Some(look)) = (
            head.and_then(|h| changes.get(&h)),
            vrm.get_mut("lookAt").and_then(Value::as_object_mut),
        ) {
            look.entry("offsetFromHeadBone")
                .or_insert_with(|| serde_json::json!(LOOK_AT_DEFAULT));
            point(look, "offsetFromHeadBone", c, Axes::Gltf);
        }
    }
    if let Some(spring) = ext
        .get_mut("VRMC_springBone")
        .and_then(Value::as_object_mut)
    {
        for collider in objects(spring.get_mut("colliders")) {
            let Some(c) = node_of(collider, "node").and_then(|n| changes.get(&n)) else {
                continue;
            };
            if let Some(shape) = collider.get_mut("shape").and_then(Value::as_object_mut) {
                vrm1_shape(shape, c);
            }
            let extended = collider
                .get_mut("extensions")
                .and_then(|e| e.get_mut("VRMC_springBone_extended_collider"))
                .and_then(|e| e.get_mut("shape"))
                .and_then(Value::as_object_mut);
            if let Some(shape) = extended {
                vrm1_shape(shape, c);
            }
        }
        let springs = if scene.linear == Mat3::IDENTITY {
            None
        } else {
            spring.get_mut("springs")
        };
        for spring in objects(springs) {
            for joint in objects(spring.get_mut("joints")) {
                direction(joint, "gravityDir", &scene, Axes::Gltf);
            }
        }
    }
    Ok(())
}

/// A VRM 1.0 collider shape (sphere, capsule, plane), in its node's space.
fn vrm1_shape(shape: &mut Map<String, Value>, c: &Change) {
    for (kind, shape) in shape.iter_mut() {
        let Some(s) = shape.as_object_mut() else {
            continue;
        };
        point(s, "offset", c, Axes::Gltf);
        length(s, "radius", c);
        if kind == "capsule" {
            point(s, "tail", c, Axes::Gltf);
        }
        if kind == "plane" {
            direction(s, "normal", c, Axes::Gltf);
        }
    }
}

/// VRM 0.x: colliders and the first-person bone offset (z negated), gravity directions (as
/// three-vrm reads them: as they are).
fn vrm0(vrm: &mut Map<String, Value>, changes: &HashMap<u64, Change>, scene: &Change) {
    let head = vrm
        .get("humanoid")
        .and_then(|h| h.get("humanBones"))
        .and_then(Value::as_array)
        .and_then(|bones| {
            bones
                .iter()
                .find(|b| b.get("bone").and_then(Value::as_str) == Some("head"))
        })
        .and_then(|b| b.get("node"))
        .and_then(Value::as_u64);
    if let Some(first) = vrm.get_mut("firstPerson").and_then(Value::as_object_mut) {
        let bone = node_of(first, "firstPersonBone").or(head);
        if let Some(c) = bone.and_then(|n| changes.get(&n)) {
            first.entry("firstPersonBoneOffset").or_insert_with(|| {
                let [x, y, z] = LOOK_AT_DEFAULT;
                serde_json::json!({ "x": x, "y": y, "z": z })
            });
            point(first, "firstPersonBoneOffset", c, Axes::Vrm0);
        }
    }
    let Some(secondary) = vrm
        .get_mut("secondaryAnimation")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    for group in objects(secondary.get_mut("colliderGroups")) {
        let Some(c) = node_of(group, "node").and_then(|n| changes.get(&n)) else {
            continue;
        };
        for collider in objects(group.get_mut("colliders")) {
            point(collider, "offset", c, Axes::Vrm0);
            length(collider, "radius", c);
        }
    }
    if scene.linear != Mat3::IDENTITY {
        for group in objects(secondary.get_mut("boneGroups")) {
            direction(group, "gravityDir", scene, Axes::Gltf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Bone, BoneId, Skeleton, Transform};
    use serde_json::json;

    fn bone(name: &str, parent: Option<u32>, node: u32, rest: Transform) -> Bone {
        Bone {
            name: name.into(),
            parent: parent.map(BoneId),
            rest,
            is_joint: true,
            weighted: None,
            node: Some(node),
        }
    }

    /// A hips at 1 m and a head 0.5 m above it, with the head's rest rotation `head`.
    fn model(head: Quat, turn: Quat) -> Model {
        let hips = Transform {
            translation: Vec3::Y,
            rotation: turn,
            ..Transform::IDENTITY
        };
        let head = Transform {
            translation: Vec3::new(0.0, 0.5, 0.0),
            rotation: head,
            ..Transform::IDENTITY
        };
        Model {
            skeletons: vec![Skeleton {
                name: "s".into(),
                bones: vec![bone("hips", None, 0, hips), bone("head", Some(0), 1, head)],
                skins: Vec::new(),
                attachments: Vec::new(),
                base: Mat4::IDENTITY,
                base_nodes: Vec::new(),
                declared: None,
            }],
            scene_turn: turn,
            ..Model::default()
        }
    }

    fn vec3(v: &Value) -> Vec3 {
        vec3_of(v, Axes::Gltf).unwrap()
    }

    #[test]
    fn colliders_and_look_at_stay_where_they_were_in_the_scene() {
        let before = model(Quat::IDENTITY, Quat::IDENTITY);
        let turn = Quat::from_xyzw(0.0, 1.0, 0.0, 0.0);
        let after = model(Quat::from_rotation_x(0.7), turn);
        let mut json = json!({
            "extensions": {
                "VRMC_vrm": {"humanoid": {"humanBones": {"head": {"node": 1}}}, "lookAt": {}},
                "VRMC_springBone": {
                    "colliders": [{"node": 1, "shape": {"capsule": {"offset": [0.1, 0.2, 0.3], "radius": 0.05, "tail": [0.0, 0.1, 0.0]}}}],
                    "springs": [{"joints": [{"node": 1, "gravityDir": [1.0, 0.0, 0.0]}]}]
                },
                "VRM": {
                    "humanoid": {"humanBones": [{"bone": "head", "node": 1}]},
                    "firstPerson": {"firstPersonBone": 1, "firstPersonBoneOffset": {"x": 0.0, "y": 0.1, "z": 0.2}},
                    "secondaryAnimation": {"colliderGroups": [{"node": 1, "colliders": [{"offset": {"x": 0.1, "y": 0.0, "z": 0.3}, "radius": 0.1}]}]}
                }
            }
        });
        apply(&mut json, &before, &after, turn).unwrap();
        let (w, w2) = (
            before.skeletons[0].rest_world()[1],
            after.skeletons[0].rest_world()[1],
        );
        let same = |old: Vec3, new: Vec3| {
            let (a, b) = (
                Mat4::from_quat(turn).transform_point3(w.transform_point3(old)),
                w2.transform_point3(new),
            );
            assert!(a.abs_diff_eq(b, 1e-6), "{a} vs {b}");
        };
        let capsule = &json["extensions"]["VRMC_springBone"]["colliders"][0]["shape"]["capsule"];
        same(Vec3::new(0.1, 0.2, 0.3), vec3(&capsule["offset"]));
        same(Vec3::new(0.0, 0.1, 0.0), vec3(&capsule["tail"]));
        assert_eq!(capsule["radius"], json!(0.05));
        // no offset given: three-vrm's default, kept where it was
        let look = &json["extensions"]["VRMC_vrm"]["lookAt"]["offsetFromHeadBone"];
        same(Vec3::from(LOOK_AT_DEFAULT), vec3(look));
        // gravity is a scene direction: it turns with the scene
        let g =
            vec3(&json["extensions"]["VRMC_springBone"]["springs"][0]["joints"][0]["gravityDir"]);
        assert!(g.abs_diff_eq(-Vec3::X, 1e-6), "{g}");
        // VRM 0.x stores z negated
        let vrm0 = &json["extensions"]["VRM"];
        let first = vec3_of(&vrm0["firstPerson"]["firstPersonBoneOffset"], Axes::Vrm0).unwrap();
        same(Vec3::new(0.0, 0.1, -0.2), first);
        let c = &vrm0["secondaryAnimation"]["colliderGroups"][0]["colliders"][0]["offset"];
        same(Vec3::new(0.1, 0.0, -0.3), vec3_of(c, Axes::Vrm0).unwrap());
    }

    #[test]
    fn nothing_changes_when_no_bone_frame_changed() {
        let m = model(Quat::from_rotation_x(0.3), Quat::IDENTITY);
        let mut json = json!({"extensions": {"VRMC_springBone": {
            "colliders": [{"node": 1, "shape": {"sphere": {"offset": [0.123456789, 0.2, 0.3], "radius": 0.05}}}],
            "springs": [{"joints": [{"node": 1, "gravityDir": [0.0, -0.5, 0.0]}]}]}}});
        let before = json.clone();
        apply(&mut json, &m, &m, Quat::IDENTITY).unwrap();
        assert_eq!(json, before);
    }
}
