//! What can be told of a model at a glance: per skeleton its bone tree, height and likely units,
//! up axis, facing, A- or T-pose and naming convention; per clip its channels and duration.
//!
//! Pure over the [`model`](crate::model); measures, never changes. The glance uses geometry
//! only (names play no part except for the naming convention): the hips are the bone from which
//! two mirrored subtrees (legs) leave one way and a larger one (spine) the other; up runs from
//! the legs to the spine; the feet (leg tips) point forward.

use crate::model::{BoneId, Clip, Interpolation, Model, Skeleton, SkeletonId};
use glam::{Mat4, Vec3};
use regex::Regex;
use serde::Serialize;
use std::sync::OnceLock;

/// A bone as `inspect` shows it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct BoneInfo {
    /// Bone name.
    pub name: String,
    /// Parent bone index.
    pub parent: Option<u32>,
    /// Depth in the tree (roots are 0).
    pub depth: usize,
    /// Whether it is a skin joint.
    pub joint: bool,
    /// glTF node index.
    pub node: Option<u32>,
    /// Local rest rotation (x, y, z, w).
    pub rest_rotation: [f32; 4],
    /// World (scene-space) rest position.
    pub world_position: [f32; 3],
}

/// What the geometry says about a skeleton's orientation and pose.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Glance {
    /// Extent along the up axis, in scene units.
    pub height: f32,
    /// `m`, `cm` or `unknown`, from the height of a human-sized character, in scene space.
    pub units: &'static str,
    /// The units of the joint offsets themselves, before the nodes above the skeleton scale
    /// them (`cm` for a centimetre rig under a 0.01-scaled armature node).
    pub offset_units: &'static str,
    /// The world axis nearest to the character's up (`+Y`, `+Z`, …), or `unknown`.
    pub up: &'static str,
    /// The axis the skeleton was authored with as up, before the nodes above it turn it
    /// (`+Z` for a Z-up rig under a −90° X-rotated armature node).
    pub authored_up: &'static str,
    /// The world axis nearest to the direction the character faces, or `unknown`.
    pub facing: &'static str,
    /// `T-pose`, `A-pose`, `other` or `unknown`.
    pub pose: &'static str,
    /// Mean angle of the arms below the horizontal, degrees.
    pub arm_angle_deg: Option<f32>,
    /// Name of the bone taken for the hips, if the shape is humanoid.
    pub hips: Option<String>,
    /// Scale of the nodes above the skeleton (0.01 for a centimetre rig under a scaled node).
    pub base_scale: f32,
}

/// One skeleton as `inspect` shows it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SkeletonInfo {
    /// Skeleton name.
    pub name: String,
    /// Number of bones, and how many are skin joints.
    pub bone_count: usize,
    /// Number of skin joints.
    pub joint_count: usize,
    /// Number of skins.
    pub skin_count: usize,
    /// Geometry glance.
    pub glance: Glance,
    /// Naming convention that fits most bone names.
    pub naming: &'static str,
    /// The bones, parents first.
    pub bones: Vec<BoneInfo>,
    /// The map to the built-in humanoid profile.
    pub mapping: crate::mapping::MapReport,
}

/// One clip as `inspect` shows it.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ClipInfo {
    /// Clip name.
    pub name: String,
    /// The skeleton it animates.
    pub skeleton: SkeletonId,
    /// Last key time, seconds.
    pub duration: f32,
    /// Bone channels (translation, rotation, scale tracks).
    pub bone_channels: usize,
    /// Interpolations used by bone channels.
    pub interpolations: Vec<Interpolation>,
    /// Channels carried through untouched (morph weights, pointers, other nodes).
    pub other_channels: usize,
    /// The names of its float curves (an FBX file's animated user properties, such as
    /// `FootLock_L`: what `retarget --contacts` can name); absent when it has none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub curves: Vec<String>,
}

/// Everything `inspect` tells about a model.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Inspection {
    /// One entry per skeleton of the model, in model order.
    pub skeletons: Vec<SkeletonInfo>,
    /// One entry per clip of the model, in model order.
    pub clips: Vec<ClipInfo>,
}

