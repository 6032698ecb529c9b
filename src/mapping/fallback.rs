//! When the rest cannot decide (issue 43): a rest in which the humanoid auto-mapper finds no
//! hips, or whose joints lie along one line or at one point (the Bandai-Namco motion dataset's
//! BVH rests every bone along its parent's X axis, its pose only in the frames), is not read as
//! a body. The first frame of the skeleton's first clip gives the geometry instead
//! ([`WarningCode::RestFromFrame`]), bones it leaves out taken by name where the hierarchy
//! agrees; where that frame cannot decide either, names and the hierarchy map the skeleton
//! alone ([`super::by_name`], [`WarningCode::NamesOnly`]); where names give too little, the
//! "no hips found" warning says what was tried.

use super::{by_name, BoneMap, MapOptions};
use crate::model::{Skeleton, Transform, Warning, WarningCode};
use crate::profile::{MapperKind, Profile};
use glam::Vec3;

/// Whether the humanoid mapper could not read a body from the geometry it was given: the map
/// has no hips.
fn undecided(map: &BoneMap, profile: &Profile) -> bool {
    humanoid_mapper(profile) && profile.find("Hips").is_some_and(|h| map.get(h).is_none())
}

/// Whether the humanoid auto-mapper maps to `profile` (the fallbacks for rests that cannot
/// decide are its own).
fn humanoid_mapper(profile: &Profile) -> bool {
    profile.mapper == MapperKind::Humanoid && super::humanoid::fits(profile)
}

/// Whether `w` is the humanoid mapper's "no hips found" warning.
pub(super) fn no_hips_found(w: &Warning) -> bool {
    w.code == WarningCode::RequiredMissing
        && w.bones == ["Hips"]
        && w.message.starts_with("no hips found")
}

/// [`super::map_posed`] before the warnings every map gets.
pub(super) fn map_undecided(
    skeleton: &Skeleton,
    frame: Option<(&str, Vec<Transform>)>,
    profile: &Profile,
    options: &MapOptions,
) -> BoneMap {
    let flat = line_like(skeleton, &skeleton.rest_positions(), profile);
    let mut at_rest = super::map_geometry(skeleton, profile, options);
    if !flat && !undecided(&at_rest, profile) {
        // The hips are mapped (by a bone-map file, a declared map or exact names): that the
        // auto-mapper found none of its own is no news.
        at_rest.warnings.retain(|w| !no_hips_found(w));
        return at_rest;
    }
    let clip = frame.as_ref().map(|(c, _)| c.to_string());
    if let Some((clip, locals)) = frame {
        let mut posed = skeleton.clone();
        for (b, t) in posed.bones.iter_mut().zip(locals) {
            b.rest = t;
        }
        let mut map = super::map_geometry(&posed, profile, options);
        if !undecided(&map, profile) && !line_like(skeleton, &posed.rest_positions(), profile) {
            map.warnings.retain(|w| !no_hips_found(w));
            by_name::fill(
                skeleton,
                profile,
                &mut map,
                "the first frame's geometry left it out",
            );
            map.warnings.insert(0, rest_from_frame(clip, flat));
            return map;
        }
    }
    // A rest along one line means nothing: only what is fixed stays, then names.
    let base = if flat {
        super::map_with(skeleton, profile, options, false)
    } else {
        at_rest
    };
    let mut map = by_name::map(skeleton, profile, base);
    if undecided(&map, profile) {
        explain(&mut map, clip.as_deref(), flat);
    }
    map
}

/// Says in the "no hips found" warning (added for a rest along one line) what was tried: the
/// rest, the first frame of clip `clip`, names. The warning says the rest lies along one line
/// only where it does (`flat`): a body the mapper cannot read (a generated Rigify rig's deform
/// bones, all children of one root) is told as such.
fn explain(map: &mut BoneMap, clip: Option<&str>, flat: bool) {
    let tried = match clip {
        Some(c) => format!("neither at rest nor in the first frame of clip `{c}`"),
        None => "at rest, and there is no clip to read a pose from".to_string(),
    };
    let names = "and names give too few of the required bones; a bone map can name them";
    if !map.warnings.iter().any(no_hips_found) {
        map.warnings.insert(
            0,
            Warning {
                code: WarningCode::RequiredMissing,
                skeleton: None,
                message: if flat {
                    "no hips found: the rest lies along one line or at one point".into()
                } else {
                    "no hips found: the rest shows no body (no hips with two legs reaching down \
                     and a spine reaching up)"
                        .into()
                },
                bones: vec!["Hips".into()],
                clips: Vec::new(),
                chain: None,
            },
        );
    }
    for w in map.warnings.iter_mut().filter(|w| no_hips_found(w)) {
        w.message = format!("{} ({tried}), {names}", w.message);
    }
}

