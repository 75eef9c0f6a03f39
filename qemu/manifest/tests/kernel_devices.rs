//! The I/O ports the kernel keeps unless granted (`kernel_device`): one
//! test per rule, each asserting the exact message, and the accepted form.

mod common;

use common::{message, ok, HELLO, SYSTEM};
use conflux_abi::devices::KernelDevice;
use conflux_manifest::ObjectSpec;

/// A second task, `other`.
const OTHER: &str = "[tasks.other]\ncrate = \"other\"\npriority = 2\nstart_order = 2\n";

/// The minimal system, with `hello` holding `[ioports.pci]` declared by `body`.
fn pci(body: &str) -> String {
    format!(
        "{SYSTEM}{HELLO}[tasks.hello.caps]\npci = {{ ioports = \"pci\" }}\n[ioports.pci]\n{body}"
    )
}

#[test]
fn a_granted_device_is_accepted_and_kept() {
    let manifest = ok(&pci(
        "base = 0xcf8\ncount = 8\nkernel_device = \"pci-config\"\n",
    ));
    assert_eq!(
        manifest.objects[0].spec,
        ObjectSpec::IoPorts {
            base: 0xcf8,
            count: 8,
            device: Some(KernelDevice::PciConfig)
        }
    );
}

#[test]
fn unknown_kernel_device_suggests() {
    assert_eq!(
        message(&pci("base = 0xcf8\ncount = 8\nkernel_device = \"pci-conf\"\n")),
        "systems/t.toml: `ioports.pci.kernel_device` is \"pci-conf\", which is not a kernel device; did you mean \"pci-config\"?"
    );
}

#[test]
fn kernel_device_key_typo_suggests() {
    assert_eq!(
        message(&pci("base = 0xcf8\ncount = 8\nkernel_devcie = \"pci-config\"\n")),
        "systems/t.toml: unknown key `kernel_devcie` in `[ioports.pci]`; did you mean `kernel_device`?"
    );
}

#[test]
fn pci_config_ports_need_a_grant() {
    assert_eq!(
        message(&pci("base = 0xcfc\ncount = 4\n")),
        "systems/t.toml: I/O port range `pci` (0xcfc..0xd00) overlaps ports 0xcf8..0xd00, the PCI configuration ports (0xcf9 among them also resets the machine), which the kernel keeps; to give them to one task, add `kernel_device = \"pci-config\"` to `[ioports.pci]` and keep the range inside 0xcf8..0xd00"
    );
}

#[test]
fn reset_port_92_needs_a_grant() {
    assert_eq!(
        message(&pci("base = 0x90\ncount = 4\n")),
        "systems/t.toml: I/O port range `pci` (0x90..0x94) overlaps ports 0x92..0x93, system control port A (fast reset and the A20 gate), which the kernel keeps; to give them to one task, add `kernel_device = \"system-control\"` to `[ioports.pci]` and keep the range inside 0x92..0x93"
    );
}

#[test]
fn acpi_pm_ports_need_a_grant_even_when_another_device_is_granted() {
    assert_eq!(
        message(&pci("base = 0x604\ncount = 2\nkernel_device = \"pci-config\"\n")),
        "systems/t.toml: I/O port range `pci` (0x604..0x606) overlaps ports 0x600..0x680, the ACPI power-management ports (sleep and power-off), which the kernel keeps; to give them to one task, add `kernel_device = \"acpi-pm\"` to `[ioports.pci]` and keep the range inside 0x600..0x680"
    );
}

#[test]
fn a_grant_stays_inside_its_device() {
    assert_eq!(
        message(&pci("base = 0xcf8\ncount = 16\nkernel_device = \"pci-config\"\n")),
        "systems/t.toml: I/O port range `pci` (0xcf8..0xd08) grants kernel device \"pci-config\" but reaches beyond its ports 0xcf8..0xd00; keep the range inside them"
    );
}

#[test]
fn a_granted_device_needs_a_holder() {
    let text = format!(
        "{SYSTEM}{HELLO}[ioports.acpi]\nbase = 0x600\ncount = 128\nkernel_device = \"acpi-pm\"\n"
    );
    assert_eq!(
        message(&text),
        "systems/t.toml: kernel device \"acpi-pm\" (granted by `[ioports.acpi]`) is held by no task; give a capability to it to exactly one task"
    );
}

#[test]
fn a_granted_device_has_one_holder() {
    // Two ranges of one device, held by different tasks.
    let text = format!(
        "{}{OTHER}[tasks.other.caps]\ndata = {{ ioports = \"data\" }}\n[ioports.data]\nbase = 0xcfc\ncount = 4\nkernel_device = \"pci-config\"\n",
        pci("base = 0xcf8\ncount = 4\nkernel_device = \"pci-config\"\n")
    );
    assert_eq!(
        message(&text),
        "systems/t.toml: kernel device \"pci-config\" (granted by `[ioports.pci]`) is held by tasks `hello`, `other`; give a capability to it to exactly one task"
    );
}

#[test]
fn different_devices_may_go_to_different_tasks() {
    let text = format!(
        "{}{OTHER}[tasks.other.caps]\nreset = {{ ioports = \"reset\" }}\n[ioports.reset]\nbase = 0x92\ncount = 1\nkernel_device = \"system-control\"\n",
        pci("base = 0xcf8\ncount = 8\nkernel_device = \"pci-config\"\n")
    );
    assert_eq!(ok(&text).objects.len(), 2);
}
