//! Limiting a crowd's joints on the GPU: the [`jointlimits::Crowd`] API, run by a wgpu compute
//! shader (WGSL) with one invocation per character and joint.
//!
//! Every kind is taken. Full-space boxes (axis-aligned or oriented) and ellipsoids, the shapes
//! fitted by default, full-space k-DOPs and hulls (the walk over their faces that proves the
//! nearest point, with the scan of every face where it cannot decide), swing-twist limits with a
//! box or ellipsoid swing, swing cones and spherical ellipses (the swing-twist ellipsoids they
//! are, `as_swing_twist`, taking the short cover of the swing as they do), and hinges have
//! native kernels:
//! the shader keeps each character's and joint's history on the GPU and follows the CPU crowd's
//! stream semantics (nearest over both covers and twist turns; the previous frame's cover and
//! turn while at most the switch margin farther; near a 180° swing, the CPU's settling), so
//! their output equals the CPU crowd's within f32 rounding: 1e-5 rad, except where the answer
//! itself is ill-conditioned (a swing within a few thousandths of a radian of 180°, where the
//! twist moves by the rounding over `cos(swing/2)`). Every other kind is limited on the host by a
//! [`jointlimits::Crowd`] of those joints after the frame comes back, so its output is the CPU
//! crowd's bit for bit; for swing-twist polytopes, reach cones, tables, Euler ranges and
//! softened shapes the kernel first marks the rotations that lie in the joint's proven cells
//! ([`jointlimits::rotation_cells`]), which the host keeps with no test, so only the rest cost
//! host time. Frames travel through host-visible buffers kept from frame to frame, copied in
//! pieces on rayon's current pool.
//!
//! ```no_run
//! use glam::Quat;
//! use jointlimits_gpu::GpuCrowd;
//! # let limits: Vec<Option<jointlimits::JointLimit>> = Vec::new();
//! # let characters = 1000;
//! let mut crowd = GpuCrowd::new(&limits, characters)?;
//! let mut poses = vec![Quat::IDENTITY; characters * limits.len()];
//! let outside = crowd.limit_frame(&mut poses)?;
//! # Ok::<(), jointlimits_gpu::GpuError>(())
//! ```

#![warn(missing_docs)]

mod copy;
mod joints;

use std::collections::VecDeque;
use std::sync::mpsc;

use glam::Quat;
use jointlimits::limiter::DEFAULT_SWITCH_MARGIN;
use jointlimits::{Crowd, JointLimit};
use wgpu::util::DeviceExt;

use copy::{copy_into_mapped, copy_out_of_mapped};
use joints::Kernels;

/// Invocations per workgroup (the shader's `@workgroup_size`).
const WORKGROUP: u32 = 64;

/// The outside count's size in bytes (a `u32`, read back after the frame).
const COUNT_BYTES: u64 = 4;

/// Why the GPU crowd could not be made or run.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No GPU (or software rasteriser) adapter is available.
    #[error("no GPU adapter: {0}")]
    NoAdapter(String),
    /// The adapter would not give a device.
    #[error("the GPU device could not be opened: {0}")]
    Device(String),
    /// The frame does not hold characters × joints rotations.
    #[error("a frame holds {expected} rotations (characters × joints), not {got}")]
    FrameSize {
        /// characters × joints.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// Moving a frame to or from the GPU failed (mapping a buffer, or waiting for the GPU).
    #[error("moving a frame to or from the GPU failed: {0}")]
    Transfer(String),
    /// A frame was submitted or received out of turn ([`GpuCrowd::submit`]).
    #[error("frames out of turn: {0}")]
    InFlight(String),
}

/// A crowd of characters of one skeleton, limited on the GPU (crate docs).
pub struct GpuCrowd {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    joints: wgpu::Buffer,
    input: wgpu::Buffer,
    output: wgpu::Buffer,
    history: wgpu::Buffer,
    outside: wgpu::Buffer,
    /// A bit per character and joint: in a proven cell of a joint limited on the host.
    proven: wgpu::Buffer,
    /// Host-visible buffers a frame passes through: one pair, and a second made when a frame is
    /// submitted while another is in flight.
    staging: Vec<Staging>,
    /// The frames submitted and not yet received, oldest first: each one's staging pair, and
    /// whether the host forgets its history once it is received (a reset made while it was in
    /// flight, which the GPU's queue orders after it).
    in_flight: VecDeque<InFlight>,
    kernels: Kernels,
    /// The joints limited on the host (the others `None`), if any.
    host: Option<Crowd>,
    /// The proven bits of the last frame read back, for the host.
    proven_bits: Vec<u32>,
    joint_count: usize,
    characters: usize,
    adapter: String,
    /// Workgroups in x and y of one dispatch.
    grid: (u32, u32),
}

