//! Writes the fixture rigs in `fixtures/`: small skinned characters with a box mesh and three
//! clips (LINEAR, CUBICSPLINE, STEP), in the shapes real files come in.
//!
//! `cargo run --example make_fixtures` checks that the checked-in files are what this generator
//! makes (exit 1 if not); `SKELNORM_BLESS=1 cargo run --example make_fixtures` rewrites them.
//!
//! Every rig plays the same motion in world space: each clip is defined as world-space rotation
//! deltas per canonical bone, turned into local keys through the rig's own rest frames
//! (`L_rest · G_rest⁻¹ · Δ · G_rest`), so rigs of different conventions can be compared.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a fixture generator run by hand: a panic aborts it, and it prints what it wrote"
)]

mod names;
mod planted;
mod rig;

use glam::{Mat4, Quat, Vec3};
use rig::{Frames, Joint, Layout, Parts, Style};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::f32::consts::{PI, TAU};

fn styles() -> Vec<Style> {
    let base = Style {
        name: "",
        parts: Parts {
            ends: true,
            ..Parts::default()
        },
        layout: Layout::Humanoid,
        names: names::godot,
        frames: Frames::YAlong,
        hips_x_deg: 0.0,
        roll_jitter: false,
        a_pose: false,
        centimetres: false,
        z_up: false,
        faces_minus_z: false,
        vrm0: false,
        leg_scale: 1.0,
        leg_spread_deg: 0.0,
        retarget_clips: false,
        key_every_bone: false,
    };
    vec![
        Style {
            name: "mixamo.glb",
            names: names::mixamo,
            a_pose: true,
            centimetres: true,
            key_every_bone: true,
            ..base
        },
        Style {
            name: "blender.glb",
            names: names::rigify,
            hips_x_deg: -90.0,
            roll_jitter: true,
            ..base
        },
        Style {
            name: "vrm0.vrm",
            names: names::vroid,
            frames: Frames::Identity,
            faces_minus_z: true,
            vrm0: true,
            ..base
        },
        Style {
            name: "ue_zup.glb",
            names: names::unreal,
            parts: Parts {
                root: true,
                twist: true,
                ik: true,
                ..Parts::default()
            },
            frames: Frames::XAlong,
            a_pose: true,
            z_up: true,
            ..base
        },
        Style {
            name: "identity.gltf",
            frames: Frames::Identity,
            parts: Parts::default(),
            retarget_clips: true,
            ..base
        },
        Style {
            name: "long_spine.glb",
            names: names::human_ik_long,
            parts: Parts {
                long_spine: true,
                ends: true,
                ..Parts::default()
            },
            ..base
        },
        // Ground-truth pairs for retargeting: legs 1.3 and 0.8 times as long as identity.gltf's,
        // and spines of 2 and 5 bones that bend the same way.
        Style {
            name: "long_legs.glb",
            leg_scale: 1.3,
            parts: Parts::default(),
            retarget_clips: true,
            ..base
        },
        Style {
            name: "short_legs.glb",
            leg_scale: 0.8,
            parts: Parts::default(),
            retarget_clips: true,
            ..base
        },
        Style {
            name: "spine2.glb",
            names: names::human_ik_spine2,
            parts: Parts {
                spine_bones: 2,
                ends: true,
                ..Parts::default()
            },
            retarget_clips: true,
            ..base
        },
        Style {
            name: "spine5.glb",
            names: names::human_ik_spine5,
            parts: Parts {
                spine_bones: 5,
                ends: true,
                ..Parts::default()
            },
            frames: Frames::XAlong,
            retarget_clips: true,
            ..base
        },
        // IK layouts of real rigs (see `rig::quaternius_ik` and `rig::kaykit`): Quaternius's
        // feet hang from the root, not from the shins (legs spread 12° so the rest fix has
        // them to turn), KayKit's IK controls hang from the root beside the legs.
        Style {
            name: "quaternius_ik.glb",
            layout: Layout::QuaterniusIk,
            names: names::quaternius,
            parts: Parts::default(),
            z_up: true,
            leg_spread_deg: 12.0,
            ..base
        },
        Style {
            name: "kaykit.glb",
            layout: Layout::KayKit,
            names: names::kaykit,
            parts: Parts::default(),
            ..base
        },
        Style {
            name: "quadruped.glb",
            names: names::plain,
            layout: Layout::Quadruped,
            ..base
        },
    ]
}

