//! Rigs built in code from the fixture generator's canonical humanoid, renamed to a naming
//! convention and reshaped to that convention's hierarchy. The expected map comes from the
//! canonical ids (`upper_arm.L` is LeftUpperArm), never from the mapper.
#![allow(
    dead_code,
    reason = "each test crate uses its own subset of these helpers"
)]

#[path = "../../examples/make_fixtures/rig.rs"]
pub mod rig;

#[path = "../../examples/make_fixtures/names.rs"]
pub mod names;

use glam::{Mat4, Quat, Vec3};
use rig::{Joint, Parts};
use skelnorm::model::{Bone, BoneId, Skeleton, Transform};

pub use names::{finger, title};

/// `(base, side)` of a canonical id, with `""` for no side: `upper_arm.L` → (`upper_arm`, `L`).
pub fn split(id: &str) -> (&str, &str) {
    let (base, side) = names::split(id);
    (base, side.unwrap_or(""))
}

/// The profile bone a canonical id stands for.
pub fn expected(id: &str) -> Option<String> {
    let (base, side) = split(id);
    let s = match side {
        "L" => "Left",
        "R" => "Right",
        _ => "",
    };
    let body = match base {
        "root" => "Root",
        "hips" => "Hips",
        "spine" => "Spine",
        "chest" => "Chest",
        "upper_chest" => "UpperChest",
        "neck" => "Neck",
        "head" => "Head",
        "eye" => "Eye",
        "jaw" => "Jaw",
        "shoulder" => "Shoulder",
        "upper_arm" => "UpperArm",
        "lower_arm" => "LowerArm",
        "hand" => "Hand",
        "upper_leg" => "UpperLeg",
        "lower_leg" => "LowerLeg",
        "foot" => "Foot",
        "toes" => "Toes",
        b => {
            let (f, n) = finger(b)?;
            if n == 4 {
                return None;
            }
            let part = if f == "thumb" {
                ["Metacarpal", "Proximal", "Distal"][n - 1]
            } else {
                ["Proximal", "Intermediate", "Distal"][n - 1]
            };
            return Some(format!("{s}{}{part}", title(f)));
        }
    };
    Some(format!("{s}{body}"))
}

/// Edits to the canonical hierarchy.
pub fn remove(j: &mut Vec<Joint>, id: &str) {
    let Some(k) = j.iter().position(|x| x.id == id) else {
        panic!("no joint {id}")
    };
    let parent = j[k].parent.clone();
    for x in j.iter_mut() {
        if x.parent.as_deref() == Some(id) {
            x.parent = parent.clone();
        }
    }
    j.remove(k);
}

/// Removes a joint and everything below it.
pub fn prune(j: &mut Vec<Joint>, id: &str) {
    let mut gone = vec![id.to_string()];
    loop {
        let more: Vec<String> = j
            .iter()
            .filter(|x| {
                x.parent.as_ref().is_some_and(|p| gone.contains(p)) && !gone.contains(&x.id)
            })
            .map(|x| x.id.clone())
            .collect();
        if more.is_empty() {
            break;
        }
        gone.extend(more);
    }
    j.retain(|x| !gone.contains(&x.id));
}

/// Adds a joint under `parent` and moves `children` under it.
pub fn insert(j: &mut Vec<Joint>, id: &str, parent: Option<&str>, children: &[&str], pos: Vec3) {
    for x in j.iter_mut() {
        if children.contains(&x.id.as_str()) {
            x.parent = Some(id.into());
        }
    }
    j.push(Joint {
        id: id.into(),
        parent: parent.map(Into::into),
        pos,
        weighted: true,
        in_skin: true,
    });
}

pub fn reparent(j: &mut [Joint], id: &str, parent: &str) {
    j.iter_mut().find(|x| x.id == id).expect("joint").parent = Some(parent.into());
}

pub fn pos(j: &[Joint], id: &str) -> Vec3 {
    j.iter().find(|x| x.id == id).map(|x| x.pos).expect("joint")
}

