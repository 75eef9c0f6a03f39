//! Device resources belong to the machine, not to the manifest, so two
//! declarations must never hand out the same one: each interrupt line is
//! one IRQ object held by at most one task, I/O port ranges and MMIO ranges
//! do not overlap, a port range touches a kernel device (PCI configuration,
//! reset, ACPI power management: `conflux_abi::devices::KernelDevice`)
//! only by granting it with `kernel_device`, inside its ports, to exactly
//! one task, and no MMIO range lies in guest RAM (a task holding it
//! could map the kernel's memory; the kernel checks that one again against
//! the firmware's memory map, and a test system may switch the host check
//! off with `test.allow_mmio_in_ram` to prove it).

use conflux_abi::devices::{kernel_devices_in, KernelDevice};

use crate::error::{Error, Span};
use crate::limits::{LOW_RAM_AFTER_SPLIT, LOW_RAM_SPLIT, MIB};
use crate::model::{Manifest, Object, ObjectSpec};

/// Checks the device rules, in the order listed in the module docs.
pub(crate) fn check(manifest: &Manifest) -> Result<(), Error> {
    let origin = || manifest.origin.clone();
    if let Some((first, second)) = first_overlap(&spans(manifest, irq_line)) {
        return Err(Error::DuplicateIrqLine {
            origin: origin(),
            line: first.start,
            first: first.name,
            second: second.name,
        });
    }
    irq_owners(manifest)?;
    if let Some((first, second)) = first_overlap(&spans(manifest, ports)) {
        return Err(Error::OverlappingIoPorts {
            origin: origin(),
            first,
            second,
        });
    }
    kernel_devices(manifest)?;
    let mmio = spans(manifest, mmio);
    if let Some((first, second)) = first_overlap(&mmio) {
        return Err(Error::OverlappingMmio {
            origin: origin(),
            first,
            second,
        });
    }
    if manifest.test.as_ref().is_some_and(|t| t.allow_mmio_in_ram) {
        return Ok(());
    }
    let ram_end = low_ram_end(manifest.system.memory_mib);
    match mmio.into_iter().find(|span| span.start < ram_end) {
        Some(span) => Err(Error::MmioInRam {
            origin: origin(),
            mmio: span,
            ram_end,
            memory_mib: manifest.system.memory_mib,
        }),
        None => Ok(()),
    }
}

/// No IRQ is held by two tasks.
fn irq_owners(manifest: &Manifest) -> Result<(), Error> {
    for (id, object) in manifest.objects.iter().enumerate() {
        if !matches!(object.spec, ObjectSpec::Irq { .. }) {
            continue;
        }
        let mut holders = manifest
            .tasks
            .iter()
            .filter(|task| task.caps.iter().any(|cap| cap.object == id));
        if let (Some(first), Some(second)) = (holders.next(), holders.next()) {
            return Err(Error::SharedIrq {
                origin: manifest.origin.clone(),
                irq: object.name.clone(),
                first: first.name.clone(),
                second: second.name.clone(),
            });
        }
    }
    Ok(())
}

/// Port ranges grant the kernel devices they touch and stay inside them;
/// each granted device has exactly one holder.
fn kernel_devices(manifest: &Manifest) -> Result<(), Error> {
    let origin = || manifest.origin.clone();
    for object in &manifest.objects {
        let ObjectSpec::IoPorts {
            base,
            count,
            device: granted,
        } = object.spec
        else {
            continue;
        };
        let ports = || Span {
            name: object.name.clone(),
            start: base,
            end: base + count,
        };
        if let Some(device) = kernel_devices_in(base, count).find(|d| Some(*d) != granted) {
            return Err(Error::KernelDeviceNotGranted {
                origin: origin(),
                ports: ports(),
                device,
            });
        }
        match granted {
            Some(device) if !device.contains(base, count) => {
                return Err(Error::KernelDeviceOutside {
                    origin: origin(),
                    ports: ports(),
                    device,
                })
            }
            _ => {}
        }
    }
    KernelDevice::ALL
        .into_iter()
        .try_for_each(|device| device_holders(manifest, device))
}

/// The tasks holding the objects that grant `device`: exactly one.
fn device_holders(manifest: &Manifest, device: KernelDevice) -> Result<(), Error> {
    let granting: Vec<usize> = (0..manifest.objects.len())
        .filter(|&id| {
            matches!(
                manifest.objects[id].spec,
                ObjectSpec::IoPorts { device: Some(d), .. } if d == device
            )
        })
        .collect();
    let Some(&first) = granting.first() else {
        return Ok(());
    };
    let holders: Vec<String> = manifest
        .tasks
        .iter()
        .filter(|task| task.caps.iter().any(|cap| granting.contains(&cap.object)))
        .map(|task| task.name.clone())
        .collect();
    if holders.len() == 1 {
        return Ok(());
    }
    Err(Error::KernelDeviceHolders {
        origin: manifest.origin.clone(),
        device,
        object: manifest.objects[first].name.clone(),
        holders,
    })
}

/// The spans `span_of` finds among the objects, in object order.
fn spans(manifest: &Manifest, span_of: fn(&ObjectSpec) -> Option<(u64, u64)>) -> Vec<Span> {
    manifest
        .objects
        .iter()
        .filter_map(|Object { name, spec }| {
            let (start, end) = span_of(spec)?;
            Some(Span {
                name: name.clone(),
                start,
                end,
            })
        })
        .collect()
}

/// An IRQ's line as a one-wide span, so two IRQs on a line overlap.
fn irq_line(spec: &ObjectSpec) -> Option<(u64, u64)> {
    match spec {
        ObjectSpec::Irq { line, .. } => Some((*line, line + 1)),
        _ => None,
    }
}

fn ports(spec: &ObjectSpec) -> Option<(u64, u64)> {
    match spec {
        ObjectSpec::IoPorts { base, count, .. } => Some((*base, base + count)),
        _ => None,
    }
}

fn mmio(spec: &ObjectSpec) -> Option<(u64, u64)> {
    match spec {
        ObjectSpec::Mmio { phys, size } => Some((*phys, phys + size)),
        _ => None,
    }
}

/// The first pair (in object order) of spans that share a point.
fn first_overlap(spans: &[Span]) -> Option<(Span, Span)> {
    spans.iter().enumerate().find_map(|(index, second)| {
        let first = spans[..index]
            .iter()
            .find(|first| first.start < second.end && second.start < first.end)?;
        Some((first.clone(), second.clone()))
    })
}

/// Where guest RAM below 4 GiB ends on q35 with `memory_mib` of memory.
fn low_ram_end(memory_mib: u32) -> u64 {
    let memory = u64::from(memory_mib) * u64::from(MIB);
    if memory >= LOW_RAM_SPLIT {
        LOW_RAM_AFTER_SPLIT
    } else {
        memory
    }
}
