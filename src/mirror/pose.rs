//! The runtime mirror: prepared once per skeleton (the bones paired through the profile and by
//! name, the plane found), then one call per pose that allocates nothing. The math is
//! [`Reflection`]'s (in `model`, shared with the retarget stack's `Mirror` op): see there for the
//! formulas and what is exact.

use super::{MirrorError, MirrorOptions};
use crate::mapping::{BoneMap, Symmetry};
use crate::model::{BoneId, Pose, Reflection, Skeleton};
use crate::profile::Profile;
use glam::Vec3;

/// Mirrors poses of one skeleton left ↔ right, frame by frame.
///
/// Build it once (it pairs the bones and finds the plane), then call
/// [`mirror_pose`](Mirror::mirror_pose) every frame: it writes the mirrored local transforms,
/// allocating nothing.
///
/// ```
/// use skelnorm::mapping::{map_skeleton, MapOptions};
/// use skelnorm::mirror::{Mirror, MirrorOptions};
/// use skelnorm::model::Pose;
/// use skelnorm::profile::Profile;
///
/// let doc = skelnorm::gltf_io::read("fixtures/mixamo.glb".as_ref()).unwrap();
/// let skeleton = &doc.model.skeletons[0];
/// let map = map_skeleton(skeleton, Profile::humanoid(), &MapOptions::default());
/// let mirror = Mirror::new(skeleton, &map, Profile::humanoid(), &MirrorOptions::default()).unwrap();
/// // Per frame: the pose in, the mirrored pose out.
/// let pose = Pose::sample(skeleton, &doc.model.clips[0], 0.5);
/// let mut mirrored = Pose::rest(skeleton);
/// mirror.mirror_pose(&pose, &mut mirrored).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct Mirror {
    pub(super) reflection: Reflection,
    /// What pairing found, for reports.
    pub(super) symmetry: Symmetry,
    /// Whether the normal was snapped to an axis.
    pub(super) snapped: bool,
    /// Largest distance of a rest joint from the reflection of its counterpart's, divided by
    /// the skeleton's size.
    pub(super) rest_asymmetry: f32,
}

impl Mirror {
    /// Pairs `skeleton`'s bones (through `map` and `profile`, then by name) and finds the plane
    /// as `options` say. Fails when no plane can be found.
    pub fn new(
        skeleton: &Skeleton,
        map: &BoneMap,
        profile: &Profile,
        options: &MirrorOptions,
    ) -> Result<Mirror, MirrorError> {
        if !map.fits(skeleton, profile) {
            return Err(MirrorError::MapMismatch {
                skeleton: skeleton.name.clone(),
            });
        }
        if !(0.0..45.0).contains(&options.snap_deg) {
            return Err(MirrorError::BadOption(format!(
                "snap_deg {} must be in 0..45",
                options.snap_deg
            )));
        }
        let symmetry = Symmetry::find(skeleton, map, profile);
        let (normal, snapped) = symmetry
            .normal(skeleton, options.axis, options.snap_deg)
            .ok_or_else(|| MirrorError::NoPlane {
                skeleton: skeleton.name.clone(),
            })?;
        Ok(Mirror::build(skeleton, symmetry, normal, snapped))
    }

    fn build(skeleton: &Skeleton, symmetry: Symmetry, normal: Vec3, snapped: bool) -> Mirror {
        let reflection = Reflection::new(skeleton, &symmetry.counterpart, normal);
        Mirror {
            rest_asymmetry: reflection.rest_asymmetry(skeleton),
            reflection,
            symmetry,
            snapped,
        }
    }

    /// The plane's unit normal, in the skeleton's space.
    pub fn normal(&self) -> Vec3 {
        self.reflection.normal()
    }

    /// The bone that takes `bone`'s motion (and whose motion `bone` takes).
    pub fn counterpart(&self, bone: BoneId) -> BoneId {
        self.reflection.counterpart(bone)
    }

    /// Whether the hierarchy is symmetric at `bone` (its counterpart's parent is its parent's
    /// counterpart), so its keys map one to one; other bones are resampled in clips.
    pub fn is_symmetric(&self, bone: BoneId) -> bool {
        self.reflection.is_symmetric(bone)
    }

    /// `v` reflected through the plane (a direction: the plane through the origin).
    pub fn reflect_vec(&self, v: Vec3) -> Vec3 {
        self.reflection.reflect_vec(v)
    }

    /// The math behind it: the reflection of this skeleton's poses.
    pub fn reflection(&self) -> &Reflection {
        &self.reflection
    }

    /// Mirrors one pose: `input` holds the skeleton's local transforms, `output` receives the
    /// mirrored ones (every bone is written). Allocates nothing.
    pub fn mirror_pose(&self, input: &Pose, output: &mut Pose) -> Result<(), MirrorError> {
        let n = self.reflection.len();
        for got in [input.locals.len(), output.locals.len()] {
            if got != n {
                return Err(MirrorError::PoseSize { got, want: n });
            }
        }
        self.reflection
            .reflect_pose(&input.locals, &mut output.locals);
        Ok(())
    }
}
