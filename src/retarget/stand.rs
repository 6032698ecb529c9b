//! Standing a clip source on its feet: a rest whose hips lie on the floor, its legs below it (a
//! clip-only file such as a VRMA test clip), gives the root pass nothing to scale root motion
//! from (three-vrm-animation warns of the same: "the y component of the rest hips position is
//! approximately zero"). Raised until its lowest foot joint stands on the floor, the rest
//! stands as a character's does, and a clip that keys its hips (at their height above the
//! floor, as such files do) moves from it; one that does not keeps its hips where the rest
//! puts them.

use crate::mapping::BoneMap;
use crate::model::{Skeleton, Warning, WarningCode};
use crate::profile::Profile;
use glam::{Mat4, Vec3};

/// `skeleton` (mapped by `map` to `profile`) with its hips raised by how far its lowest mapped
/// foot or toe joint lies below the floor (y = 0 in the skeleton's space), when its hips rest
/// on the floor (within 1e-3 of its height) and its feet below it: the hips' rest translation
/// changes, nothing else; with a warning saying so. `None` when the rest stands (or has no hips
/// or feet mapped to stand it by).
pub fn stood_on_feet(
    skeleton: &Skeleton,
    map: &BoneMap,
    profile: &Profile,
) -> Option<(Skeleton, Warning)> {
    let bone = |name: &str| profile.find(name).and_then(|p| map.get(p));
    let hips = bone("Hips")?;
    let size = skeleton.height().max(1e-12);
    let world = skeleton.accumulate(
        Mat4::IDENTITY,
        skeleton.bones.iter().map(|b| b.rest),
        |parent, local| parent * local.to_mat4(),
    );
    let y = |b: crate::model::BoneId| world[b.index()].w_axis.y;
    if y(hips).abs() >= 1e-3 * size {
        return None;
    }
    let lowest = ["LeftFoot", "RightFoot", "LeftToes", "RightToes"]
        .iter()
        .filter_map(|n| bone(n))
        .map(y)
        .fold(f32::INFINITY, f32::min);
    let lift = y(hips) - lowest;
    if !lift.is_finite() || lift < 1e-3 * size {
        return None;
    }
    // The rise in the hips' parent's space (or the skeleton's, for a root).
    let up = Vec3::new(0.0, lift - y(hips), 0.0);
    let mut stood = skeleton.clone();
    let h = &mut stood.bones[hips.index()];
    let parent = h.parent.map_or(Mat4::IDENTITY, |p| world[p.index()]);
    h.rest.translation += parent.inverse().transform_vector3(up);
    let warning = Warning {
        code: WarningCode::SourceStood,
        skeleton: None,
        message: format!(
            "the source's hips rest on the floor with its feet {lift:.3} below it: its rest was \
             stood on its feet (hips raised to {lift:.3}) so that its clips move from standing"
        ),
        bones: vec![skeleton.bones[hips.index()].name.clone()],
        clips: Vec::new(),
        chain: None,
    };
    Some((stood, warning))
}
