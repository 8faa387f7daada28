//! Pictures of a planar chain before and after IK.
//!
//! `cargo run --release -p jointlimits-io --example ik_2d -- [OUT_DIR]` writes, into `OUT_DIR`
//! (default `ik-2d`):
//! - `lockup_stuck.png`: two straight bones and a target behind the tip, on their line. Plain
//!   constraint-relaxation passes only slide the end along the line: the lock-up.
//! - `lockup_escaped.png`: the solver detects the lock-up, bends the chain toward the pole and
//!   reaches the target.
//! - `limits.png`: a four-bone chain whose joints may bend only one way, up to 80°: grey is the
//!   start, orange dashes the solution without limits, blue the solution with the limits inside the
//!   solve.
//!
//! Targets are red crosses; joints are dots.

use glam::Vec2;
use jointlimits::ik::passes::relaxation_pass;
use jointlimits::ik::{IkOptions, PlanarChain, Solver};
use jointlimits_io::picture::{Canvas, Rgb};
use std::path::PathBuf;

const GREY: Rgb = [170, 170, 170];
const BLUE: Rgb = [40, 90, 200];
const ORANGE: Rgb = [240, 150, 40];
const RED: Rgb = [210, 30, 30];
const WHITE: Rgb = [255, 255, 255];

fn main() -> std::io::Result<()> {
    let out = std::env::args()
        .nth(1)
        .map_or_else(|| PathBuf::from("ik-2d"), PathBuf::from);
    std::fs::create_dir_all(&out)?;
    let options = IkOptions {
        max_iterations: 200,
        tolerance: 1e-3,
        ..IkOptions::default()
    };

    // The lock-up: two unit bones along +x, the target behind the tip.
    let start = PlanarChain::new(Vec2::ZERO, vec![0.0, 0.0], vec![1.0, 1.0]);
    let target = Vec2::new(0.5, 0.0);
    let mut stuck = start.positions();
    for _ in 0..100 {
        relaxation_pass(&mut stuck, &start.lengths, &start.weights, target);
        // The pose the pass stands for: each bone hung from its parent at its true length.
        for bone in 0..start.lengths.len() {
            let direction = (stuck[bone + 1] - stuck[bone]).normalize_or(Vec2::X);
            stuck[bone + 1] = stuck[bone] + direction * start.lengths[bone];
        }
    }
    let mut canvas = Canvas::new(480, 360, WHITE, [0.9, 0.0], 140.0);
    draw_chain(&mut canvas, &start.positions(), GREY, false);
    draw_chain(&mut canvas, &stuck, RED, false);
    draw_target(&mut canvas, target);
    canvas.write_png_file(out.join("lockup_stuck.png"))?;
    println!(
        "lock-up, plain relaxation: end at {:.3}, {:.3} from the target after 100 passes",
        stuck[2],
        stuck[2].distance(target)
    );

    let mut escaped = start.clone();
    let report = escaped.solve(target, Solver::Relaxation, &options);
    let mut canvas = Canvas::new(480, 360, WHITE, [0.9, 0.0], 140.0);
    draw_chain(&mut canvas, &start.positions(), GREY, false);
    draw_chain(&mut canvas, &escaped.positions(), BLUE, false);
    draw_target(&mut canvas, target);
    canvas.write_png_file(out.join("lockup_escaped.png"))?;
    println!(
        "lock-up, with the escape: {} escape(s), {} iterations, {:.5} from the target",
        report.escapes, report.iterations, report.distance
    );

    // Limits: four bones, each joint bending only counter-clockwise, at most 80°.
    let mut limited = PlanarChain::new(Vec2::ZERO, vec![0.0; 4], vec![0.3, 0.3, 0.25, 0.15]);
    limited.base_angle = std::f32::consts::FRAC_PI_2;
    limited.ranges = vec![
        Some((-1.0, 1.0)),
        Some((0.0, 80f32.to_radians())),
        Some((0.0, 80f32.to_radians())),
        Some((0.0, 80f32.to_radians())),
    ];
    let target = Vec2::new(-0.35, 0.45);
    let mut free = limited.clone();
    let free_report = free.solve(
        target,
        Solver::Relaxation,
        &IkOptions {
            use_limits: false,
            ..options
        },
    );
    let start_points = limited.positions();
    let report = limited.solve(target, Solver::Relaxation, &options);
    let mut canvas = Canvas::new(480, 480, WHITE, [-0.1, 0.5], 380.0);
    draw_chain(&mut canvas, &start_points, GREY, false);
    draw_chain(&mut canvas, &free.positions(), ORANGE, true);
    draw_chain(&mut canvas, &limited.positions(), BLUE, false);
    draw_target(&mut canvas, target);
    canvas.write_png_file(out.join("limits.png"))?;
    let degrees: Vec<String> = limited
        .angles
        .iter()
        .map(|a| format!("{:.1}°", a.to_degrees()))
        .collect();
    println!(
        "limits: free solution {:.5} from the target; limited {:.5} in {} iterations, angles {}",
        free_report.distance,
        report.distance,
        report.iterations,
        degrees.join(" ")
    );
    println!("wrote {}", out.display());
    Ok(())
}

fn draw_chain(canvas: &mut Canvas, points: &[Vec2], colour: Rgb, dashed: bool) {
    for pair in points.windows(2) {
        let (a, b) = (pair[0].to_array(), pair[1].to_array());
        if dashed {
            canvas.dashed_line(a, b, 5.0, 10.0, colour);
        } else {
            canvas.line(a, b, 6.0, colour);
        }
    }
    for point in points {
        canvas.disc(point.to_array(), 6.0, colour);
    }
}

fn draw_target(canvas: &mut Canvas, target: Vec2) {
    let d = 10.0 / 140.0;
    let [x, y] = target.to_array();
    canvas.line([x - d, y - d], [x + d, y + d], 3.0, RED);
    canvas.line([x - d, y + d], [x + d, y - d], 3.0, RED);
}