impl GpuCrowd {
    /// A crowd of `characters` characters whose joint `j` is limited by `limits[j]` (if any), on
    /// the first adapter wgpu finds (hardware first, then a software rasteriser), with the
    /// default switch margin. Joints limited on the host with proven cells have them proven
    /// here: a fraction of a second per joint on two cores.
    pub fn new(limits: &[Option<JointLimit>], characters: usize) -> Result<GpuCrowd, GpuError> {
        let kernels = Kernels::new(limits);
        let packed = kernels.pack(DEFAULT_SWITCH_MARGIN);
        let adapter = find_adapter()?;
        let info = adapter.get_info();
        let adapter_name = format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type);
        let Some(slots) = characters.checked_mul(limits.len()) else {
            return Err(GpuError::Device(format!(
                "{characters} characters × {} joints is more than this machine can address",
                limits.len()
            )));
        };
        let slots = slots.max(1);
        let pose_bytes = (slots as u64).saturating_mul(16);
        // The adapter's own limits: five storage buffers in one stage, and buffers as large as
        // it binds.
        let required_limits = adapter.limits();
        if pose_bytes > required_limits.max_storage_buffer_binding_size {
            return Err(GpuError::Device(format!(
                "{slots} joints need {pose_bytes} bytes, more than this adapter binds ({})",
                required_limits.max_storage_buffer_binding_size
            )));
        }
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("jointlimits crowd"),
            required_limits,
            ..Default::default()
        }))
        .map_err(|e| GpuError::Device(e.to_string()))?;
        // A shader or pipeline the adapter refuses is an error, not a panic.
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("crowd.wgsl"),
            source: wgpu::ShaderSource::Wgsl(include_str!("crowd.wgsl").into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("limit_frame"),
            layout: None,
            module: &module,
            entry_point: Some("limit_frame"),
            compilation_options: Default::default(),
            cache: None,
        });
        if let Some(error) = pollster::block_on(scope.pop()) {
            return Err(GpuError::Device(format!("{adapter_name}: {error}")));
        }
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let joints = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("joints"),
            contents: bytemuck::cast_slice(&packed),
            usage: storage,
        });
        let buffer = |label, size, usage| unmapped_buffer(&device, label, size, usage);
        let input = buffer("input", pose_bytes, storage);
        let output = buffer("output", pose_bytes, storage | wgpu::BufferUsages::COPY_SRC);
        let history = buffer("history", pose_bytes, storage);
        let outside = buffer(
            "outside",
            COUNT_BYTES,
            storage | wgpu::BufferUsages::COPY_SRC,
        );
        let proven_bytes = proven_words(slots) as u64 * 4;
        let proven = buffer(
            "proven",
            proven_bytes,
            storage | wgpu::BufferUsages::COPY_SRC,
        );
        let lookup_bytes = std::mem::size_of_val(kernels.lookup()) as u64;
        if lookup_bytes > device.limits().max_storage_buffer_binding_size {
            return Err(GpuError::Device(format!(
                "the joints' proven cells and polytopes need {lookup_bytes} bytes, more than this \
                 adapter binds ({})",
                device.limits().max_storage_buffer_binding_size
            )));
        }
        let lookup = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("lookup"),
            contents: bytemuck::cast_slice(kernels.lookup()),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let staging = vec![Staging::new(&device, pose_bytes, proven_bytes)];
        let groups = (slots as u32).div_ceil(WORKGROUP);
        let max_x = device.limits().max_compute_workgroups_per_dimension;
        let grid = (groups.min(max_x), groups.div_ceil(max_x));
        let frame_info = [
            characters as u32,
            limits.len() as u32,
            grid.0 * WORKGROUP,
            0,
        ];
        let info = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("frame info"),
            contents: bytemuck::cast_slice(&frame_info),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let layout = pipeline.get_bind_group_layout(0);
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("crowd"),
            layout: &layout,
            entries: &[
                entry(0, &joints),
                entry(1, &input),
                entry(2, &history),
                entry(3, &info),
                entry(4, &outside),
                entry(5, &output),
                entry(6, &lookup),
                entry(7, &proven),
            ],
        });
        let host_limits: Vec<Option<JointLimit>> = limits
            .iter()
            .enumerate()
            .map(|(joint, limit)| limit.clone().filter(|_| kernels.on_host(joint)))
            .collect();
        let host = host_limits
            .iter()
            .any(Option::is_some)
            .then(|| Crowd::new(host_limits, characters));
        Ok(GpuCrowd {
            device,
            queue,
            pipeline,
            bind_group,
            joints,
            input,
            output,
            history,
            outside,
            proven,
            staging,
            in_flight: VecDeque::new(),
            kernels,
            host,
            proven_bits: vec![0; proven_words(slots)],
            joint_count: limits.len(),
            characters,
            adapter: adapter_name,
            grid,
        })
    }

    /// The same crowd with another switch margin (radians, as
    /// [`jointlimits::Limiter::with_margin`]).
    pub fn with_margin(mut self, margin: f32) -> GpuCrowd {
        let packed = self
            .kernels
            .pack(jointlimits::limiter::switch_margin(margin));
        self.queue
            .write_buffer(&self.joints, 0, bytemuck::cast_slice(&packed));
        self.host = self.host.map(|host| host.with_margin(margin));
        self
    }

    /// The same crowd knowing each joint's parent ([`jointlimits::Crowd::with_parents`]), for
    /// limits coupled to it (limited on the host, after the parent's limited rotation comes
    /// back).
    pub fn with_parents(mut self, parents: &[Option<usize>]) -> GpuCrowd {
        self.host = self.host.map(|host| host.with_parents(parents));
        self
    }

    /// How many rotations of the last frame read back the kernel found in proven cells (of
    /// joints limited on the host), which the host kept with no test.
    pub fn proven_on_gpu(&self) -> usize {
        if !self.kernels.any_cells() {
            return 0;
        }
        self.proven_bits
            .iter()
            .map(|word| word.count_ones() as usize)
            .sum()
    }

    /// How many joints are limited on the host (kinds with no native kernel).
    pub fn joints_on_host(&self) -> usize {
        (0..self.joint_count)
            .filter(|&joint| self.kernels.on_host(joint))
            .count()
    }

    /// The adapter in use: its name, backend and type (a software rasteriser shows as `Cpu`).
    pub fn adapter(&self) -> &str {
        &self.adapter
    }

    /// The number of characters.
    pub fn characters(&self) -> usize {
        self.characters
    }

    /// The number of joints per character.
    pub fn joint_count(&self) -> usize {
        self.joint_count
    }

    /// Forgets every character's history. Frames already submitted ([`GpuCrowd::submit`]) are
    /// limited with the history they were submitted after, on the GPU and on the host alike.
    pub fn reset(&mut self) {
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&self.history, 0, None);
        self.queue.submit([encoder.finish()]);
        match self.in_flight.back_mut() {
            Some(last) => last.then_reset_host = true,
            None => {
                if let Some(host) = &mut self.host {
                    host.reset();
                }
            }
        }
    }

    /// Limits one frame in place, as [`jointlimits::Crowd::limit_frame`]: `poses[c · J + j]` is
    /// character `c`'s local rotation of joint `j`. Uploads, runs and reads back; returns how
    /// many joints were outside. The frame is copied into and out of host-visible memory in
    /// pieces on rayon's current pool (`pool.install(|| ...)` picks the cores). Fails with
    /// [`GpuError::InFlight`] while frames submitted with [`GpuCrowd::submit`] wait to be
    /// received.
    pub fn limit_frame(&mut self, poses: &mut [Quat]) -> Result<usize, GpuError> {
        self.expect_none_in_flight()?;
        self.submit(poses)?;
        self.receive(poses)
    }

    /// Sends a frame to be limited and returns without waiting for it: the first half of
    /// [`GpuCrowd::limit_frame`]. Up to two frames may be in flight, so a caller that submits
    /// frame `n + 1` before receiving frame `n` keeps the GPU and the bus busy while it copies:
    ///
    /// ```no_run
    /// # use glam::Quat;
    /// # fn frames() -> impl Iterator<Item = Vec<Quat>> { std::iter::empty() }
    /// # fn show(_: &[Quat]) {}
    /// # let limits: Vec<Option<jointlimits::JointLimit>> = Vec::new();
    /// let mut crowd = jointlimits_gpu::GpuCrowd::new(&limits, 1000)?;
    /// let mut limited = vec![Quat::IDENTITY; 1000 * limits.len()];
    /// let mut submitted = false;
    /// for next in frames() {
    ///     crowd.submit(&next)?;
    ///     if submitted {
    ///         crowd.receive(&mut limited)?; // the frame before `next`, limited
    ///         show(&limited);
    ///     }
    ///     submitted = true;
    /// }
    /// # Ok::<(), jointlimits_gpu::GpuError>(())
    /// ```
    ///
    /// Frames are limited in the order they are submitted, as one stream: the result is the
    /// same as [`GpuCrowd::limit_frame`] on each in turn.
    pub fn submit(&mut self, poses: &[Quat]) -> Result<(), GpuError> {
        self.check_frame_size(poses.len())?;
        if self.in_flight.len() == IN_FLIGHT {
            return Err(GpuError::InFlight(format!(
                "{IN_FLIGHT} frames are in flight; receive one before submitting another"
            )));
        }
        let pair = (0..IN_FLIGHT)
            .find(|&pair| self.in_flight.iter().all(|frame| frame.pair != pair))
            .expect("fewer than IN_FLIGHT frames are in flight");
        if pair == self.staging.len() {
            let (pose_bytes, proven_bytes) = (self.pose_bytes(), self.proven_bytes());
            self.staging
                .push(Staging::new(&self.device, pose_bytes, proven_bytes));
        }
        self.write_staging(pair, poses)?;
        let mut encoder = self.device.create_command_encoder(&Default::default());
        self.encode_upload(&mut encoder, pair);
        self.encode_run(&mut encoder);
        self.encode_readback(&mut encoder, pair);
        self.staging[pair].last_use = Some(self.queue.submit([encoder.finish()]));
        self.in_flight.push_back(InFlight {
            pair,
            then_reset_host: false,
        });
        Ok(())
    }

    /// Waits for the oldest frame submitted with [`GpuCrowd::submit`] and writes it, limited,
    /// into `poses` (then limits the joints limited on the host); returns how many joints were
    /// outside. Fails with [`GpuError::InFlight`] when no frame was submitted.
    pub fn receive(&mut self, poses: &mut [Quat]) -> Result<usize, GpuError> {
        self.check_frame_size(poses.len())?;
        let Some(frame) = self.in_flight.pop_front() else {
            return Err(GpuError::InFlight(
                "no frame was submitted to receive".to_string(),
            ));
        };
        let outside = self.read_staging(frame.pair, poses);
        if frame.then_reset_host
            && let Some(host) = &mut self.host
        {
            host.reset();
        }
        outside
    }

    /// Sends a frame to the GPU (the first step of [`GpuCrowd::limit_frame`], done apart to
    /// time it, or to run the kernel on it again and again with [`GpuCrowd::run`]).
    pub fn upload(&mut self, poses: &[Quat]) -> Result<(), GpuError> {
        self.expect_none_in_flight()?;
        self.check_frame_size(poses.len())?;
        self.write_staging(0, poses)?;
        let mut encoder = self.device.create_command_encoder(&Default::default());
        self.encode_upload(&mut encoder, 0);
        self.staging[0].last_use = Some(self.queue.submit([encoder.finish()]));
        Ok(())
    }

    /// Limits the uploaded frame on the GPU, where the result stays (the second step of
    /// [`GpuCrowd::limit_frame`]). The input stays too: running again limits it again, as the
    /// next frame of the stream.
    pub fn run(&mut self) {
        let mut encoder = self.device.create_command_encoder(&Default::default());
        self.encode_run(&mut encoder);
        self.queue.submit([encoder.finish()]);
    }

    /// Blocks until the GPU has finished the work submitted so far (after [`GpuCrowd::run`],
    /// to time the kernel alone).
    pub fn wait(&self) -> Result<(), GpuError> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| GpuError::Transfer(e.to_string()))
    }

    /// Waits for the GPU and reads the frame back (the last step of [`GpuCrowd::limit_frame`]),
    /// then limits the joints limited on the host; returns how many joints were outside. Before
    /// any [`GpuCrowd::run`] the frame is all zeros.
    pub fn download(&mut self, poses: &mut [Quat]) -> Result<usize, GpuError> {
        self.expect_none_in_flight()?;
        self.check_frame_size(poses.len())?;
        let mut encoder = self.device.create_command_encoder(&Default::default());
        self.encode_readback(&mut encoder, 0);
        self.staging[0].last_use = Some(self.queue.submit([encoder.finish()]));
        self.read_staging(0, poses)
    }

    fn expect_none_in_flight(&self) -> Result<(), GpuError> {
        match self.in_flight.len() {
            0 => Ok(()),
            n => Err(GpuError::InFlight(format!(
                "{n} submitted frames wait to be received first"
            ))),
        }
    }

    fn check_frame_size(&self, got: usize) -> Result<(), GpuError> {
        let expected = self.characters * self.joint_count;
        match got == expected {
            true => Ok(()),
            false => Err(GpuError::FrameSize { expected, got }),
        }
    }

    /// Bytes of a frame of poses.
    fn pose_bytes(&self) -> u64 {
        (self.characters * self.joint_count) as u64 * 16
    }

    /// Bytes of the proven bits read back (none when no joint has cells).
    fn proven_bytes(&self) -> u64 {
        match self.kernels.any_cells() {
            true => std::mem::size_of_val(self.proven_bits.as_slice()) as u64,
            false => 0,
        }
    }

    /// Copies `poses` into staging pair `pair`'s upload buffer (waiting for the GPU's last
    /// copy out of it).
    fn write_staging(&self, pair: usize, poses: &[Quat]) -> Result<(), GpuError> {
        if poses.is_empty() {
            return Ok(());
        }
        let staging = &self.staging[pair];
        let bytes: &[u8] = bytemuck::cast_slice(poses);
        let slice = staging.upload.slice(0..bytes.len() as u64);
        self.map(slice, wgpu::MapMode::Write, staging.last_use.clone())?;
        copy_into_mapped(
            slice
                .get_mapped_range_mut()
                .map_err(|e| GpuError::Transfer(e.to_string()))?
                .slice(..),
            bytes,
        );
        staging.upload.unmap();
        Ok(())
    }

    /// The copy of staging pair `pair`'s upload buffer into the kernel's input.
    fn encode_upload(&self, encoder: &mut wgpu::CommandEncoder, pair: usize) {
        let bytes = self.pose_bytes();
        if bytes > 0 {
            encoder.copy_buffer_to_buffer(&self.staging[pair].upload, 0, &self.input, 0, bytes);
        }
    }

    /// The kernel's run over the input, with its counters cleared first.
    fn encode_run(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.clear_buffer(&self.outside, 0, None);
        if self.kernels.any_cells() {
            encoder.clear_buffer(&self.proven, 0, None);
        }
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.dispatch_workgroups(self.grid.0, self.grid.1, 1);
    }

    /// The copies of the limited frame, the outside count and the proven bits into staging pair
    /// `pair`'s read-back buffer.
    fn encode_readback(&self, encoder: &mut wgpu::CommandEncoder, pair: usize) {
        let (bytes, proven_bytes) = (self.pose_bytes(), self.proven_bytes());
        let readback = &self.staging[pair].readback;
        if bytes > 0 {
            encoder.copy_buffer_to_buffer(&self.output, 0, readback, 0, bytes);
        }
        encoder.copy_buffer_to_buffer(&self.outside, 0, readback, bytes, COUNT_BYTES);
        if proven_bytes > 0 {
            encoder.copy_buffer_to_buffer(
                &self.proven,
                0,
                readback,
                bytes + COUNT_BYTES,
                proven_bytes,
            );
        }
    }

    /// Waits for staging pair `pair`'s read-back, copies the frame out of it into `poses` and
    /// limits the joints limited on the host; returns how many joints were outside.
    fn read_staging(&mut self, pair: usize, poses: &mut [Quat]) -> Result<usize, GpuError> {
        let (bytes, proven_bytes) = (self.pose_bytes(), self.proven_bytes());
        let staging = &self.staging[pair];
        let slice = staging
            .readback
            .slice(0..bytes + COUNT_BYTES + proven_bytes);
        self.map(slice, wgpu::MapMode::Read, staging.last_use.clone())?;
        let mut outside = {
            let view = slice
                .get_mapped_range()
                .map_err(|e| GpuError::Transfer(e.to_string()))?;
            let (frame, rest) = view.split_at(bytes as usize);
            let (count, bits) = rest.split_at(COUNT_BYTES as usize);
            copy_out_of_mapped(bytemuck::cast_slice_mut(poses), frame);
            if proven_bytes > 0 {
                bytemuck::cast_slice_mut(&mut self.proven_bits).copy_from_slice(bits);
            }
            u32::from_ne_bytes([count[0], count[1], count[2], count[3]]) as usize
        };
        staging.readback.unmap();
        if let Some(host) = &mut self.host {
            let bits = &self.proven_bits;
            outside +=
                host.limit_frame_knowing(poses, |slot| bits[slot / 32] >> (slot % 32) & 1 == 1);
        }
        Ok(outside)
    }

    /// Maps `slice`, waiting for `submission` (the last that used its buffer) and no later one.
    fn map(
        &self,
        slice: wgpu::BufferSlice<'_>,
        mode: wgpu::MapMode,
        submission: Option<wgpu::SubmissionIndex>,
    ) -> Result<(), GpuError> {
        let (sender, receiver) = mpsc::channel();
        slice.map_async(mode, move |result| {
            let _ = sender.send(result);
        });
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: submission,
                timeout: None,
            })
            .map_err(|e| GpuError::Transfer(e.to_string()))?;
        receiver
            .recv()
            .map_err(|e| GpuError::Transfer(e.to_string()))?
            .map_err(|e| GpuError::Transfer(e.to_string()))
    }
}