/// Buffer and JSON under construction.
struct Doc {
    json: Value,
    bin: Vec<u8>,
}

impl Doc {
    fn push(&mut self, key: &str, item: Value) -> usize {
        let arr = self.json[key].as_array_mut().expect("array");
        arr.push(item);
        arr.len() - 1
    }

    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while self.bin.len() % 4 != 0 {
            self.bin.push(0);
        }
        let mut v = json!({ "buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len() });
        if let Some(t) = target {
            v["target"] = t.into();
        }
        self.bin.extend_from_slice(bytes);
        self.push("bufferViews", v)
    }

    fn floats(&mut self, data: &[f32], ty: &str, min_max: bool, target: Option<u32>) -> usize {
        let n = match ty {
            "SCALAR" => 1,
            "VEC3" => 3,
            "VEC4" => 4,
            _ => 16,
        };
        let bytes: Vec<u8> = data.iter().flat_map(|f| f.to_le_bytes()).collect();
        let view = self.view(&bytes, target);
        let mut acc = json!({ "bufferView": view, "componentType": 5126, "count": data.len() / n, "type": ty });
        if min_max {
            let mut lo = vec![f32::MAX; n];
            let mut hi = vec![f32::MIN; n];
            for e in data.chunks(n) {
                for c in 0..n {
                    lo[c] = lo[c].min(e[c]);
                    hi[c] = hi[c].max(e[c]);
                }
            }
            acc["min"] = json!(lo);
            acc["max"] = json!(hi);
        }
        self.push("accessors", acc)
    }
}

/// A rig laid out for writing: per joint its armature-space position and global rotation.
struct Laid {
    joints: Vec<Joint>,
    pos: Vec<Vec3>,
    global: Vec<Quat>,
    base_rot: Quat,
    base_scale: f32,
    facing: Quat,
    /// The style's `leg_scale`: clips defined in leg units (`planted_walk`) scale by it.
    leg_scale: f32,
}

fn index_of(joints: &[Joint], id: &str) -> Option<usize> {
    joints.iter().position(|j| j.id == id)
}

fn tail(joints: &[Joint], i: usize) -> Option<usize> {
    let id = &joints[i].id;
    let side = id.rsplit_once('.').map(|(_, s)| s);
    let preferred = match (id.split('.').next(), side) {
        (Some("hand"), Some(s)) => format!("middle1.{s}"),
        (Some("hips"), _) => "spine".into(),
        (Some("upper_chest"), _) => "neck".into(),
        (Some("chest"), _) if index_of(joints, "chest2").is_some() => "chest2".into(),
        (Some("upper_arm"), Some(s)) => format!("lower_arm.{s}"),
        (Some("lower_arm"), Some(s)) => format!("hand.{s}"),
        (Some("upper_leg"), Some(s)) => format!("lower_leg.{s}"),
        (Some("lower_leg"), Some(s)) => format!("foot.{s}"),
        (Some("root"), _) if index_of(joints, "body").is_some() => "body".into(),
        (Some("chest"), None) if index_of(joints, "neck").is_none() => "head".into(),
        (Some("pelvis"), _) => "spine1".into(),
        (Some("chest"), None)
            if index_of(joints, "neck").is_some() && index_of(joints, "upper_chest").is_none() =>
        {
            "neck".into()
        }
        _ => String::new(),
    };
    // A shin points at its foot even where the foot hangs elsewhere (an IK layout).
    let anywhere = id.starts_with("lower_leg");
    index_of(joints, &preferred)
        .filter(|&c| anywhere || joints[c].parent.as_deref() == Some(id.as_str()))
        .or_else(|| {
            joints
                .iter()
                .position(|j| j.parent.as_deref() == Some(id.as_str()) && !j.id.starts_with("ik_"))
        })
}

fn lay_out(style: &Style) -> Laid {
    let mut joints = match style.layout {
        Layout::Humanoid => rig::humanoid(style.parts),
        Layout::Quadruped => rig::quadruped(),
        Layout::QuaterniusIk => rig::quaternius_ik(),
        Layout::KayKit => rig::kaykit(),
    };
    if style.leg_spread_deg != 0.0 {
        rig::spread_legs(&mut joints, style.leg_spread_deg);
    }
    if style.leg_scale != 1.0 {
        rig::scale_legs(&mut joints, style.leg_scale);
    }
    if style.a_pose {
        rig::apply_a_pose(&mut joints);
    }
    let facing = if style.faces_minus_z {
        Quat::from_rotation_y(PI)
    } else {
        Quat::IDENTITY
    };
    let base_rot = if style.z_up {
        Quat::from_rotation_x(-PI / 2.0)
    } else {
        Quat::IDENTITY
    };
    let base_scale = if style.centimetres { 0.01 } else { 1.0 };
    let to_arm = |p: Vec3| base_rot.inverse() * (facing * p) / base_scale;
    let pos: Vec<Vec3> = joints.iter().map(|j| to_arm(j.pos)).collect();
    let fwd = base_rot.inverse() * facing * Vec3::Z;
    let up = base_rot.inverse() * Vec3::Y;
    let (reference, alternative) = if style.frames == Frames::XAlong {
        (up, fwd)
    } else {
        (fwd, up)
    };
    let mut global = Vec::with_capacity(joints.len());
    for i in 0..joints.len() {
        let dir = match tail(&joints, i) {
            Some(c) => pos[c] - pos[i],
            None => joints[i]
                .parent
                .as_deref()
                .and_then(|p| index_of(&joints, p))
                .map_or(up, |p| pos[i] - pos[p]),
        };
        let dir = if dir.length() < 1e-6 { up } else { dir };
        let mut g = rig::frame(style.frames, dir, reference, alternative);
        if style.roll_jitter {
            let roll = (3.0 + (i % 7) as f32 * 4.0).to_radians();
            g *= Quat::from_axis_angle(
                if style.frames == Frames::XAlong {
                    Vec3::X
                } else {
                    Vec3::Y
                },
                roll,
            );
        }
        if joints[i].id == "hips" && style.hips_x_deg != 0.0 {
            g = Quat::from_rotation_x(style.hips_x_deg.to_radians());
        }
        global.push(g);
    }
    Laid {
        joints,
        pos,
        global,
        base_rot,
        base_scale,
        facing,
        leg_scale: style.leg_scale,
    }
}

/// World-space rotation delta of a canonical bone at time `t` for a clip; `None` if not animated.
fn motion(clip: &str, id: &str, t: f32) -> Option<Quat> {
    let phase = TAU * t;
    let side = if id.ends_with(".L") { 1.0 } else { -1.0 };
    let base = id.split('.').next().unwrap_or(id);
    match (clip, base) {
        ("walk", "hips") => Some(Quat::from_rotation_y(0.05 * phase.sin())),
        ("walk", "spine") => Some(Quat::from_rotation_y(-0.1 * phase.sin())),
        ("walk", "upper_leg" | "thigh") => Some(Quat::from_rotation_x(-0.5 * side * phase.sin())),
        ("walk", "lower_leg" | "shin") => {
            Some(Quat::from_rotation_x(0.3 * (1.0 - (phase + side).cos())))
        }
        ("walk", "upper_arm") => Some(Quat::from_rotation_y(0.3 * side * phase.sin())),
        ("walk", "lower_arm" | "forearm") => {
            Some(Quat::from_rotation_y(0.2 * side * (1.0 + phase.sin())))
        }
        ("walk", "head") => Some(Quat::from_rotation_x(0.05 * (2.0 * phase).sin())),
        ("wave", "upper_arm") if side < 0.0 => {
            Some(Quat::from_rotation_z(-1.2 * (PI * t / 2.0).sin()))
        }
        ("wave", "lower_arm") if side < 0.0 => Some(Quat::from_rotation_y(0.6 * (PI * t).sin())),
        ("wave", "hand") if side < 0.0 => Some(Quat::from_rotation_x(0.3 * (PI * t).sin())),
        ("wave", "head") => Some(Quat::from_rotation_y(0.2 * (PI * t / 2.0).sin())),
        ("idle", "spine" | "spine1") => Some(Quat::from_rotation_x(0.04 * t)),
        ("idle", "head") => Some(Quat::from_rotation_y(0.15 * (t * 3.0).round())),
        ("idle", "index1" | "middle1" | "ring1" | "little1") => {
            Some(Quat::from_rotation_z(-side * 0.3 * t))
        }
        _ => None,
    }
}

/// For each spine bone (from `spine` to `upper_chest`), the growth of its joint's normalized arc
/// length along the spine over its parent's: bending bone k by `θ · Δu_k` turns it, in the world,
/// by `θ · u_k`, the same field whatever the number of spine bones.
fn spine_spans(laid: &Laid) -> HashMap<usize, f32> {
    let ids = ["spine", "chest", "chest2", "chest3", "upper_chest"];
    let chain: Vec<usize> = ids
        .iter()
        .filter_map(|id| index_of(&laid.joints, id))
        .collect();
    let mut arc = vec![0.0f32];
    for w in chain.windows(2) {
        let d = laid.pos[w[1]].distance(laid.pos[w[0]]);
        arc.push(arc.last().copied().unwrap_or(0.0) + d);
    }
    let total = arc.last().copied().unwrap_or(1.0).max(1e-6);
    let mut out = HashMap::new();
    for (k, &i) in chain.iter().enumerate() {
        let prev = if k == 0 { 0.0 } else { arc[k - 1] / total };
        out.insert(i, arc[k] / total - prev);
    }
    out
}

/// The `bend` clip's world turn for a spine bone whose arc-length share is `du`: forward and a
/// little sideways, about one axis at each moment.
fn bend(t: f32, du: f32) -> Quat {
    let axis = Vec3::new(0.6 * (PI * t).sin(), 0.0, 0.3 * (TAU * t).sin());
    let angle = axis.length();
    if angle < 1e-9 {
        return Quat::IDENTITY;
    }
    Quat::from_axis_angle(axis / angle, angle * du)
}

/// The `sway` clip's hips offset (world, metres): side to side and a little forward and back,
/// lowered so that the legs can reach their planted feet.
fn sway_offset(t: f32) -> Vec3 {
    Vec3::new(
        0.05 * (TAU * t).sin(),
        -0.02 - 0.03 * (1.0 - (TAU * t).cos()),
        0.03 * (2.0 * TAU * t).sin(),
    )
}

/// The world turn of leg bone `i` (thigh, shin or foot; `None` for other bones) in a clip whose
/// hip joints move by `hip_by` and whose feet move by `foot_by(side)` (world offsets from their
/// rest): two-bone IK, knees forward, feet keeping their world rotation. `sway` keeps the feet
/// where they stand at rest; `planted_walk` walks them.
fn leg_turn(laid: &Laid, i: usize, hip_by: Vec3, foot_by: impl Fn(&str) -> Vec3) -> Option<Quat> {
    let id = &laid.joints[i].id;
    let (base, side) = id.split_once('.')?;
    let k = ["upper_leg", "lower_leg", "foot"]
        .iter()
        .position(|b| *b == base)?;
    let at =
        |b: &str| laid.joints[index_of(&laid.joints, &format!("{b}.{side}")).expect("leg")].pos;
    let (hip, knee, foot) = (at("upper_leg"), at("lower_leg"), at("foot"));
    Some(planted::leg(hip, knee, foot, hip + hip_by, foot + foot_by(side))[k])
}

fn build(style: &Style) -> Vec<u8> {
    let laid = lay_out(style);
    let j = &laid.joints;
    let mut doc = Doc {
        json: json!({
            "asset": { "version": "2.0", "generator": "skelnorm make_fixtures" },
            "scene": 0, "scenes": [{ "nodes": [0] }], "nodes": [], "meshes": [], "skins": [],
            "accessors": [], "bufferViews": [], "buffers": [], "animations": []
        }),
        bin: Vec::new(),
    };
    let parent_of = |i: usize| j[i].parent.as_deref().and_then(|p| index_of(j, p));
    let mut armature = json!({ "name": "Armature", "children": [] });
    if laid.base_rot != Quat::IDENTITY {
        armature["rotation"] = json!(laid.base_rot.to_array());
    }
    if laid.base_scale != 1.0 {
        armature["scale"] = json!(vec![laid.base_scale; 3]);
    }
    doc.push("nodes", armature);
    let mut local = Vec::new();
    for (i, joint) in j.iter().enumerate() {
        let (gp, pp) = parent_of(i).map_or((Quat::IDENTITY, Vec3::ZERO), |p| {
            (laid.global[p], laid.pos[p])
        });
        let r = (gp.inverse() * laid.global[i]).normalize();
        let t = gp.inverse() * (laid.pos[i] - pp);
        local.push((t, r));
        let mut node = json!({ "name": (style.names)(&joint.id), "translation": t.to_array() });
        if (r.dot(Quat::IDENTITY)).abs() < 1.0 - 1e-7 {
            node["rotation"] = json!(r.to_array());
        }
        doc.push("nodes", node);
        match parent_of(i) {
            Some(p) => {
                let kids = doc.json["nodes"][p + 1]
                    .as_object_mut()
                    .expect("node")
                    .entry("children")
                    .or_insert(json!([]));
                kids.as_array_mut().expect("children").push((i + 1).into());
            }
            None => doc.json["nodes"][0]["children"]
                .as_array_mut()
                .expect("children")
                .push((i + 1).into()),
        }
    }
    let base = Mat4::from_scale_rotation_translation(
        Vec3::splat(laid.base_scale),
        laid.base_rot,
        Vec3::ZERO,
    );
    let world: Vec<Mat4> = (0..j.len())
        .map(|i| base * Mat4::from_rotation_translation(laid.global[i], laid.pos[i]))
        .collect();
    let skin_joints: Vec<usize> = (0..j.len()).filter(|&i| j[i].in_skin).collect();
    write_mesh(&mut doc, &laid, &world, &skin_joints);
    let ibm: Vec<f32> = skin_joints
        .iter()
        .flat_map(|&i| {
            let mut m = world[i].inverse().to_cols_array();
            (m[3], m[7], m[11], m[15]) = (0.0, 0.0, 0.0, 1.0); // exactly affine, as the validator asks
            m
        })
        .collect();
    let ibm = doc.floats(&ibm, "MAT4", false, None);
    let skin_nodes: Vec<usize> = skin_joints.iter().map(|i| i + 1).collect();
    doc.push(
        "skins",
        json!({ "name": "Armature", "inverseBindMatrices": ibm, "joints": skin_nodes }),
    );
    let mut clips = vec![
        ("walk", "LINEAR", 25, 1.0f32),
        ("wave", "CUBICSPLINE", 5, 2.0),
        ("idle", "STEP", 4, 1.0),
    ];
    if style.retarget_clips {
        clips.push(("bend", "LINEAR", 21, 1.0));
        clips.push(("sway", "LINEAR", 31, 1.0));
        clips.push(("planted_walk", "LINEAR", planted::KEYS, planted::DURATION));
    }
    for (clip, interp, keys, dur) in clips {
        write_clip(
            &mut doc,
            &laid,
            &local,
            clip,
            interp,
            keys,
            dur,
            style.key_every_bone,
        );
    }
    if style.vrm0 {
        let bones: Vec<Value> = (0..j.len())
            .filter_map(|i| {
                names::vrm_bone(&j[i].id)
                    .map(|b| json!({ "bone": b, "node": i + 1, "useDefaultValues": true }))
            })
            .collect();
        doc.json["extensionsUsed"] = json!(["VRM"]);
        doc.json["extensions"] = json!({ "VRM": {
            "exporterVersion": "skelnorm make_fixtures", "specVersion": "0.0",
            "meta": { "title": "vrm0 fixture", "version": "1", "author": "skelnorm", "licenseName": "CC0" },
            "humanoid": { "humanBones": bones }
        }});
    }
    let bin_len = doc.bin.len();
    doc.json["buffers"] = json!([{ "byteLength": bin_len }]);
    if style.name.ends_with(".gltf") {
        use base64::Engine;
        let b64 = base64::engine::general_purpose::STANDARD.encode(&doc.bin);
        doc.json["buffers"][0]["uri"] =
            format!("data:application/octet-stream;base64,{b64}").into();
        let mut text = serde_json::to_vec_pretty(&doc.json).expect("json");
        text.push(b'\n');
        return text;
    }
    glb(&serde_json::to_vec(&doc.json).expect("json"), &doc.bin)
}

/// One box per weighted joint, around the segment to its tail, fully weighted to that joint.
fn write_mesh(doc: &mut Doc, laid: &Laid, world: &[Mat4], skin_joints: &[usize]) {
    let (mut pos, mut joints, mut weights, mut idx) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::<u16>::new());
    for (k, &i) in skin_joints.iter().enumerate() {
        if !laid.joints[i].weighted {
            continue;
        }
        let a = world[i].w_axis.truncate();
        let b = tail(&laid.joints, i).map_or(
            a + world[i].transform_vector3(Vec3::Y).normalize() * 0.03,
            |c| world[c].w_axis.truncate(),
        );
        let axis = (b - a).normalize_or(Vec3::Y);
        let u = axis.any_orthonormal_vector();
        let v = axis.cross(u);
        let w = ((b - a).length() * 0.15).clamp(0.006, 0.05);
        let first = (pos.len() / 3) as u16;
        for end in [a, b] {
            for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                pos.extend_from_slice(&(end + u * su * w + v * sv * w).to_array());
                joints.extend_from_slice(&[k as u16, 0, 0, 0]);
                weights.extend_from_slice(&[1.0f32, 0.0, 0.0, 0.0]);
            }
        }
        for f in [
            [0, 2, 1],
            [0, 3, 2],
            [4, 5, 6],
            [4, 6, 7],
            [0, 1, 5],
            [0, 5, 4],
            [1, 2, 6],
            [1, 6, 5],
            [2, 3, 7],
            [2, 7, 6],
            [3, 0, 4],
            [3, 4, 7],
        ] {
            idx.extend(f.iter().map(|&x| first + x));
        }
    }
    let p = doc.floats(&pos, "VEC3", true, Some(34962));
    let jb: Vec<u8> = joints.iter().flat_map(|x| x.to_le_bytes()).collect();
    let jv = doc.view(&jb, Some(34962));
    let ja = doc.push(
        "accessors",
        json!({ "bufferView": jv, "componentType": 5123, "count": joints.len() / 4, "type": "VEC4" }),
    );
    let w = doc.floats(&weights, "VEC4", false, Some(34962));
    let ib: Vec<u8> = idx.iter().flat_map(|x| x.to_le_bytes()).collect();
    let iv = doc.view(&ib, Some(34963));
    let ia = doc.push(
        "accessors",
        json!({ "bufferView": iv, "componentType": 5123, "count": idx.len(), "type": "SCALAR" }),
    );
    let mesh = doc.push("meshes", json!({ "name": "Body", "primitives": [{ "attributes": { "POSITION": p, "JOINTS_0": ja, "WEIGHTS_0": w }, "indices": ia }] }));
    let node = doc.push("nodes", json!({ "name": "Body", "mesh": mesh, "skin": 0 }));
    doc.json["scenes"][0]["nodes"]
        .as_array_mut()
        .expect("scene")
        .push(node.into());
}

