//! The stack's last op, `Mirror`: the finished target pose mirrored left ↔ right across the
//! target's sagittal plane, with the pairing (`mapping::Symmetry`) and the math
//! (`model::Reflection`) the mirror stage uses, so that retargeting with it equals retargeting
//! and then `skelnorm mirror`. Prepared once; per frame it allocates nothing.

use super::Retargeter;
use crate::mapping::Symmetry;
use crate::model::{BoneId, Pose, Reflection, Transform};
use crate::retarget::{MirrorOp, RetargetError, Rig};

/// The `Mirror` op as the runtime runs it.
#[derive(Debug, Clone)]
pub(crate) struct MirrorStep {
    reflection: Reflection,
    alpha: f32,
    /// The unmirrored pose, one entry per target bone (scratch, sized once).
    scratch: Vec<Transform>,
    /// The bones an offline clip records: rotations, translations (see [`Retargeter::recorded`]).
    rotated: Vec<BoneId>,
    moved: Vec<BoneId>,
}

impl MirrorStep {
    /// Pairs the target's bones and finds its plane as `op` says; `rotated` and `moved` are the
    /// bones the retarget writes rotations and translations of.
    pub(crate) fn new(
        target: &Rig,
        op: &MirrorOp,
        rotated: &[BoneId],
        moved: &[BoneId],
    ) -> Result<MirrorStep, RetargetError> {
        let skeleton = target.skeleton;
        let symmetry = Symmetry::find(skeleton, target.map, target.profile);
        let (normal, _) = symmetry
            .normal(skeleton, op.axis, op.snap_deg)
            .ok_or_else(|| {
                RetargetError::BadOption(format!(
                    "ops = Mirror: skeleton `{}` has no left/right bone pair to find the \
                     sagittal plane from (give the op's `axis`)",
                    skeleton.name
                ))
            })?;
        let reflection = Reflection::new(skeleton, &symmetry.counterpart, normal);
        // A bone's mirrored value comes from its counterpart's (or, where the hierarchy is not
        // symmetric, from the bones above): record those too.
        let n = skeleton.bones.len();
        let closure = |written: &[BoneId]| -> Vec<BoneId> {
            let mut on = vec![false; n];
            for &b in written {
                on[b.index()] = true;
                on[reflection.counterpart(b).index()] = true;
            }
            (0..n as u32)
                .map(BoneId)
                .filter(|&b| on[b.index()] || !reflection.is_symmetric(b))
                .collect()
        };
        Ok(MirrorStep {
            rotated: closure(rotated),
            moved: closure(moved),
            scratch: vec![Transform::IDENTITY; n],
            alpha: op.alpha,
            reflection,
        })
    }

    /// The reflection it mirrors with.
    pub(crate) fn reflection(&self) -> &Reflection {
        &self.reflection
    }

    /// The bones an offline clip records with it on: rotations, translations.
    pub(crate) fn recorded(&self) -> (&[BoneId], &[BoneId]) {
        (&self.rotated, &self.moved)
    }
}

impl Retargeter {
    /// Mirrors the finished pose, blended by the op's `alpha` from the unmirrored.
    pub(super) fn mirror_op(&mut self, target: &mut Pose) {
        let Some(m) = self.mirror.as_mut() else {
            return;
        };
        m.scratch.copy_from_slice(&target.locals);
        m.reflection.reflect_pose(&m.scratch, &mut target.locals);
        if m.alpha >= 1.0 {
            return;
        }
        for (now, was) in target.locals.iter_mut().zip(&m.scratch) {
            now.rotation = was.rotation.slerp(now.rotation, m.alpha).normalize();
            now.translation = was.translation.lerp(now.translation, m.alpha);
            now.scale = was.scale.lerp(now.scale, m.alpha);
        }
    }
}