/// Inspects a model.
pub fn inspect(model: &Model) -> Inspection {
    Inspection {
        skeletons: model
            .skeleton_ids()
            .map(|k| skeleton_info(model, k))
            .collect(),
        clips: model.clips.iter().map(clip_info).collect(),
    }
}

fn skeleton_info(model: &Model, k: SkeletonId) -> SkeletonInfo {
    let s = model.skeleton(k);
    let world = s.rest_world();
    let depths = s.depths();
    let bones = s
        .bones
        .iter()
        .enumerate()
        .map(|(i, b)| BoneInfo {
            name: b.name.clone(),
            parent: b.parent.map(|p| p.0),
            depth: depths[i],
            joint: b.is_joint,
            node: b.node,
            rest_rotation: b.rest.rotation.to_array(),
            world_position: world[i].w_axis.truncate().to_array(),
        })
        .collect();
    let profile = crate::profile::Profile::humanoid();
    let mapping =
        crate::mapping::map_in_model(model, k, profile, &Default::default()).report(s, profile);
    SkeletonInfo {
        mapping,
        name: s.name.clone(),
        bone_count: s.bones.len(),
        joint_count: s.bones.iter().filter(|b| b.is_joint).count(),
        skin_count: s.skins.len(),
        glance: glance(s, &world, &depths),
        naming: naming(s.bones.iter().map(|b| b.name.as_str())),
        bones,
    }
}

fn clip_info(c: &Clip) -> ClipInfo {
    let mut interpolations = Vec::new();
    for t in &c.tracks {
        let kinds = [
            t.translation.as_ref().map(|t| t.interpolation),
            t.rotation.as_ref().map(|t| t.interpolation),
            t.scale.as_ref().map(|t| t.interpolation),
        ];
        for k in kinds.into_iter().flatten() {
            if !interpolations.contains(&k) {
                interpolations.push(k);
            }
        }
    }
    ClipInfo {
        name: c.name.clone(),
        skeleton: c.skeleton,
        duration: c.duration(),
        bone_channels: c.channel_count(),
        interpolations,
        other_channels: c.opaque.len(),
        curves: c.curves.iter().map(|k| k.name.clone()).collect(),
    }
}

/// The subtree (bone and its descendants) of every bone, as lists of bone indices.
fn subtrees(s: &Skeleton) -> Vec<Vec<usize>> {
    let mut sub: Vec<Vec<usize>> = (0..s.bones.len()).map(|i| vec![i]).collect();
    for i in (0..s.bones.len()).rev() {
        if let Some(p) = s.bones[i].parent {
            let mine = std::mem::take(&mut sub[i]);
            sub[p.index()].extend_from_slice(&mine);
            sub[i] = mine;
        }
    }
    sub
}

fn centroid(points: &[Vec3], idx: &[usize]) -> Vec3 {
    idx.iter().map(|&i| points[i]).sum::<Vec3>() / idx.len().max(1) as f32
}

struct Hips {
    bone: usize,
    legs: [Vec<usize>; 2],
    spine: Vec<usize>,
}

/// The hips: two mirrored child subtrees one way and a larger one the other; the largest wins.
fn find_hips(s: &Skeleton, pos: &[Vec3], sub: &[Vec<usize>], depths: &[usize]) -> Option<Hips> {
    let children = s.children();
    let mut best: Option<(usize, Hips)> = None;
    for (b, kids) in children.iter().enumerate() {
        let kids: Vec<&Vec<usize>> = kids
            .iter()
            .map(|k| &sub[k.index()])
            .filter(|t| t.len() >= 2)
            .collect();
        for (i, a) in kids.iter().enumerate() {
            for c in kids.iter().skip(i + 1) {
                let (ca, cc) = (centroid(pos, a), centroid(pos, c));
                let diff = a.len().abs_diff(c.len());
                if diff > 1 + a.len() / 5 {
                    continue;
                }
                let down = ((ca + cc) * 0.5 - pos[b]).normalize_or_zero();
                let Some(spine) = kids
                    .iter()
                    .filter(|t| t.len() > a.len().max(c.len()))
                    .max_by_key(|t| t.len())
                else {
                    continue;
                };
                let lateral = (ca - cc).normalize_or_zero();
                let top = pos[spine_top(pos, spine, pos[b], lateral)] - pos[b];
                let up = top.normalize_or_zero();
                let reach = (pos[deepest(a, depths)] + pos[deepest(c, depths)]) * 0.5 - pos[b];
                let (ra, rc) = ((ca - pos[b]).length(), (cc - pos[b]).length());
                let mirrored = (ra - rc).abs() <= 0.2 * ra.max(rc);
                if !mirrored
                    || up.dot(down) > -0.8
                    || lateral.dot(up).abs() > 0.5
                    || reach.length() < 0.25 * top.length()
                {
                    continue;
                }
                let score = a.len() + c.len() + spine.len();
                if best.as_ref().is_none_or(|(s, _)| score > *s) {
                    best = Some((
                        score,
                        Hips {
                            bone: b,
                            legs: [a.to_vec(), c.to_vec()],
                            spine: spine.to_vec(),
                        },
                    ));
                }
            }
        }
    }
    best.map(|(_, h)| h)
}