/// Builds a skeleton (parents first) from joints named by `names`, with rest rotations that
/// follow each bone (+Y toward its first child), in a `base` space.
pub fn skeleton(joints: &[Joint], names: &dyn Fn(&str) -> String, base: Mat4) -> Skeleton {
    let mut order: Vec<usize> = Vec::new();
    while order.len() < joints.len() {
        let before = order.len();
        for (i, x) in joints.iter().enumerate() {
            if order.contains(&i) {
                continue;
            }
            let ready = x
                .parent
                .as_ref()
                .is_none_or(|p| order.iter().any(|&o| &joints[o].id == p));
            if ready {
                order.push(i);
            }
        }
        assert!(order.len() > before, "cycle in rig");
    }
    let index_of = |id: &str| order.iter().position(|&o| joints[o].id == id);
    let mut world_rot: Vec<Quat> = Vec::new();
    let mut bones = Vec::new();
    for &o in &order {
        let x = &joints[o];
        let parent = x.parent.as_deref().and_then(index_of);
        let child = joints
            .iter()
            .find(|c| c.parent.as_deref() == Some(x.id.as_str()));
        let dir = child.map_or(Vec3::Y, |c| (c.pos - x.pos).normalize_or(Vec3::Y));
        let rot = Quat::from_rotation_arc(Vec3::Y, dir);
        let (p_pos, p_rot) = match parent {
            Some(p) => (joints[order[p]].pos, world_rot[p]),
            None => (Vec3::ZERO, Quat::IDENTITY),
        };
        world_rot.push(rot);
        bones.push(Bone {
            name: names(&x.id),
            parent: parent.map(|p| BoneId(p as u32)),
            rest: Transform {
                translation: p_rot.inverse() * (x.pos - p_pos),
                rotation: (p_rot.inverse() * rot).normalize(),
                scale: Vec3::ONE,
            },
            is_joint: x.in_skin,
            weighted: Some(x.weighted && x.in_skin),
            node: Some(bones.len() as u32),
        });
    }
    Skeleton {
        name: "rig".into(),
        bones,
        skins: vec![],
        attachments: vec![],
        base,
        base_nodes: vec![],
        declared: None,
    }
}

/// A canonical humanoid with the given parts.
pub fn humanoid(parts: Parts) -> Vec<Joint> {
    rig::humanoid(parts)
}

/// A rig read from `tests/conventions/real/*.txt`: a convention's real bone names and parent
/// layout, each bone placed on the canonical humanoid, with the profile bone it must map to.
pub struct RealRig {
    /// The convention, as people say it.
    pub name: String,
    /// Where the names and parents come from.
    pub sources: Vec<String>,
    /// `a_pose`, `cm_z_up`, `faces_minus_z`, `skinless`, `upper_body`.
    pub options: Vec<String>,
    /// Skin joints that carry no weights (non-deforming helpers, nubs); `|`-separated.
    pub weightless: Vec<String>,
    /// Bones that are nodes outside the skin (end sites); `|`-separated.
    pub not_joints: Vec<String>,
    /// Profile bones that only names can place in this layout (a Biped's calf beside a longer
    /// robe chain): the scrambled-name property skips them, and they must map differently
    /// without names; `|`-separated.
    pub names_decide: Vec<String>,
    /// Where leaf bones point (their tails, placed like `at`): a leaf's +Y points at its tail
    /// (Blender's bones), else straight up; `name = at`, `|`-separated.
    pub tails: Vec<(String, String)>,
    pub bones: Vec<RealBone>,
}

pub struct RealBone {
    pub name: String,
    pub parent: Option<String>,
    /// The profile bone it must map to (`None`: it stays unmapped).
    pub expected: Option<String>,
    /// Canonical placement: `id`, `a>b:t`, with an optional `+dx,dy,dz` offset.
    pub at: String,
}

impl RealRig {
    pub fn has(&self, option: &str) -> bool {
        self.options.iter().any(|o| o == option)
    }
}

/// Every real convention file, sorted by file name.
pub fn real_rigs() -> Vec<(String, RealRig)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conventions/real");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/conventions/real")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable");
            let file = p.file_name().unwrap().to_string_lossy().into_owned();
            let rig = parse_real(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
            (file, rig)
        })
        .collect()
}

