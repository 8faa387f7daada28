//! Every picture, drawn from limits fitted to half of a real clip and shown the whole clip:
//! decoded back, the right size, not blank, and a known inside sample and a known outside sample
//! at their pixels in their colours.

use glam::{Quat, Vec3};
use jointlimits::fit::{FitOptions, ShapeKind, fit_skeleton_limits};
use jointlimits::measure::bone_axis;
use jointlimits::{JointLimit, Motion, SkeletonLimits, SpaceKind};
use jointlimits_io::bvh::read_bvh_file;
use jointlimits_plot::style::{INSIDE, OUTSIDE};
use jointlimits_plot::{Figure, LimitSpaceFigure, Overview, SwingChart, Timeline, to_png, to_svg};
use plotters::style::RGBColor;

/// An RGB image decoded from PNG bytes.
struct Decoded {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

impl Decoded {
    fn of(bytes: &[u8]) -> Decoded {
        let decoder = png::Decoder::new(bytes);
        let mut reader = decoder.read_info().expect("a PNG header");
        let mut pixels = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut pixels).expect("PNG data");
        assert_eq!(info.color_type, png::ColorType::Rgb);
        pixels.truncate(info.buffer_size());
        Decoded {
            width: info.width,
            height: info.height,
            pixels,
        }
    }

    fn at(&self, (x, y): (i32, i32)) -> RGBColor {
        assert!(x >= 0 && y >= 0 && (x as u32) < self.width && (y as u32) < self.height);
        let i = 3 * (y as usize * self.width as usize + x as usize);
        RGBColor(self.pixels[i], self.pixels[i + 1], self.pixels[i + 2])
    }

    fn distinct_colours(&self) -> usize {
        let mut colours: Vec<[u8; 3]> = self.pixels.chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
        colours.sort_unstable();
        colours.dedup();
        colours.len()
    }
}

/// Renders `figure` to PNG and SVG, checks both, and returns the decoded PNG.
fn rendered(figure: &impl Figure, title: &str) -> Decoded {
    let png = to_png(figure).expect("renders to PNG");
    let decoded = Decoded::of(&png);
    assert_eq!((decoded.width, decoded.height), figure.size());
    assert!(
        decoded.distinct_colours() > 20,
        "{title}: the picture is nearly blank"
    );
    let svg = to_svg(figure).expect("renders to SVG");
    assert!(
        svg.starts_with("<svg") && svg.contains(title),
        "{title}: SVG without its title"
    );
    decoded
}

/// The clip, its skeleton's limits fitted to the first half, and a joint that the second half
/// takes outside them.
fn fitted(space: SpaceKind, shape: ShapeKind) -> Option<Fitted> {
    let path = jointlimits_testdata::fixture("cmu_daz/salsa_10.bvh")?;
    let bvh = read_bvh_file(path).expect("the fixture reads");
    let motion = bvh.to_motion();
    let half = motion.frames(0..motion.frame_count() / 2);
    let options = FitOptions {
        space,
        shape,
        padding: 0.0,
        ..FitOptions::default()
    };
    let limits = fit_skeleton_limits(&bvh.skeleton, &[&half], &options, &|_| {}).expect("fits");
    let axes = bvh.skeleton.twist_axes(Vec3::ZERO);
    let bone_axes = limits
        .joints
        .iter()
        .map(|l| bone_axis(l, bvh.skeleton.find(&l.joint).map(|j| axes[j])))
        .collect();
    let names = bvh
        .skeleton
        .joints()
        .iter()
        .map(|j| j.name.clone())
        .collect();
    Some((motion, limits, bone_axes, names))
}

/// The clip, the limits, each limit's bone axis, and the skeleton's joint names.
type Fitted = (Motion, SkeletonLimits, Vec<Vec3>, Vec<String>);

/// Joints by how telling their pictures are: most samples outside (with some inside) first.
fn telling_joints(motion: &Motion, limits: &SkeletonLimits, names: &[String]) -> Vec<usize> {
    let mut joints: Vec<usize> = (0..limits.joints.len()).collect();
    joints.sort_by_key(|&i| {
        let samples = samples(motion, names, &limits.joints[i].joint);
        let outside = samples
            .iter()
            .filter(|&&q| !limits.joints[i].contains(q))
            .count();
        let inside = samples.len() - outside;
        std::cmp::Reverse(if inside >= 20 { outside } else { 0 })
    });
    joints
}

/// The joint's local rotations over the clip.
fn samples(motion: &Motion, names: &[String], joint: &str) -> Vec<Quat> {
    let index = names.iter().position(|n| n == joint).unwrap();
    (0..motion.frame_count())
        .map(|f| motion.frame_rotations(f)[index])
        .collect()
}

/// A sample inside the limit whose pixel no outside sample covers, and an outside one.
fn known_samples(
    limit: &JointLimit,
    samples: &[Quat],
    pixel: impl Fn(Quat) -> (i32, i32),
) -> Option<((i32, i32), (i32, i32))> {
    let outside: Vec<(i32, i32)> = samples
        .iter()
        .filter(|&&q| !limit.contains(q))
        .map(|&q| pixel(limit.relative(q)))
        .collect();
    let inside = samples
        .iter()
        .filter(|&&q| limit.contains(q))
        .map(|&q| pixel(limit.relative(q)))
        .find(|p| {
            outside
                .iter()
                .all(|o| (o.0 - p.0).pow(2) + (o.1 - p.1).pow(2) > 49)
        })?;
    Some((inside, *outside.get(outside.len() / 2)?))
}