/// The spine subtree's bone farthest from the hips while near the centre line: the head.
fn spine_top(pos: &[Vec3], spine: &[usize], hips: Vec3, lateral: Vec3) -> usize {
    let central = |i: &&usize| {
        let v = pos[**i] - hips;
        v.dot(lateral).abs() <= 0.3 * v.length()
    };
    let far = |a: &&usize, b: &&usize| {
        (pos[**a] - hips)
            .length()
            .total_cmp(&(pos[**b] - hips).length())
    };
    *spine
        .iter()
        .filter(central)
        .max_by(far)
        .or_else(|| spine.iter().max_by(far))
        .expect("spine is not empty")
}

fn units(height: f32) -> &'static str {
    match height {
        h if (0.25..=5.0).contains(&h) => "m",
        h if (25.0..=500.0).contains(&h) => "cm",
        _ => "unknown",
    }
}

fn axis_name(v: Vec3) -> &'static str {
    let axes = [
        (Vec3::X, "+X"),
        (-Vec3::X, "-X"),
        (Vec3::Y, "+Y"),
        (-Vec3::Y, "-Y"),
        (Vec3::Z, "+Z"),
        (-Vec3::Z, "-Z"),
    ];
    let (axis, name) = axes
        .iter()
        .max_by(|a, b| a.0.dot(v).total_cmp(&b.0.dot(v)))
        .expect("six axes");
    if axis.dot(v) > 0.8 {
        name
    } else {
        "unknown"
    }
}

fn deepest(idx: &[usize], depths: &[usize]) -> usize {
    *idx.iter()
        .max_by_key(|&&i| depths[i])
        .expect("subtree is not empty")
}

fn glance(s: &Skeleton, world: &[Mat4], depths: &[usize]) -> Glance {
    let pos: Vec<Vec3> = world.iter().map(|m| m.w_axis.truncate()).collect();
    let base_scale = s.base.to_scale_rotation_translation().0.max_element();
    let mut g = Glance {
        height: 0.0,
        units: "unknown",
        offset_units: "unknown",
        up: "unknown",
        authored_up: "unknown",
        facing: "unknown",
        pose: "unknown",
        arm_angle_deg: None,
        hips: None,
        base_scale,
    };
    let sub = subtrees(s);
    let Some(h) = find_hips(s, &pos, &sub, depths) else {
        let ext = pos.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), p| {
            (lo.min(*p), hi.max(*p))
        });
        g.height = (ext.1 - ext.0).y;
        g.units = units(g.height);
        g.offset_units = units(g.height / base_scale);
        return g;
    };
    g.hips = Some(s.bones[h.bone].name.clone());
    let lateral = (centroid(&pos, &h.legs[0]) - centroid(&pos, &h.legs[1])).normalize_or_zero();
    let feet = (pos[deepest(&h.legs[0], depths)] + pos[deepest(&h.legs[1], depths)]) * 0.5;
    let up = (pos[spine_top(&pos, &h.spine, pos[h.bone], lateral)] - feet).normalize_or_zero();
    g.up = axis_name(up);
    let heights: Vec<f32> = pos.iter().map(|p| p.dot(up)).collect();
    g.height = heights.iter().copied().fold(f32::MIN, f32::max)
        - heights.iter().copied().fold(f32::MAX, f32::min);
    g.units = units(g.height);
    g.offset_units = units(g.height / base_scale);
    let (_, base_rot, _) = s.base.to_scale_rotation_translation();
    g.authored_up = axis_name(base_rot.inverse() * up);
    let mut forward = Vec3::ZERO;
    for leg in &h.legs {
        forward += leg_forward(s, &pos, leg[0], deepest(leg, depths), up);
    }
    let lateral = centroid(&pos, &h.legs[0]) - centroid(&pos, &h.legs[1]);
    let lateral = (lateral - up * lateral.dot(up)).normalize_or_zero();
    forward -= lateral * forward.dot(lateral);
    if forward.length() > 0.02 * g.height {
        g.facing = axis_name(forward.normalize());
    }
    arm_pose(s, &pos, &h, up, lateral, &mut g);
    g
}