fn parse_real(text: &str) -> Result<RealRig, String> {
    let mut rig = RealRig {
        name: String::new(),
        sources: vec![],
        options: vec![],
        weightless: vec![],
        not_joints: vec![],
        names_decide: vec![],
        tails: vec![],
        bones: vec![],
    };
    let mut header_seen = false;
    for (k, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if let Some(c) = line.strip_prefix('#') {
            let c = c.trim();
            if let Some(s) = c.strip_prefix("source:") {
                rig.sources.push(s.trim().to_string());
            } else if let Some(o) = c.strip_prefix("options:") {
                rig.options = o.split_whitespace().map(String::from).collect();
            } else if let Some(o) = c.strip_prefix("weightless:") {
                rig.weightless = o.split('|').map(|n| n.trim().to_string()).collect();
            } else if let Some(o) = c.strip_prefix("not_joints:") {
                rig.not_joints = o.split('|').map(|n| n.trim().to_string()).collect();
            } else if let Some(o) = c.strip_prefix("names_decide:") {
                rig.names_decide = o.split('|').map(|n| n.trim().to_string()).collect();
            } else if let Some(o) = c.strip_prefix("tails:") {
                for t in o.split('|') {
                    let (n, at) = t
                        .split_once('=')
                        .ok_or_else(|| format!("line {}: tail `{t}` needs `name = at`", k + 1))?;
                    rig.tails
                        .push((n.trim().to_string(), at.trim().to_string()));
                }
            } else if rig.name.is_empty() {
                rig.name = c.to_string();
            } else if !rig.sources.is_empty() && !c.is_empty() && !c.contains(':') {
                rig.sources.push(c.to_string());
            }
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('|').map(str::trim).collect();
        if cols.len() != 4 {
            return Err(format!("line {}: want 4 columns: {line}", k + 1));
        }
        if !header_seen && cols[0] == "name" {
            header_seen = true;
            continue;
        }
        let opt = |s: &str| (s != "-").then(|| s.to_string());
        let bone = RealBone {
            name: cols[0].to_string(),
            parent: opt(cols[1]),
            expected: opt(cols[2]),
            at: cols[3].to_string(),
        };
        if let Some(p) = &bone.parent {
            if !rig.bones.iter().any(|b| &b.name == p) {
                return Err(format!("line {}: parent `{p}` not listed before", k + 1));
            }
        }
        if rig.bones.iter().any(|b| b.name == bone.name) {
            return Err(format!("line {}: `{}` listed twice", k + 1, bone.name));
        }
        rig.bones.push(bone);
    }
    if rig.bones.is_empty() {
        return Err("no bones".into());
    }
    Ok(rig)
}

/// Resolves a placement against the canonical humanoid (A-posed when `a_pose`).
fn place(at: &str, canon: &[Joint]) -> Result<Vec3, String> {
    let (base, off) = match at.split_once('+') {
        Some((b, o)) => {
            let v: Vec<f32> = o
                .split(',')
                .map(|x| x.trim().parse::<f32>().map_err(|e| format!("{at}: {e}")))
                .collect::<Result<_, _>>()?;
            let [x, y, z] = v[..] else {
                return Err(format!("{at}: offset needs 3 numbers"));
            };
            (b, Vec3::new(x, y, z))
        }
        None => (at, Vec3::ZERO),
    };
    let get = |id: &str| {
        canon
            .iter()
            .find(|j| j.id == id.trim())
            .map(|j| j.pos)
            .ok_or_else(|| format!("no canonical joint `{id}` in `{at}`"))
    };
    let p = match base.split_once('>') {
        Some((a, rest)) => {
            let (b, t) = rest
                .split_once(':')
                .ok_or_else(|| format!("{at}: `a>b:t` needs `:t`"))?;
            let t: f32 = t.trim().parse().map_err(|e| format!("{at}: {e}"))?;
            get(a)?.lerp(get(b)?, t)
        }
        None => get(base)?,
    };
    Ok(p + off)
}

/// The canonical humanoid every real rig is placed on.
pub fn canonical(a_pose: bool) -> Vec<Joint> {
    let mut j = humanoid(Parts {
        root: true,
        long_spine: true,
        twist: false,
        ik: false,
        ends: true,
        spine_bones: 0,
    });
    if a_pose {
        rig::apply_a_pose(&mut j);
    }
    j
}

/// The joints of a real rig (ids are the real names), placed on the canonical humanoid.
pub fn real_joints(rig: &RealRig) -> Vec<Joint> {
    let canon = canonical(rig.has("a_pose"));
    rig.bones
        .iter()
        .map(|b| Joint {
            id: b.name.clone(),
            parent: b.parent.clone(),
            pos: place(&b.at, &canon).unwrap_or_else(|e| panic!("{}: {e}", rig.name)),
            weighted: !rig.has("skinless") && !rig.weightless.contains(&b.name),
            in_skin: !rig.has("skinless") && !rig.not_joints.contains(&b.name),
        })
        .collect()
}

/// Turns canonical joints to face -Z (VRM 0.x), and/or into centimetres with Z up under a
/// node that scales them by 0.01 and turns them back to Y up; returns that node's transform.
pub fn place_in_scene(joints: &mut [Joint], faces_minus_z: bool, cm_z_up: bool) -> Mat4 {
    if faces_minus_z {
        for j in joints.iter_mut() {
            j.pos = Quat::from_rotation_y(std::f32::consts::PI) * j.pos;
        }
    }
    if !cm_z_up {
        return Mat4::IDENTITY;
    }
    for j in joints.iter_mut() {
        j.pos = Vec3::new(j.pos.x, -j.pos.z, j.pos.y) * 100.0;
    }
    Mat4::from_scale_rotation_translation(
        Vec3::splat(0.01),
        Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
        Vec3::ZERO,
    )
}

/// Turns every leaf bone with a tail in `rig.tails` so that its +Y points at the tail.
fn point_leaves(
    rig: &RealRig,
    joints: &[Joint],
    names: &dyn Fn(&str) -> String,
    sk: &mut Skeleton,
) {
    if rig.tails.is_empty() {
        return;
    }
    assert!(
        !rig.has("faces_minus_z") && !rig.has("cm_z_up"),
        "{}: tails are placed on the canonical humanoid only",
        rig.name
    );
    let canon = canonical(rig.has("a_pose"));
    let world = sk.rest_world();
    for (name, at) in &rig.tails {
        let i = rig.bones.iter().position(|b| &b.name == name);
        let i = i.unwrap_or_else(|| panic!("{}: tail of no bone `{name}`", rig.name));
        let id = &joints[i].id;
        assert!(
            !joints.iter().any(|j| j.parent.as_ref() == Some(id)),
            "{}: tail given for `{name}`, which is no leaf",
            rig.name
        );
        let tail = place(at, &canon).unwrap_or_else(|e| panic!("{}: {e}", rig.name));
        let k = sk
            .bones
            .iter()
            .position(|b| b.name == names(id))
            .expect("bone of the joint");
        let dir = (tail - joints[i].pos).normalize_or(Vec3::Y);
        let parent_rot = sk.bones[k].parent.map_or(Quat::IDENTITY, |p| {
            world[p.index()].to_scale_rotation_translation().1
        });
        sk.bones[k].rest.rotation =
            (parent_rot.inverse() * Quat::from_rotation_arc(Vec3::Y, dir)).normalize();
    }
}

/// Builds the skeleton of a real rig with its options applied (facing, units and up axis,
/// skin), naming each bone with `names` (the identity for the real names).
pub fn real_skeleton(rig: &RealRig, names: &dyn Fn(&str) -> String) -> Skeleton {
    let mut joints = real_joints(rig);
    let base = place_in_scene(&mut joints, rig.has("faces_minus_z"), rig.has("cm_z_up"));
    let mut sk = skeleton(&joints, names, base);
    point_leaves(rig, &joints, names, &mut sk);
    if rig.has("skinless") {
        for b in sk.bones.iter_mut() {
            b.is_joint = false;
            b.weighted = None;
        }
    }
    sk
}
