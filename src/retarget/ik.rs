//! Two-bone IK: turn an upper and a lower bone so that the end joint reaches a goal, keeping
//! the bend (knee, elbow) on the side the FK pose put it.

use crate::model::arc;
use glam::{Quat, Vec3};

/// For joints `a` (upper), `b` (middle), `c` (end) and `goal`, the global rotations to apply
/// to the upper bone (about `a`) and then to the lower bone (about the moved `b`) so that the
/// end reaches `goal`, or the nearest point the limb's lengths allow. The middle joint stays in
/// the plane through `a`, the goal and its old place (its old place is the pole).
pub fn two_bone(a: Vec3, b: Vec3, c: Vec3, goal: Vec3) -> (Quat, Quat) {
    let (upper, lower) = (b - a, c - b);
    let (la, lb) = (upper.length(), lower.length());
    let to_goal = goal - a;
    let reach = to_goal.length();
    if la < 1e-9 || lb < 1e-9 || reach < 1e-9 {
        return (Quat::IDENTITY, Quat::IDENTITY);
    }
    let dir = to_goal / reach;
    let d = reach.clamp((la - lb).abs() * (1.0 + 1e-6), (la + lb) * (1.0 - 1e-6));
    let cos_a = ((la * la + d * d - lb * lb) / (2.0 * la * d)).clamp(-1.0, 1.0);
    let sin_a = (1.0 - cos_a * cos_a).max(0.0).sqrt();
    let mut bend = upper - dir * upper.dot(dir);
    if bend.length_squared() < 1e-12 * la * la {
        // The FK limb is straight along the goal: bend within its own plane, else anywhere.
        let normal = upper.cross(c - a);
        bend = if normal.length_squared() > 1e-12 {
            normal.cross(dir)
        } else {
            dir.any_orthonormal_vector()
        };
    }
    let bend = bend.normalize();
    let b_new = a + la * (cos_a * dir + sin_a * bend);
    let first = arc(upper / la, (b_new - a) / la);
    let c_moved = a + first * (c - a);
    let reached = a + dir * d;
    let second = arc((c_moved - b_new).normalize(), (reached - b_new).normalize());
    (first, second)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(a: Vec3, b: Vec3, c: Vec3, goal: Vec3) -> (Vec3, Vec3) {
        let (r1, r2) = two_bone(a, b, c, goal);
        let b2 = a + r1 * (b - a);
        let c1 = a + r1 * (c - a);
        (b2, b2 + r2 * (c1 - b2))
    }

    #[test]
    fn reaches_goals_within_reach_and_keeps_lengths_and_bend_side() {
        let (a, b, c) = (
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.5, 0.05),
            Vec3::new(0.0, 0.0, 0.0),
        );
        for goal in [
            Vec3::new(0.1, 0.2, 0.2),
            Vec3::new(-0.2, 0.4, -0.1),
            Vec3::new(0.0, 0.05, 0.0),
        ] {
            let (b2, c2) = apply(a, b, c, goal);
            assert!(c2.distance(goal) < 1e-4, "{goal}: reached {c2}");
            assert!(((b2 - a).length() - (b - a).length()).abs() < 1e-5);
            assert!(((c2 - b2).length() - (c - b).length()).abs() < 1e-5);
            // The knee stays on the side of the hip–goal line where the FK knee was (the pole).
            let dir = (goal - a).normalize();
            let off = |k: Vec3| (k - a) - dir * (k - a).dot(dir);
            assert!(off(b2).dot(off(b)) > 0.0, "{goal}: knee went {}", off(b2));
            assert!(
                off(b2).normalize().distance(off(b).normalize()) < 1e-4,
                "{goal}: left the pole's plane"
            );
        }
        // Out of reach: the limb points straight at the goal.
        let (_, c2) = apply(a, b, c, Vec3::new(0.0, -2.0, 0.0));
        assert!((c2 - a).normalize().distance(Vec3::NEG_Y) < 1e-3);
    }
}