/// Where a leg says forward is: its last segment (the foot) unless it is steeper than about 63°,
/// else the way the
/// knee bends (knees bend forward), both without their vertical part.
fn leg_forward(s: &Skeleton, pos: &[Vec3], top: usize, tip: usize, up: Vec3) -> Vec3 {
    let flat = |v: Vec3| v - up * v.dot(up);
    let mut chain = vec![tip];
    while let Some(p) = s.bones[*chain.last().expect("not empty")].parent {
        chain.push(p.index());
        if p.index() == top {
            break;
        }
    }
    let last = s.bones[tip]
        .parent
        .map_or(Vec3::ZERO, |p| pos[tip] - pos[p.index()]);
    if flat(last).length() >= 0.5 * last.dot(up).abs() {
        return flat(last);
    }
    let (a, b) = (pos[top], pos[tip]);
    let line = (b - a).normalize_or_zero();
    let off = |i: &usize| {
        let v = pos[*i] - a;
        v - line * v.dot(line)
    };
    chain
        .iter()
        .map(off)
        .max_by(|x, y| x.length().total_cmp(&y.length()))
        .map_or(Vec3::ZERO, flat)
}

/// Arms: the spine subtree's bones farthest to either side; the arm runs from the first bone on
/// the way there that is clearly off the body's centre line to that far bone.
fn arm_pose(s: &Skeleton, pos: &[Vec3], h: &Hips, up: Vec3, lateral: Vec3, g: &mut Glance) {
    let origin = pos[h.bone];
    let side = |i: usize| (pos[i] - origin).dot(lateral);
    let spine: Vec<usize> = h
        .spine
        .iter()
        .copied()
        .filter(|&i| s.skins.is_empty() || s.bones[i].is_joint)
        .collect();
    let spine = if spine.is_empty() {
        h.spine.clone()
    } else {
        spine
    };
    let mut angles = Vec::new();
    for sign in [1.0f32, -1.0] {
        let far = *spine
            .iter()
            .max_by(|&&a, &&b| (sign * side(a)).total_cmp(&(sign * side(b))))
            .expect("spine");
        if sign * side(far) < 0.15 * g.height {
            continue;
        }
        let mut path = vec![far];
        let mut at = s.bones[far].parent;
        while let Some(p) = at {
            path.push(p.index());
            if p == BoneId(h.bone as u32) {
                break;
            }
            at = s.bones[p.index()].parent;
        }
        let Some(&shoulder) = path
            .iter()
            .rev()
            .find(|&&i| sign * side(i) > 0.08 * g.height)
        else {
            continue;
        };
        let arm = (pos[far] - pos[shoulder]).normalize_or_zero();
        angles.push((-arm.dot(up)).clamp(-1.0, 1.0).asin().to_degrees());
    }
    if angles.is_empty() {
        return;
    }
    let mean = angles.iter().sum::<f32>() / angles.len() as f32;
    g.arm_angle_deg = Some(mean);
    g.pose = match mean {
        a if a.abs() < 12.0 => "T-pose",
        a if (20.0..=70.0).contains(&a) => "A-pose",
        _ => "other",
    };
}

