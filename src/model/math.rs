//! Small angle helpers every stage measures with: angles between vectors and rotations, and the
//! shortest rotation between two directions, all accurate near 0.

use glam::{Quat, Vec3};

/// Angle between two vectors in degrees, accurate near 0 (unlike `acos`); 0 when either
/// vanishes.
pub fn angle_deg(a: Vec3, b: Vec3) -> f32 {
    if a.length_squared() < 1e-20 || b.length_squared() < 1e-20 {
        return 0.0;
    }
    a.cross(b).length().atan2(a.dot(b)).to_degrees()
}

/// How far a rotation turns, in degrees (0 to 180), accurate near 0.
pub fn turn_deg(q: Quat) -> f32 {
    (2.0 * q.xyz().length().atan2(q.w.abs())).to_degrees()
}

/// The shortest rotation turning unit vector `from` into unit vector `to`, accurate for tiny
/// angles too (glam's `Quat::from_rotation_arc` returns the identity below about 0.05°).
pub fn arc(from: Vec3, to: Vec3) -> Quat {
    let axis = from.cross(to);
    let (sin, cos) = (axis.length(), from.dot(to));
    if sin < 1e-12 {
        return if cos > 0.0 {
            Quat::IDENTITY
        } else {
            Quat::from_rotation_arc(from, to)
        };
    }
    Quat::from_axis_angle(axis / sin, sin.atan2(cos))
}

/// The rotation about +Y (yaw) contained in `q`: its twist about the vertical (the identity
/// when `q` has none, a half turn about a horizontal axis).
pub fn yaw_of(q: Quat) -> Quat {
    let twist = Quat::from_xyzw(0.0, q.y, 0.0, q.w);
    if twist.length_squared() < 1e-12 {
        Quat::IDENTITY
    } else {
        twist.normalize()
    }
}

/// The direction the middle joint `b` of a limb bends to, away from the line from `a` (upper
/// joint) to `c` (end) (unit); `None` for a limb straight within 1% of its upper bone's length.
pub fn pole(a: Vec3, b: Vec3, c: Vec3) -> Option<Vec3> {
    let line = (c - a).normalize_or_zero();
    let off = (b - a) - line * (b - a).dot(line);
    (off.length() > 0.01 * (b - a).length()).then(|| off.normalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angles_are_accurate_near_zero() {
        let tiny = Vec3::new(1.0, 1e-6, 0.0).normalize();
        assert!((angle_deg(Vec3::X, tiny) - 1e-6f32.to_degrees()).abs() < 1e-9);
        assert_eq!(angle_deg(Vec3::ZERO, Vec3::X), 0.0);
        let q = Quat::from_rotation_z(1e-5);
        assert!((turn_deg(q) - 1e-5f32.to_degrees()).abs() < 1e-8);
        assert!((arc(Vec3::X, tiny) * Vec3::X - tiny).length() < 1e-7);
    }

    /// Regression (found by the property test): glam's `from_rotation_arc` returns the identity for
    /// vectors 0.04° apart, which left a foot's +Y off its toes.
    #[test]
    fn small_arcs_are_not_lost() {
        let from = Vec3::Z;
        let to = Vec3::new(0.0, -0.0007091218, 0.9999997).normalize();
        let q = arc(from, to);
        assert!((q * from - to).length() < 1e-7, "{}", q * from);
    }
}