fn skip() -> bool {
    if jointlimits_testdata::mocap_dir().is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs the mocap fixtures"
        );
        eprintln!("skipped: no mocap fixtures (../shared/data/mocap or JOINTLIMITS_TEST_DATA)");
        return true;
    }
    false
}

#[test]
fn swing_charts_put_samples_where_they_belong() {
    if skip() {
        return;
    }
    for (space, shape) in [
        (SpaceKind::Full, ShapeKind::Ellipsoid),
        (SpaceKind::SwingTwist, ShapeKind::Box),
        (SpaceKind::SwingTwist, ShapeKind::ReachCone),
    ] {
        let (motion, limits, axes, names) = fitted(space, shape).unwrap();
        // The first telling joint whose chart has an inside sample clear of the outside ones
        // (samples outside only by their twist share a direction with inside ones).
        let (limit, samples, chart, known) = telling_joints(&motion, &limits, &names)
            .into_iter()
            .find_map(|index| {
                let limit = &limits.joints[index];
                let samples = samples(&motion, &names, &limit.joint);
                let chart = SwingChart::new(limit, axes[index], &samples);
                let known = known_samples(limit, &samples, |q| chart.pixel_of(q))?;
                Some((limit, samples, chart, known))
            })
            .expect("a joint with both kinds of samples");
        let image = rendered(&chart, &limit.joint);
        assert_eq!(image.at(known.0), INSIDE, "{space:?} {shape:?}");
        assert_eq!(image.at(known.1), OUTSIDE, "{space:?} {shape:?}");
        assert!(!samples.is_empty());
    }
}

#[test]
fn limit_space_views_put_samples_where_they_belong() {
    if skip() {
        return;
    }
    for (space, shape) in [
        (SpaceKind::Full, ShapeKind::Box),
        (SpaceKind::SwingTwist, ShapeKind::Ellipsoid),
    ] {
        let (motion, limits, axes, names) = fitted(space, shape).unwrap();
        let index = telling_joints(&motion, &limits, &names)[0];
        let limit = &limits.joints[index];
        let samples = samples(&motion, &names, &limit.joint);
        let figure = LimitSpaceFigure::new(limit, axes[index], &samples);
        let image = rendered(&figure, &limit.joint);
        for view in 0..3 {
            let (inside, outside) = known_samples(limit, &samples, |q| figure.pixels_of(q)[view])
                .expect("samples inside and outside");
            assert_eq!(image.at(inside), INSIDE, "view {view}");
            assert_eq!(image.at(outside), OUTSIDE, "view {view}");
        }
    }
}

#[test]
fn overviews_put_samples_where_they_belong() {
    if skip() {
        return;
    }
    let (motion, limits, axes, names) = fitted(SpaceKind::Full, ShapeKind::Ellipsoid).unwrap();
    let joints: Vec<(&JointLimit, Vec3, Vec<Quat>)> = limits
        .joints
        .iter()
        .zip(&axes)
        .map(|(l, &a)| (l, a, samples(&motion, &names, &l.joint)))
        .collect();
    let overview = Overview::new("salsa_10", &joints);
    let image = rendered(&overview, "salsa_10");
    let (inside, outside) = telling_joints(&motion, &limits, &names)
        .into_iter()
        .find_map(|index| {
            known_samples(&limits.joints[index], &joints[index].2, |q| {
                overview.pixel_of(index, q)
            })
        })
        .expect("a joint with both kinds of samples");
    assert_eq!(image.at(inside), INSIDE);
    assert_eq!(image.at(outside), OUTSIDE);
}

#[test]
fn timelines_show_violations_before_and_after() {
    if skip() {
        return;
    }
    let (motion, limits, _, names) = fitted(SpaceKind::Full, ShapeKind::Ellipsoid).unwrap();
    let path = jointlimits_testdata::fixture("cmu_daz/salsa_10.bvh").unwrap();
    let skeleton = read_bvh_file(path).unwrap().skeleton;
    let timeline = Timeline::new(
        "salsa_10 violations",
        limits.bind(&skeleton).unwrap(),
        &names,
        &motion,
        &[],
    );
    assert_eq!(timeline.frames, motion.frame_count());
    assert!(timeline.joints[0].before.iter().any(|&v| v > 1.0));
    assert!(
        timeline
            .joints
            .iter()
            .all(|j| j.after.iter().all(|&v| v < 1e-3))
    );
    rendered(&timeline, "salsa_10 violations");
    let chosen = ["rThigh".to_string(), "lShin".to_string()];
    let timeline = Timeline::new(
        "chosen",
        limits.bind(&skeleton).unwrap(),
        &names,
        &motion,
        &chosen,
    );
    let drawn: Vec<&str> = timeline.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(drawn.len(), 2);
    assert!(drawn.contains(&"rThigh") && drawn.contains(&"lShin"));
}
