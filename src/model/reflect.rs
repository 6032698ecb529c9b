//! Reflecting poses left ↔ right across a plane: the math of mirroring, shared by the mirror
//! stage and the retarget stack's `Mirror` op. Prepared once per skeleton from each bone's
//! counterpart and the plane's normal, then one call per pose that allocates nothing.
//!
//! The math (rotations as quaternions, `S` the reflection through the plane with unit normal `n`,
//! `refl(q) = S q S`, which for `q = (v, w)` is `(2 (v·n) n − v, w)`; `R_i` the rotation-only
//! global rest of bone `i` in the skeleton's space, `Q_i` its global rotation in the pose, `c(i)`
//! its counterpart, `p(i)` its parent, and the identity for the parent of a root):
//! - the pose of bone `j` is its counterpart's change from rest, reflected, applied to `j`'s own
//!   rest: `Q'_j = refl(Q_c(j) · R_c(j)⁻¹) · R_j`, and its local rotation is
//!   `q'_j = Q'_p(j)⁻¹ · Q'_j`;
//! - a translation moves `j` by its counterpart's displacement from rest, reflected:
//!   `t'_j = t°_j + Q'_p(j)⁻¹ · S · Q_p(c(j)) · (t_c(j) − t°_c(j))`, with `t°` the rest
//!   translation; for roots this mirrors root motion across the plane through their rest;
//! - scale is the counterpart's, unchanged.
//!
//! Mirroring twice gives the pose back exactly (up to rounding), for any rest. When the
//! hierarchy is symmetric at bone `j` (`p(c(j)) = c(p(j))`) the formulas reduce to constant maps
//! of the counterpart's own local values, `q'_j = α_j · refl(q_c(j)) · β_j` with
//! `α_j = R_p(j)⁻¹ · refl(R_c(p(j)))`, `β_j = refl(R_c(j)⁻¹) · R_j`, and
//! `t'_j = t°_j + M_j (t_c(j) − t°_c(j))` with `M_j = R_p(j)⁻¹ S R_c(p(j))`: keys map one to one
//! (what the mirror stage's clip mirroring uses), no world pass needed. Other bones (a prop
//! on one hand, a side bone without counterpart below a side bone) take the world formulas.
//!
//! When the rest joint positions are symmetric across the plane, every joint of the mirrored
//! pose lands exactly on the reflection of its counterpart's joint, whatever the bones' rest
//! frames (axes). When they are not, each bone still turns by its counterpart's reflected change
//! from rest, so joints are off their counterparts' reflections by the rest's own asymmetry
//! ([`Reflection::rest_asymmetry`]). Scales are treated as
//! uniform in the math (their values carry over unchanged).

use super::{BoneId, Skeleton, Transform};
use glam::{Mat3, Mat3A, Mat4, Quat, Vec3, Vec3A, Vec4};

const NONE: u32 = u32::MAX;

/// Reflects poses of one skeleton left ↔ right: each bone takes its counterpart's motion,
/// reflected through a plane. Build it once, then [`reflect_pose`](Reflection::reflect_pose)
/// per frame (no allocation).
#[derive(Debug, Clone, PartialEq)]
pub struct Reflection {
    normal: Vec3,
    counterpart: Vec<u32>,
    parent: Vec<u32>,
    /// Local rests (their translations are `t°`).
    rest: Vec<Transform>,
    /// Rotation-only global rests `R_i` and their inverses.
    rest_world: Vec<Quat>,
    rest_world_inv: Vec<Quat>,
    /// Per bone, whether the hierarchy is symmetric there (the key maps apply).
    symmetric: Vec<bool>,
    /// Per bone, `q ↦ α_j · refl(q) · β_j` as a 4×4 matrix on (x, y, z, w).
    rotation_map: Vec<Mat4>,
    shift: Vec<Mat3A>,
}

