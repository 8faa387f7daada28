#!/usr/bin/env node
// Reads a BVH file with three.js's own BVHLoader and prints the world position
// of every joint (End Sites excluded) for chosen frames, as three.js's
// animation system (AnimationMixer + Object3D world matrices) computes them.
//
// Usage: node world_positions.mjs FILE.bvh [--frames 0,5,17]
// Output (stdout, JSON):
//   {"joints": [...], "frame_time": s, "frames": [{"frame": i, "positions": [[x,y,z], ...]}]}
// Errors go to stderr with exit code 1.

import { readFileSync } from 'node:fs';
import { AnimationMixer, LoopOnce, Vector3 } from 'three';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';

function fail(message) {
	process.stderr.write(`world_positions: ${message}\n`);
	process.exit(1);
}

// --- arguments ---------------------------------------------------------------
const args = process.argv.slice(2);
let file = null;
let frameArg = null;
for (let i = 0; i < args.length; i++) {
	if (args[i] === '--frames') {
		if (i + 1 >= args.length) fail('--frames needs a value, e.g. --frames 0,5,17');
		frameArg = args[++i];
	} else if (args[i].startsWith('--frames=')) {
		frameArg = args[i].slice('--frames='.length);
	} else if (file === null && !args[i].startsWith('--')) {
		file = args[i];
	} else {
		fail(`unexpected argument '${args[i]}'\nusage: node world_positions.mjs FILE.bvh [--frames 0,5,17]`);
	}
}
if (file === null) fail('usage: node world_positions.mjs FILE.bvh [--frames 0,5,17]');

let text;
try {
	text = readFileSync(file, 'utf8');
} catch (e) {
	fail(`cannot read ${file}: ${e.message}`);
}

// --- parse with three.js -------------------------------------------------------
// BVHLoader reports most format problems with console.error/console.warn and
// carries on, so treat anything it logs as a parse failure.
const logged = [];
const { error: origError, warn: origWarn } = console;
console.error = console.warn = (...m) => logged.push(m.join(' '));
let skeleton, clip;
try {
	({ skeleton, clip } = new BVHLoader().parse(text));
} catch (e) {
	logged.push(String(e && e.message ? e.message : e));
}
console.error = origError;
console.warn = origWarn;
if (logged.length > 0) fail(`three.js BVHLoader failed to parse ${file}:\n  ${logged.join('\n  ')}`);

// Joints in file order: skeleton.bones follows the file order; BVHLoader names
// every End Site 'ENDSITE' and gives it no children and no tracks.
const bones = skeleton.bones.filter((b) => !(b.name === 'ENDSITE' && b.children.length === 0));
const joints = bones.map((b) => b.name);
const trackOf = new Map(clip.tracks.map((t) => [t.name, t]));
for (const name of joints) {
	if (!trackOf.has(`${name}.position`) || !trackOf.has(`${name}.quaternion`)) fail(`no animation track for joint '${name}'`);
}
// three.js binds tracks to bones by name, so duplicate names would be misanimated.
const dup = joints.find((n, i) => joints.indexOf(n) !== i);
if (dup !== undefined) fail(`duplicate joint name '${dup}': three.js binds tracks by name and would misapply them`);

// Key times as stored in the clip (Float32Array); using these exact values makes
// the interpolants land on the key rather than between neighbours.
const times = trackOf.get(`${joints[0]}.quaternion`).times;
const numFrames = times.length;

// Frame Time as written in the file (the loader does not expose it).
const ftLine = text.split(/[\r\n]+/).map((l) => l.trim()).find((l) => /^Frame\s+Time:/i.test(l));
const frameTime = ftLine ? parseFloat(ftLine.split(/\s+/)[2]) : NaN;
if (!Number.isFinite(frameTime)) fail('cannot read Frame Time');

let frames;
if (frameArg === null) {
	frames = [...Array(numFrames).keys()];
} else {
	frames = frameArg.split(',').map((s) => s.trim()).filter((s) => s.length > 0).map((s) => {
		if (!/^\d+$/.test(s) || Number(s) >= numFrames) fail(`bad frame index '${s}' (file has ${numFrames} frames)`);
		return Number(s);
	});
}

// --- sample with the animation system ----------------------------------------
const root = skeleton.bones[0];
console.error = console.warn = (...m) => logged.push(m.join(' '));
let mixer, action;
try {
	mixer = new AnimationMixer(root);
	action = mixer.clipAction(clip); // binds tracks to bones by name; may throw or log
	action.setLoop(LoopOnce, 1); // LoopRepeat would wrap the last frame back to frame 0
	action.clampWhenFinished = true; // hold the last key instead of disabling the action
	action.play();
} catch (e) {
	logged.push(String(e && e.message ? e.message : e));
}
if (logged.length > 0) fail(`three.js animation system reported:\n  ${logged.join('\n  ')}`);

const out = [];
const v = new Vector3();
for (const f of frames) {
	action.reset(); // clears the paused/finished state left by a previous frame
	mixer.setTime(times[f]);
	root.updateMatrixWorld(true);

	// Self-check: the bones' local transforms must equal the raw key values.
	for (let j = 0; j < bones.length; j++) {
		const p = trackOf.get(`${joints[j]}.position`).values;
		const q = trackOf.get(`${joints[j]}.quaternion`).values;
		const b = bones[j];
		const dp = Math.max(...b.position.toArray().map((x, k) => Math.abs(x - p[3 * f + k])));
		const dq = Math.max(...b.quaternion.toArray().map((x, k) => Math.abs(x - q[4 * f + k])));
		if (dp > 1e-9 * (1 + Math.abs(p[3 * f]) + Math.abs(p[3 * f + 1]) + Math.abs(p[3 * f + 2])) || dq > 1e-6) {
			fail(`frame ${f}, joint '${joints[j]}': mixer result differs from the key (position ${dp}, quaternion ${dq})`);
		}
	}

	const positions = bones.map((b) => b.getWorldPosition(v).toArray());
	if (positions.some((p) => p.some((x) => !Number.isFinite(x)))) fail(`non-finite position in frame ${f}`);
	out.push({ frame: f, positions });
}
console.error = origError;
console.warn = origWarn;
if (logged.length > 0) fail(`three.js animation system reported:\n  ${logged.join('\n  ')}`);

process.stdout.write(JSON.stringify({ joints, frame_time: frameTime, frames: out }) + '\n');