/// The naming conventions `naming` tells, and their patterns.
const CONVENTIONS: [(&str, &str); 12] = [
    ("Mixamo", r"^mixamorig\d*:"),
    ("VRoid (J_Bip_)", r"^J_(Bip|Adj|Sec)_"),
    ("CC3/CC4 (CC_Base_)", r"^CC_Base_"),
    ("3ds Max Biped", r"^Bip0*\d*[ _]"),
    ("Blender/Rigify", r"(^(DEF|ORG|MCH)-)|([._](L|R)(\.\d+)?$)"),
    (
        "Unreal (_l/_r)",
        r"(?i)^(pelvis|spine_0\d|neck_0\d|head|(clavicle|upperarm|lowerarm|hand|thigh|calf|foot|ball)_(l|r))$",
    ),
    (
        "Daz Genesis",
        r"^(l|r)(Shldr|ForeArm|Forearm|Thigh|Shin|Foot|Hand|Collar)",
    ),
    (
        "VRM/Unity humanoid",
        r"^(hips|spine|chest|upperChest|neck|head|(left|right)(UpperArm|LowerArm|Hand|UpperLeg|LowerLeg|Foot|Toes|Shoulder))$",
    ),
    (
        "Godot humanoid",
        r"^(Root|Hips|Spine|Chest|UpperChest|Neck|Head|(Left|Right)(UpperArm|LowerArm|Hand|UpperLeg|LowerLeg|Foot|Toes|Shoulder))$",
    ),
    (
        "HumanIK",
        r"^(Hips|Spine\d*|Neck\d*|Head|(Left|Right)(Arm|ForeArm|UpLeg|Leg|Foot|ToeBase|Shoulder|Hand))$",
    ),
    ("numbered (joint1, bone_2)", r"(?i)^(joint|bone|node)_?\d+$"),
    ("COLLADA-style (_joint)", r"(?i)joint"),
];

/// The [`CONVENTIONS`] compiled, once: with `unicode`, as Unicode patterns (`\d` any digit,
/// `(?i)` Unicode case folding); without, as ASCII ones, which match an ASCII name exactly as
/// the Unicode ones do and compile in about half the time (compiling the Unicode ones was 5% of
/// inspecting a 3 MB file, issue 19): those are compiled only for a name that is not ASCII.
fn conventions(unicode: bool) -> &'static [(&'static str, Regex)] {
    static ASCII: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    static UNICODE: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    let compiled = if unicode { &UNICODE } else { &ASCII };
    compiled.get_or_init(|| {
        CONVENTIONS
            .iter()
            .map(|&(n, r)| {
                let re = regex::RegexBuilder::new(r).unicode(unicode).build();
                (n, re.expect("valid convention pattern"))
            })
            .collect()
    })
}

/// The naming convention most bone names follow (at least a fifth of them), or `unknown`.
///
/// ```
/// let names = ["mixamorig:Hips", "mixamorig:Spine", "mixamorig:LeftArm"];
/// assert_eq!(skelnorm::inspect::naming(names.iter().copied()), "Mixamo");
/// assert_eq!(skelnorm::inspect::naming(["thigh_l", "calf_l", "pelvis"].iter().copied()), "Unreal (_l/_r)");
/// // Patterns match names that are not ASCII as Unicode patterns: `\d` is any digit.
/// let names = ["joint\u{661}", "joint\u{662}", "Joint_3"];
/// assert_eq!(skelnorm::inspect::naming(names.iter().copied()), "numbered (joint1, bone_2)");
/// ```
pub fn naming<'a>(names: impl Iterator<Item = &'a str> + Clone) -> &'static str {
    let total = names.clone().count().max(1);
    let mut best = ("unknown", 0usize);
    let unicode = names
        .clone()
        .any(|n| !n.is_ascii())
        .then(|| conventions(true));
    for (i, (label, re)) in conventions(false).iter().enumerate() {
        let hits = names
            .clone()
            .filter(|n| match unicode {
                Some(unicode) if !n.is_ascii() => unicode[i].1.is_match(n),
                _ => re.is_match(n),
            })
            .count();
        if hits > best.1 {
            best = (label, hits);
        }
    }
    if best.1 * 5 >= total {
        best.0
    } else {
        "unknown"
    }
}