impl Reflection {
    /// The reflection of `skeleton`'s poses through the plane with unit `normal` (in the
    /// skeleton's space, the space its roots live in). `counterpart[i]` is bone `i`'s counterpart
    /// (itself for a center bone); the caller makes sure it has one entry per bone and pairs
    /// bones both ways.
    pub fn new(skeleton: &Skeleton, counterpart: &[BoneId], normal: Vec3) -> Reflection {
        let parent: Vec<u32> = skeleton
            .bones
            .iter()
            .map(|b| b.parent.map_or(NONE, |p| p.0))
            .collect();
        let counterpart: Vec<u32> = counterpart.iter().map(|c| c.0).collect();
        let rest: Vec<Transform> = skeleton.bones.iter().map(|b| b.rest).collect();
        let rest_world = skeleton.accumulate(Quat::IDENTITY, rest.iter(), |p, l| {
            (p * l.rotation).normalize()
        });
        let rest_world_inv: Vec<Quat> = rest_world.iter().map(|q| q.inverse()).collect();
        let world = |k: u32| {
            if k == NONE {
                Quat::IDENTITY
            } else {
                rest_world[k as usize]
            }
        };
        let across = |k: u32| {
            if k == NONE {
                NONE
            } else {
                counterpart[k as usize]
            }
        };
        let s = Mat3::IDENTITY
            - 2.0 * Mat3::from_cols(normal * normal.x, normal * normal.y, normal * normal.z);
        let n = parent.len();
        let mut m = Reflection {
            normal,
            counterpart: counterpart.clone(),
            parent: parent.clone(),
            symmetric: Vec::with_capacity(n),
            rotation_map: Vec::with_capacity(n),
            shift: Vec::with_capacity(n),
            rest,
            rest_world: rest_world.clone(),
            rest_world_inv,
        };
        for j in 0..n {
            let (p, c) = (parent[j], counterpart[j]);
            let cp = across(p);
            m.symmetric.push(parent[c as usize] == cp);
            let alpha = world(p).inverse() * m.reflect(world(cp));
            let beta = m.reflect(world(c).inverse()) * rest_world[j];
            let column = |e: Vec4| Vec4::from(alpha * m.reflect(Quat::from_vec4(e)) * beta);
            m.rotation_map.push(Mat4::from_cols(
                column(Vec4::X),
                column(Vec4::Y),
                column(Vec4::Z),
                column(Vec4::W),
            ));
            let shift = Mat3::from_quat(world(p).inverse()) * s * Mat3::from_quat(world(cp));
            m.shift.push(Mat3A::from(shift));
        }
        m
    }

    /// Largest distance of a rest joint from the reflection of its counterpart's joint across
    /// the plane through the first root's rest joint, divided by the skeleton's size (its largest
    /// extent along an axis), over the bones where the hierarchy is symmetric (a prop on one hand
    /// is never at its reflection): 0 for a symmetric rest. `skeleton` is the one it was made for.
    pub fn rest_asymmetry(&self, skeleton: &Skeleton) -> f32 {
        let p = skeleton.rest_positions();
        let Some(&origin) = p.first() else {
            return 0.0;
        };
        let size = super::extent(&p);
        let worst = (0..p.len().min(self.symmetric.len()))
            .filter(|&i| self.symmetric[i])
            .map(|i| {
                let mirrored = origin + self.reflect_vec(p[i] - origin);
                (mirrored - p[self.counterpart[i] as usize]).length()
            })
            .fold(0.0f32, f32::max);
        if size > 0.0 {
            worst / size
        } else {
            0.0
        }
    }

    /// Bones it reflects.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Whether it reflects no bone.
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The plane's unit normal, in the skeleton's space.
    pub fn normal(&self) -> Vec3 {
        self.normal
    }

    /// The bone that takes `bone`'s motion (and whose motion `bone` takes).
    pub fn counterpart(&self, bone: BoneId) -> BoneId {
        BoneId(self.counterpart[bone.index()])
    }

    /// Whether the hierarchy is symmetric at `bone` (its counterpart's parent is its parent's
    /// counterpart), so its keys map one to one.
    pub fn is_symmetric(&self, bone: BoneId) -> bool {
        self.symmetric[bone.index()]
    }

