//! Similarity transforms (translation, rotation, uniform positive scale): the only kind of
//! change of frame the rest fix makes, because it keeps TRS keys exact.

use crate::model::Transform;
use glam::{Mat3, Mat4, Quat, Vec3};

/// Largest relative difference between scale axes still treated as uniform.
pub(crate) const UNIFORM_TOLERANCE: f32 = 1e-3;

/// `T(t) · R(r) · s`, a transform with one positive scale factor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Sim {
    pub t: Vec3,
    pub r: Quat,
    pub s: f32,
}

impl Sim {
    pub const IDENTITY: Sim = Sim {
        t: Vec3::ZERO,
        r: Quat::IDENTITY,
        s: 1.0,
    };

    /// A pure rotation.
    pub fn rotation(r: Quat) -> Sim {
        Sim { r, ..Sim::IDENTITY }
    }

    /// The similarity of a TRS transform, or `None` when its scale is not uniform and positive.
    pub fn from_transform(t: &Transform) -> Option<Sim> {
        uniform(t.scale).map(|s| Sim {
            t: t.translation,
            r: t.rotation.normalize(),
            s,
        })
    }

    /// The nearest similarity of a TRS transform: its scale's geometric mean (by magnitude)
    /// stands for a non-uniform scale.
    pub fn approx(t: &Transform) -> Sim {
        Sim {
            t: t.translation,
            r: t.rotation.normalize(),
            s: (t.scale.x * t.scale.y * t.scale.z).abs().cbrt().max(1e-30),
        }
    }

    /// The similarity of a matrix, or `None` when it has shear, mirroring or a non-uniform scale.
    pub fn from_mat4(m: &Mat4) -> Option<Sim> {
        if !m.is_finite() || m.determinant() <= 0.0 {
            return None;
        }
        let sim = Sim::from_transform(&Transform::from_mat4(m))?;
        let back = sim.to_mat4();
        let size = m.x_axis.truncate().length().max(1e-30);
        let close = (0..3).all(|c| (back.col(c) - m.col(c)).truncate().length() <= 1e-4 * size);
        close.then_some(sim)
    }

    pub fn to_mat4(self) -> Mat4 {
        Mat4::from_scale_rotation_translation(Vec3::splat(self.s), self.r, self.t)
    }

    /// `self · o`.
    pub fn mul(self, o: Sim) -> Sim {
        Sim {
            t: self.point(o.t),
            r: (self.r * o.r).normalize(),
            s: self.s * o.s,
        }
    }

    pub fn inverse(self) -> Sim {
        let r = self.r.conjugate();
        Sim {
            t: -(r * self.t) / self.s,
            r,
            s: 1.0 / self.s,
        }
    }

    pub fn point(self, p: Vec3) -> Vec3 {
        self.t + self.r * (p * self.s)
    }
}

/// The common factor of a scale vector, if its axes agree within [`UNIFORM_TOLERANCE`] and are
/// positive.
pub(crate) fn uniform(scale: Vec3) -> Option<f32> {
    let (lo, hi) = (scale.min_element(), scale.max_element());
    (lo > 0.0 && (hi - lo) <= UNIFORM_TOLERANCE * hi).then(|| (scale.x * scale.y * scale.z).cbrt())
}

/// The rotation about `axis` (unit) that turns `from`'s projection onto `axis`'s normal plane
/// into `to`'s, or the identity when either projection vanishes.
pub(crate) fn twist_between(axis: Vec3, from: Vec3, to: Vec3) -> Quat {
    let a = from - axis * from.dot(axis);
    let b = to - axis * to.dot(axis);
    if a.length_squared() < 1e-12 || b.length_squared() < 1e-12 {
        return Quat::IDENTITY;
    }
    let angle = a.cross(b).dot(axis).atan2(a.dot(b));
    Quat::from_axis_angle(axis, angle)
}