/// Frames that may be in flight at once ([`GpuCrowd::submit`]).
const IN_FLIGHT: usize = 2;

/// A frame submitted and not yet received.
#[derive(Clone, Copy, Debug)]
struct InFlight {
    /// Its staging pair.
    pair: usize,
    /// Whether the host forgets its history once this frame is received.
    then_reset_host: bool,
}

/// A pair of host-visible buffers a frame passes through. Kept from frame to frame: a
/// `Queue::write_buffer` makes (and maps) a new staging buffer each time.
struct Staging {
    /// Where a frame is written on its way in.
    upload: wgpu::Buffer,
    /// Where the limited frame, the outside count (4 bytes) and the proven bits land on their
    /// way out, read with one mapping.
    readback: wgpu::Buffer,
    /// The last submission that used either buffer.
    last_use: Option<wgpu::SubmissionIndex>,
}

impl Staging {
    fn new(device: &wgpu::Device, pose_bytes: u64, proven_bytes: u64) -> Staging {
        let buffer = |label, size, usage| unmapped_buffer(device, label, size, usage);
        Staging {
            upload: buffer(
                "upload",
                pose_bytes.max(4),
                wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            ),
            readback: buffer(
                "readback",
                pose_bytes
                    .saturating_add(COUNT_BYTES)
                    .saturating_add(proven_bytes),
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
            last_use: None,
        }
    }
}

/// Words of the proven bits for `slots` characters × joints (at least one: a buffer may not be
/// empty).
fn proven_words(slots: usize) -> usize {
    slots.div_ceil(32).max(1)
}

/// The first adapter on Vulkan (hardware, or Mesa's software lavapipe), else on GL (llvmpipe).
fn find_adapter() -> Result<wgpu::Adapter, GpuError> {
    let mut reasons = Vec::new();
    for backends in [wgpu::Backends::VULKAN, wgpu::Backends::GL] {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends,
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let request = instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        });
        match pollster::block_on(request) {
            Ok(adapter) => return Ok(adapter),
            Err(e) => reasons.push(format!("{backends:?}: {e}")),
        }
    }
    Err(GpuError::NoAdapter(reasons.join("; ")))
}

/// A buffer of `size` bytes for `usage`, not mapped at creation.
fn unmapped_buffer(
    device: &wgpu::Device,
    label: &str,
    size: u64,
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: false,
    })
}

fn entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}