    /// `v` reflected through the plane (a direction: the plane through the origin).
    pub fn reflect_vec(&self, v: Vec3) -> Vec3 {
        v - 2.0 * v.dot(self.normal) * self.normal
    }

    /// The rotation `S q S`: `q` seen in the mirror (a proper rotation again).
    pub fn reflect(&self, q: Quat) -> Quat {
        let v = Vec3::new(q.x, q.y, q.z);
        let r = 2.0 * v.dot(self.normal) * self.normal - v;
        Quat::from_xyzw(r.x, r.y, r.z, q.w)
    }

    /// Bone `j`'s local rotation value for its counterpart's local value `q` (symmetric bones).
    /// Linear in the four components: it maps cubic-spline tangents too.
    pub fn key_rotation(&self, j: BoneId, q: Quat) -> Quat {
        Quat::from_vec4(self.rotation_map[j.index()] * Vec4::from(q))
    }

    /// Bone `j`'s translation change for its counterpart's change `d` from rest (symmetric
    /// bones): `M_j d`. Linear: it maps tangents too.
    pub fn key_shift(&self, j: BoneId, d: Vec3) -> Vec3 {
        Vec3::from(self.shift[j.index()] * Vec3A::from(d))
    }

    /// Rest local translation `t°` of bone `j`.
    pub fn rest_translation(&self, j: BoneId) -> Vec3 {
        self.rest[j.index()].translation
    }

    /// Sets the rest translation used as `t°` of bone `j` (for clips whose root motion is
    /// scaled).
    pub fn set_rest_translation(&mut self, j: BoneId, t: Vec3) {
        self.rest[j.index()].translation = t;
    }

    /// Reflects one pose: `input` holds the skeleton's local transforms, `output` receives the
    /// reflected ones. Both must have one entry per bone ([`Self::len`]); bones past the shorter
    /// are left alone. Allocates nothing.
    pub fn reflect_pose(&self, input: &[Transform], output: &mut [Transform]) {
        let n = self.len().min(input.len()).min(output.len());
        for (j, out) in output.iter_mut().enumerate().take(n) {
            *out = self.reflect_bone(BoneId(j as u32), input);
        }
    }

    /// The reflected local transform of bone `j`, from the pose's locals (one per bone).
    pub fn reflect_bone(&self, j: BoneId, locals: &[Transform]) -> Transform {
        let j = j.index();
        let c = self.counterpart[j] as usize;
        let from = &locals[c];
        let rest_c = self.rest[c].translation;
        if self.symmetric[j] {
            return Transform {
                translation: self.rest[j].translation
                    + self.key_shift(BoneId(j as u32), from.translation - rest_c),
                rotation: self
                    .key_rotation(BoneId(j as u32), from.rotation)
                    .normalize(),
                scale: from.scale,
            };
        }
        let parent = self.parent[j];
        let new_parent = self.new_world(parent, locals);
        let inv = new_parent.inverse();
        let moved = self.world(self.parent[c], locals) * (from.translation - rest_c);
        Transform {
            translation: self.rest[j].translation + inv * self.reflect_vec(moved),
            rotation: (inv * self.new_world(j as u32, locals)).normalize(),
            scale: from.scale,
        }
    }

    /// `Q_k`: bone `k`'s rotation-only global rotation in the pose (identity for `NONE`).
    fn world(&self, k: u32, locals: &[Transform]) -> Quat {
        let mut q = Quat::IDENTITY;
        let mut at = k;
        while at != NONE {
            q = locals[at as usize].rotation * q;
            at = self.parent[at as usize];
        }
        q
    }

    /// `Q'_k = refl(Q_c(k) · R_c(k)⁻¹) · R_k`: bone `k`'s global rotation in the reflected pose.
    fn new_world(&self, k: u32, locals: &[Transform]) -> Quat {
        if k == NONE {
            return Quat::IDENTITY;
        }
        let c = self.counterpart[k as usize];
        let delta = self.world(c, locals) * self.rest_world_inv[c as usize];
        self.reflect(delta) * self.rest_world[k as usize]
    }
}