#[allow(
    clippy::too_many_arguments,
    reason = "each fixture picks its own clip shape; a struct would be used once"
)]
fn write_clip(
    doc: &mut Doc,
    laid: &Laid,
    local: &[(Vec3, Quat)],
    clip: &str,
    interp: &str,
    keys: usize,
    dur: f32,
    key_every_bone: bool,
) {
    let times: Vec<f32> = (0..keys)
        .map(|k| dur * k as f32 / (keys - 1) as f32)
        .collect();
    let input = doc.floats(&times, "SCALAR", true, None);
    let to_arm =
        |d: Quat| laid.base_rot.inverse() * laid.facing * d * laid.facing.inverse() * laid.base_rot;
    let (mut channels, mut samplers) = (Vec::new(), Vec::new());
    let spans = spine_spans(laid);
    let delta = |i: usize, t: f32| match clip {
        "bend" => spans.get(&i).map(|&du| bend(t, du)),
        "sway" => leg_turn(laid, i, sway_offset(t), |_| Vec3::ZERO),
        "planted_walk" => leg_turn(laid, i, laid.leg_scale * planted::hips(t), |side| {
            laid.leg_scale * planted::foot(t, if side == "L" { 0.0 } else { 0.5 })
        })
        .or_else(|| {
            let id = &laid.joints[i].id;
            (!id.starts_with("hips"))
                .then(|| motion("walk", id, t))
                .flatten()
        }),
        _ => motion(clip, &laid.joints[i].id, t),
    };
    for (i, _) in laid.joints.iter().enumerate() {
        if delta(i, 0.0).is_none() {
            continue;
        }
        let g = laid.global[i];
        let mut qs: Vec<Quat> = times
            .iter()
            .map(|&t| local[i].1 * (g.inverse() * to_arm(delta(i, t).expect("animated")) * g))
            .collect();
        for k in 1..qs.len() {
            if qs[k].dot(qs[k - 1]) < 0.0 {
                qs[k] = -qs[k];
            }
        }
        let mut data = Vec::new();
        for k in 0..qs.len() {
            if interp == "CUBICSPLINE" {
                let (a, b) = (k.saturating_sub(1), (k + 1).min(qs.len() - 1));
                let tangent = (qs[b] - qs[a]) * (1.0 / (times[b] - times[a]));
                data.extend_from_slice(&tangent.to_array());
                data.extend_from_slice(&qs[k].normalize().to_array());
                data.extend_from_slice(&tangent.to_array());
            } else {
                data.extend_from_slice(&qs[k].normalize().to_array());
            }
        }
        let output = doc.floats(&data, "VEC4", false, None);
        samplers.push(json!({ "input": input, "output": output, "interpolation": interp }));
        channels
            .push(json!({ "sampler": samplers.len() - 1, "target": { "node": i + 1, "path": "rotation" } }));
    }
    let hips = index_of(&laid.joints, "hips").or_else(|| index_of(&laid.joints, "pelvis"));
    if key_every_bone {
        // Constant keys at rest: rotations of bones the motion leaves alone, translations of
        // every bone but the hips (whose translation moves).
        let constant = |doc: &mut Doc, v: &[f32]| {
            let mut data = Vec::new();
            for _ in &times {
                if interp == "CUBICSPLINE" {
                    data.extend(v.iter().map(|_| 0.0));
                    data.extend_from_slice(v);
                    data.extend(v.iter().map(|_| 0.0));
                } else {
                    data.extend_from_slice(v);
                }
            }
            doc.floats(
                &data,
                if v.len() == 4 { "VEC4" } else { "VEC3" },
                false,
                None,
            )
        };
        for (i, _) in laid.joints.iter().enumerate() {
            let mut keyed = Vec::new();
            if delta(i, 0.0).is_none() {
                keyed.push(("rotation", constant(doc, &local[i].1.to_array())));
            }
            if Some(i) != hips {
                keyed.push(("translation", constant(doc, &local[i].0.to_array())));
            }
            for (path, output) in keyed {
                samplers.push(json!({ "input": input, "output": output, "interpolation": interp }));
                channels.push(
                    json!({ "sampler": samplers.len() - 1, "target": { "node": i + 1, "path": path } }),
                );
            }
        }
    }
    if let Some(h) = hips {
        let gp = laid.joints[h]
            .parent
            .as_deref()
            .and_then(|p| index_of(&laid.joints, p))
            .map_or(Quat::IDENTITY, |p| laid.global[p]);
        let offset = |t: f32| match clip {
            "sway" => sway_offset(t),
            "planted_walk" => laid.leg_scale * planted::hips(t),
            _ => Vec3::new(0.0, 0.03 * (2.0 * TAU * t).sin(), 0.2 * t),
        };
        let to_local =
            |v: Vec3| gp.inverse() * (laid.base_rot.inverse() * laid.facing * v) / laid.base_scale;
        let mut data = Vec::new();
        for &t in &times {
            let v = local[h].0 + to_local(offset(t));
            if interp == "CUBICSPLINE" {
                let d = to_local(Vec3::new(
                    0.0,
                    0.03 * 2.0 * TAU * (2.0 * TAU * t).cos(),
                    0.2,
                ));
                data.extend_from_slice(&d.to_array());
                data.extend_from_slice(&v.to_array());
                data.extend_from_slice(&d.to_array());
            } else {
                data.extend_from_slice(&v.to_array());
            }
        }
        let output = doc.floats(&data, "VEC3", false, None);
        samplers.push(json!({ "input": input, "output": output, "interpolation": interp }));
        channels.push(
            json!({ "sampler": samplers.len() - 1, "target": { "node": h + 1, "path": "translation" } }),
        );
    }
    doc.push(
        "animations",
        json!({ "name": clip, "channels": channels, "samplers": samplers }),
    );
}