/// The [`WarningCode::RestFromFrame`] warning: the bones were mapped on clip `clip`'s first
/// frame, the rest being `flat` (along one line) or showing no hips.
fn rest_from_frame(clip: &str, flat: bool) -> Warning {
    let why = if flat {
        "the rest lies along one line or at one point"
    } else {
        "the rest shows no body (no hips with two legs reaching down and a spine reaching up)"
    };
    Warning {
        code: WarningCode::RestFromFrame,
        skeleton: None,
        message: format!("{why}: the bones were mapped on the first frame of clip `{clip}`"),
        bones: Vec::new(),
        clips: vec![clip.to_string()],
        chain: None,
    }
}

/// Whether the joints `points` of `skeleton` lie along one line or at one point, for the
/// humanoid mapper and a skeleton with at least as many bones as the profile requires (fewer
/// cannot be a body anyway, and a short chain is a line). Roots with one child are left out
/// (a `Root` left at the origin carries the body wherever it lies). Along one line means both:
/// 1. every joint lies within 10% of the farthest two joints' distance from the line through
///    them (an arms-down body is wider: its hands beside its hips);
/// 2. three in four of the bones (parent to joint, counted, not weighed by length) lie within
///    25° of that line (a body with one bone far away, which makes any line long, is not).
///
/// A body standing or lying in any pose spreads wider (a T-pose's spine and legs below its
/// arms, an A-pose's shoulders and feet); the Bandai-Namco dataset's rest, every bone along its
/// parent's X axis, keeps its joints within 5% and 18 of its 20 bones within 25°.
fn line_like(skeleton: &Skeleton, points: &[Vec3], profile: &Profile) -> bool {
    let required = profile.bones.iter().filter(|b| b.required).count();
    if !humanoid_mapper(profile) || skeleton.bones.len() < required.max(2) {
        return false;
    }
    let children = skeleton.children();
    let carrier = |i: usize| skeleton.bones[i].parent.is_none() && children[i].len() == 1;
    let kept: Vec<Vec3> = (0..points.len())
        .filter(|&i| !carrier(i))
        .map(|i| points[i])
        .collect();
    let mut far = (0.0f32, Vec3::ZERO, Vec3::ZERO);
    for (i, &a) in kept.iter().enumerate() {
        for &b in &kept[i + 1..] {
            let d = a.distance_squared(b);
            if d > far.0 {
                far = (d, a, b);
            }
        }
    }
    let (d2, a, b) = far;
    if d2 < 1e-12 {
        return true;
    }
    let length = d2.sqrt();
    let axis = (b - a) / length;
    let near = |p: Vec3| (p - a).reject_from_normalized(axis).length() <= 0.1 * length;
    if !kept.iter().all(|&p| near(p)) {
        return false;
    }
    let cos = 25f32.to_radians().cos();
    let (mut along, mut bones) = (0, 0);
    for (i, bone) in skeleton.bones.iter().enumerate() {
        let Some(parent) = bone.parent.filter(|p| !carrier(p.index())) else {
            continue;
        };
        let d = points[i] - points[parent.index()];
        if d.length() > 1e-6 * length {
            bones += 1;
            along += usize::from(d.normalize().dot(axis).abs() >= cos);
        }
    }
    4 * along >= 3 * bones
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::testing::rig;
    use glam::{Mat4, Quat};

    /// The profile's reference rig with every rest translation replaced by `t(length)`.
    fn laid(t: impl Fn(f32) -> Vec3) -> Skeleton {
        let mut sk = rig(&[Quat::IDENTITY], Mat4::IDENTITY);
        for b in &mut sk.bones {
            b.rest.rotation = Quat::IDENTITY;
            b.rest.translation = t(b.rest.translation.length());
        }
        sk
    }

    #[test]
    fn a_t_pose_is_no_line_but_a_rest_along_one_axis_or_at_one_point_is() {
        let p = Profile::humanoid();
        let sk = rig(&[Quat::IDENTITY], Mat4::IDENTITY);
        assert!(!line_like(&sk, &sk.rest_positions(), p));
        let along = laid(|l| Vec3::X * l);
        assert!(line_like(&along, &along.rest_positions(), p));
        let point = laid(|_| Vec3::ZERO);
        assert!(line_like(&point, &point.rest_positions(), p));
        // A root far off the line that carries the body alone does not count; a bone far off it
        // makes a long line that the other bones do not follow.
        let mut rooted = laid(|l| Vec3::X * l);
        rooted.bones[0].rest.translation = Vec3::new(0.0, 50.0, 0.0);
        assert_eq!(rooted.bones[0].name, "Root");
        assert_eq!(rooted.children()[0].len(), 1);
        assert!(line_like(&rooted, &rooted.rest_positions(), p));
        let mut off = laid(|l| Vec3::X * l);
        let last = off.bones.len() - 1;
        off.bones[last].rest.translation = Vec3::new(0.0, 50.0, 0.0);
        assert!(!line_like(&off, &off.rest_positions(), p));
    }
}
