//! Device clients that are gone: how the supervisor tells a crypto driver.
//!
//! A device's clients are not callers of an endpoint (they share a region
//! and ring a doorbell), so `sessions = true` cannot reach their driver.
//! The virtio-crypto driver keeps device sessions per client, a limited
//! resource, so for every client `i` of a virtio-crypto device in a
//! supervised system the supervisor gets `gone_DEVICE_clientI`: a send
//! capability to the driver's notification badged with bit
//! [`Device::gone_badge`] (`32 + i`). A signal ORs the capability's badge
//! into the notification, and a badge once set cannot be changed
//! (`cap_mint` refuses), so only this capability can set that bit: a
//! client's doorbell carries bit `1 + i` and nothing else. The generated
//! `DEVICE_GONE` table says, per task, which of these capabilities to
//! signal when the task ends (`servers/init/src/gone.rs`).

use conflux_abi::cap::rights::WRITE;

use crate::device_table::MAX_CLIENTS;
use crate::model::{Device, DeviceKind, Manifest};

// Doorbells use bits 1..=MAX_CLIENTS and gone bits 32..32+MAX_CLIENTS of a
// 64-bit notification word: they never meet.
const _: () = assert!(MAX_CLIENTS < 32 && 32 + MAX_CLIENTS <= 64);

/// Whether the driver of `device` hears that a client is gone.
pub(crate) fn hears(device: &Device) -> bool {
    device.kind == DeviceKind::VirtioCrypto
}

/// The supervisor's slot name for client `i` of `device`.
pub(crate) fn slot_name(device: &str, i: usize) -> String {
    format!("gone_{device}_client{i}")
}

/// The supervisor's capabilities: (slot name, notification object,
/// rights, badge), one per client of each device whose driver hears it.
pub(crate) fn supervisor_caps(manifest: &Manifest) -> Vec<(String, usize, u8, u64)> {
    if manifest.system.supervisor.is_none() {
        return Vec::new();
    }
    manifest
        .devices
        .iter()
        .filter(|d| hears(d))
        .flat_map(|d| {
            (0..d.clients.len()).map(move |i| {
                (
                    slot_name(&d.name, i),
                    d.objects.notify,
                    WRITE,
                    Device::gone_badge(i),
                )
            })
        })
        .collect()
}

/// The (device name, supervisor's slot name) pairs to signal when `task`
/// ends: one per device whose driver hears it and that `task` is a client
/// of (and does not drive).
pub fn gone_of(manifest: &Manifest, task: usize) -> Vec<(String, String)> {
    manifest
        .devices
        .iter()
        .filter(|d| hears(d) && d.driver != task)
        .filter_map(|d| {
            let i = d.clients.iter().position(|c| c.task == task)?;
            Some((d.name.clone(), slot_name(&d.name, i)))
        })
        .collect()
}