/// The 24 rotations that map the coordinate axes onto coordinate axes (quarter turns).
fn quarter_turns() -> impl Iterator<Item = Quat> {
    let axes = [
        Vec3::X,
        Vec3::Y,
        Vec3::Z,
        Vec3::NEG_X,
        Vec3::NEG_Y,
        Vec3::NEG_Z,
    ];
    axes.into_iter().flat_map(move |x| {
        axes.into_iter()
            .filter(move |y| x.dot(*y) == 0.0)
            .map(move |y| Quat::from_mat3(&Mat3::from_cols(x, y, x.cross(y))))
    })
}

/// The quarter-turn rotation nearest `q`: a change of frame that keeps a non-uniform scale a
/// scale along the bone's axes (its axes only swap places), so keys stay exact.
pub(crate) fn nearest_quarter_turn(q: Quat) -> Quat {
    quarter_turns()
        .max_by(|a, b| a.dot(q).abs().total_cmp(&b.dot(q).abs()))
        .unwrap_or(Quat::IDENTITY)
}

/// For a rotation `q` that keeps every axis on an axis (the identity or a quarter turn, within
/// rounding), which old scale axis each new axis takes: a scale `k` becomes
/// `q⁻¹ · diag(k) · q = diag(k[p[0]], k[p[1]], k[p[2]])`. `None` for any other rotation.
pub(crate) fn quarter_turn_axes(q: glam::DQuat) -> Option<[usize; 3]> {
    let m = glam::DMat3::from_quat(q);
    let mut p = [0, 1, 2];
    for (a, slot) in p.iter_mut().enumerate() {
        let col = m.col(a).abs();
        *slot = (0..3).find(|&b| col[b] > 1.0 - 1e-6)?;
    }
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quarter_turns_keep_a_scale_on_the_axes() {
        assert_eq!(quarter_turns().count(), 24);
        let q = Quat::from_rotation_y(0.3) * Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let g = nearest_quarter_turn(q);
        let z = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        assert!(g.dot(z).abs() > 1.0 - 1e-6, "{g} {z}");
        // diag(k) · g = g · diag(k permuted): the scale stays a scale along the new axes.
        let k = Vec3::new(1.0, 2.0, 3.0);
        let p = quarter_turn_axes(g.as_dquat()).unwrap();
        let left = Mat3::from_diagonal(k) * Mat3::from_quat(g);
        let right = Mat3::from_quat(g) * Mat3::from_diagonal(Vec3::new(k[p[0]], k[p[1]], k[p[2]]));
        assert!(left.abs_diff_eq(right, 1e-5), "{left} {right}");
        assert_eq!(
            quarter_turn_axes(Quat::from_rotation_x(0.4).as_dquat()),
            None
        );
    }

    #[test]
    fn composes_and_inverts() {
        let a = Sim {
            t: Vec3::new(1.0, 2.0, 3.0),
            r: Quat::from_rotation_x(0.7),
            s: 0.01,
        };
        let b = Sim {
            t: Vec3::new(-4.0, 0.5, 2.0),
            r: Quat::from_rotation_y(-1.2),
            s: 3.0,
        };
        let m = a.mul(b).to_mat4();
        assert!(m.abs_diff_eq(a.to_mat4() * b.to_mat4(), 1e-5));
        assert!(a
            .mul(a.inverse())
            .to_mat4()
            .abs_diff_eq(Mat4::IDENTITY, 1e-5));
        assert_eq!(
            Sim::from_mat4(&Mat4::from_scale(Vec3::new(1.0, 2.0, 1.0))),
            None
        );
        assert_eq!(
            Sim::from_mat4(&Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0))),
            None
        );
        let back = Sim::from_mat4(&m).unwrap();
        assert!(back.to_mat4().abs_diff_eq(m, 1e-5));
    }

    #[test]
    fn twist_turns_about_the_axis() {
        let q = twist_between(Vec3::Y, Vec3::X, Vec3::new(0.0, 5.0, -1.0));
        assert!((q * Vec3::X - Vec3::NEG_Z).length() < 1e-6);
    }
}