fn glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let pad = |n: usize| (4 - n % 4) % 4;
    let (jl, bl) = (json.len() + pad(json.len()), bin.len() + pad(bin.len()));
    let total = 12 + 8 + jl + 8 + bl;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(jl as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(json);
    out.resize(out.len() + pad(json.len()), b' ');
    out.extend_from_slice(&(bl as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(bin);
    out.resize(out.len() + pad(bin.len()), 0);
    out
}

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let bless = std::env::var_os("SKELNORM_BLESS").is_some();
    let mut stale = Vec::new();
    let mut seen = HashMap::new();
    for style in styles() {
        let bytes = build(&style);
        let path = dir.join(style.name);
        seen.insert(style.name, bytes.len());
        if bless {
            std::fs::create_dir_all(&dir).expect("create fixtures/");
            std::fs::write(&path, &bytes).expect("write fixture");
            println!("wrote {} ({} bytes)", path.display(), bytes.len());
        } else if std::fs::read(&path).ok().as_deref() != Some(&bytes[..]) {
            stale.push(style.name);
        }
    }
    if !stale.is_empty() {
        eprintln!(
            "fixtures differ from the generator: {}; run with SKELNORM_BLESS=1 to rewrite",
            stale.join(", ")
        );
        std::process::exit(1);
    }
    if !bless {
        println!("{} fixtures are up to date", seen.len());
    }
}
