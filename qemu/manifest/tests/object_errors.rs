//! One test per rule on kernel objects, devices and supervision, each
//! asserting the exact message.

mod common;

use common::{message, HELLO, SYSTEM};

/// The minimal system plus `rest`.
fn with(rest: &str) -> String {
    format!("{SYSTEM}{HELLO}{rest}")
}

/// The table `[irqs.NAME]` with `body`.
fn irq(name: &str, body: &str) -> String {
    format!("[irqs.{name}]\n{body}")
}

#[test]
fn unknown_object_table_suggests() {
    assert_eq!(
        message(&with("[endpoint.echo]\nserver = \"hello\"\n")),
        "systems/t.toml: unknown key `endpoint` at the top level; did you mean `endpoints`?"
    );
}

#[test]
fn unknown_endpoint_key_suggests() {
    assert_eq!(
        message(&with("[endpoints.echo]\nsrever = \"hello\"\n")),
        "systems/t.toml: unknown key `srever` in `[endpoints.echo]`; did you mean `server`?"
    );
}

#[test]
fn notification_takes_no_keys() {
    assert_eq!(
        message(&with("[notifications.ev]\nsize = 4096\n")),
        "systems/t.toml: unknown key `size` in `[notifications.ev]`; this table takes no keys"
    );
}

#[test]
fn invalid_object_name() {
    assert_eq!(
        message(&with("[regions.Big]\nsize = 4096\n")),
        "systems/t.toml: `regions.Big`: the object name \"Big\" is not valid; it must start with a lowercase letter and hold only lowercase letters, digits, `_` and `-`"
    );
}

#[test]
fn endpoint_server_is_not_a_task() {
    assert_eq!(
        message(&with("[endpoints.echo]\nserver = \"helo\"\n")),
        "systems/t.toml: `endpoints.echo.server` is \"helo\", which is not a task; did you mean \"hello\"?"
    );
}

#[test]
fn endpoint_without_server() {
    assert_eq!(
        message(&with("[endpoints.echo]\n")),
        "systems/t.toml: `[endpoints.echo]` is missing the required key `server` (a string); add it"
    );
}

#[test]
fn irq_bound_to_an_undeclared_notification() {
    assert_eq!(
        message(&with(&irq("com2", "line = 3\nnotification = \"ev\"\nbit = 0\n"))),
        "systems/t.toml: `irqs.com2.notification` is \"ev\", which is not a notification; declare it as `[notifications.ev]`"
    );
}

#[test]
fn irq_bound_to_an_unknown_notification_suggests() {
    let text = with(&format!(
        "[notifications.events]\n{}",
        irq("com2", "line = 3\nnotification = \"event\"\nbit = 0\n")
    ));
    assert_eq!(
        message(&text),
        "systems/t.toml: `irqs.com2.notification` is \"event\", which is not a notification; did you mean \"events\"?"
    );
}

#[test]
fn irq_bit_out_of_range() {
    let text = with(&format!(
        "[notifications.ev]\n{}",
        irq("com2", "line = 3\nnotification = \"ev\"\nbit = 64\n")
    ));
    assert_eq!(
        message(&text),
        "systems/t.toml: `irqs.com2.bit` is 64, out of range; use a value from 0 to 63"
    );
}

#[test]
fn irq_line_out_of_range() {
    let body = "line = 15\nnotification = \"ev\"\nbit = 0\n";
    assert_eq!(
        message(&with(&format!("[notifications.ev]\n{}", irq("x", body)))),
        "systems/t.toml: `irqs.x.line` is 15, out of range; use a value from 1 to 14"
    );
    let body = "line = 0\nnotification = \"ev\"\nbit = 0\n";
    assert_eq!(
        message(&with(&format!("[notifications.ev]\n{}", irq("x", body)))),
        "systems/t.toml: `irqs.x.line` is 0, out of range; use a value from 1 to 14"
    );
}

#[test]
fn two_irqs_on_one_line() {
    let text = with(&format!(
        "[notifications.ev]\n{}{}",
        irq("com2", "line = 3\nnotification = \"ev\"\nbit = 0\n"),
        irq("serial", "line = 3\nnotification = \"ev\"\nbit = 1\n")
    ));
    assert_eq!(
        message(&text),
        "systems/t.toml: IRQs `com2` and `serial` are both on line 3; declare each line once and give its capability to one task"
    );
}

#[test]
fn one_owner_per_irq() {
    let text = with(&format!(
        "[notifications.ev]\n{}\
         [tasks.hello.caps]\nirq = {{ irq = \"com2\" }}\n\
         [tasks.other]\ncrate = \"other\"\npriority = 2\nstart_order = 2\n\
         [tasks.other.caps]\nline = {{ irq = \"com2\" }}\n",
        irq("com2", "line = 3\nnotification = \"ev\"\nbit = 0\n"),
    ));
    assert_eq!(
        message(&text),
        "systems/t.toml: IRQ `com2` is held by tasks `hello` and `other`; an IRQ has one owner: give its capability to one task only"
    );
}

#[test]
fn overlapping_io_ports() {
    let text =
        with("[ioports.com2]\nbase = 0x2f8\ncount = 8\n[ioports.wide]\nbase = 0x2f0\ncount = 9\n");
    assert_eq!(
        message(&text),
        "systems/t.toml: I/O port ranges `com2` (0x2f8..0x300) and `wide` (0x2f0..0x2f9) overlap; a port belongs to one range: make them disjoint"
    );
}

#[test]
fn io_ports_past_the_port_space() {
    assert_eq!(
        message(&with("[ioports.top]\nbase = 0xfffe\ncount = 8\n")),
        "systems/t.toml: `ioports.top.count` is 8, out of range; use a value from 1 to 2"
    );
}

#[test]
fn overlapping_mmio() {
    let text = with(
        "[mmio.a]\nphys = 0xfebd0000\nsize = 8192\n[mmio.b]\nphys = 0xfebd1000\nsize = 4096\n",
    );
    assert_eq!(
        message(&text),
        "systems/t.toml: MMIO ranges `a` (0xfebd0000..0xfebd2000) and `b` (0xfebd1000..0xfebd2000) overlap; a device register belongs to one range: make them disjoint"
    );
}

#[test]
fn mmio_not_page_aligned() {
    assert_eq!(
        message(&with("[mmio.uart]\nphys = 0xfebd0100\nsize = 4096\n")),
        "systems/t.toml: `mmio.uart.phys` is 0xfebd0100, not on a 4096-byte page boundary; use a multiple of 4096 such as 0xfebd0000"
    );
}

#[test]
fn mmio_past_4_gib() {
    assert_eq!(
        message(&with("[mmio.top]\nphys = 0xfffff000\nsize = 8192\n")),
        "systems/t.toml: `mmio.top.size` is 8192 (8 KiB), out of range; use a value from 4096 (4 KiB) to 4096 (4 KiB)"
    );
}

#[test]
fn mmio_in_guest_ram() {
    assert_eq!(
        message(&with("[mmio.low]\nphys = 0x100000\nsize = 4096\n")),
        "systems/t.toml: MMIO range `low` (0x100000..0x101000) lies in guest RAM, which ends at 0x8000000 with `system.memory_mib = 128`; a task holding it could reach the kernel's memory: use the device's register address"
    );
}

#[test]
fn only_a_test_system_may_put_mmio_in_guest_ram() {
    let mmio = "[mmio.low]\nphys = 0x200000\nsize = 4096\n";
    let test = "[test]\nexpect = [\"boot failed\"]\nallow_mmio_in_ram = true\n";
    let manifest = common::ok(&with(&format!("{mmio}{test}")));
    assert_eq!(manifest.objects.len(), 1);
    assert_eq!(
        message(&with(&format!(
            "{mmio}[test]\nexpect = [\"x\"]\nallow_mmio_in_ram = 1\n"
        ))),
        "systems/t.toml: `test.allow_mmio_in_ram` must be a boolean, but it is an integer"
    );
}

#[test]
fn region_size_out_of_range() {
    assert_eq!(
        message(&with("[regions.big]\nsize = 67112960\n")),
        "systems/t.toml: `regions.big.size` is 67112960 (65540 KiB), out of range; use a value from 4096 (4 KiB) to 67108864 (64 MiB)"
    );
    assert_eq!(
        message(&with("[regions.none]\nsize = 0\n")),
        "systems/t.toml: `regions.none.size` is 0, out of range; use a value from 4096 (4 KiB) to 67108864 (64 MiB)"
    );
}

#[test]
fn region_size_not_page_multiple() {
    assert_eq!(
        message(&with("[regions.odd]\nsize = 5000\n")),
        "systems/t.toml: `regions.odd.size` is 5000, not a whole number of 4096-byte pages; round it up to 8192"
    );
}

#[test]
fn too_many_objects() {
    let objects: String = (0..257)
        .map(|i| format!("[notifications.n{i}]\n"))
        .collect();
    assert_eq!(
        message(&with(&objects)),
        "systems/t.toml: the system has 257 kernel objects (the supervisor's fault endpoint counts), more than the 256 the boot image holds; remove or merge objects"
    );
}

#[test]
fn supervisor_is_not_a_task() {
    assert_eq!(
        message(&format!("{SYSTEM}supervisor = \"hallo\"\n{HELLO}")),
        "systems/t.toml: `system.supervisor` is \"hallo\", which is not a task; did you mean \"hello\"?"
    );
}

#[test]
fn restart_without_supervisor() {
    assert_eq!(
        message(&with("restart = \"on-fault\"\n")),
        "systems/t.toml: task `hello` has `restart = \"on-fault\"`, but the system has no supervisor to restart it; set `system.supervisor` to the task that restarts others, or remove that line"
    );
}

#[test]
fn supervisor_restarting_itself() {
    assert_eq!(
        message(&format!("{SYSTEM}supervisor = \"hello\"\n{HELLO}restart = \"on-fault\"\n")),
        "systems/t.toml: task `hello` is the supervisor, so nothing would restart it after a fault, yet it has `restart = \"on-fault\"`; remove that line"
    );
}

#[test]
fn unknown_restart_policy() {
    assert_eq!(
        message(&with("restart = \"on_fault\"\n")),
        "systems/t.toml: `tasks.hello.restart` is \"on_fault\", which is not a restart policy; did you mean \"on-fault\"?"
    );
}

#[test]
fn always_without_supervisor() {
    assert_eq!(
        message(&with("restart = \"always\"\n")),
        "systems/t.toml: task `hello` has `restart = \"always\"`, but the system has no supervisor to restart it; set `system.supervisor` to the task that restarts others, or remove that line"
    );
}

#[test]
fn unknown_restart_policy_suggests_always() {
    assert_eq!(
        message(&with("restart = \"alwyas\"\n")),
        "systems/t.toml: `tasks.hello.restart` is \"alwyas\", which is not a restart policy; did you mean \"always\"?"
    );
}

#[test]
fn sessions_without_supervisor() {
    assert_eq!(
        message(&with("[endpoints.echo]\nserver = \"hello\"\nsessions = true\n")),
        "systems/t.toml: endpoints.echo.sessions: the system has no supervisor, so no one would tell `echo`'s server that a client is gone; set `system.supervisor`, or remove that line"
    );
}

#[test]
fn sessions_of_the_supervisor() {
    assert_eq!(
        message(&format!(
            "{SYSTEM}supervisor = \"hello\"\n{HELLO}[endpoints.echo]\nserver = \"hello\"\nsessions = true\n"
        )),
        "systems/t.toml: endpoints.echo.sessions: `echo` is served by the supervisor `hello`, which would have to tell itself that a client is gone; remove that line"
    );
}

#[test]
fn sessions_must_be_a_boolean() {
    assert_eq!(
        message(&with(
            "[endpoints.echo]\nserver = \"hello\"\nsessions = 1\n"
        )),
        "systems/t.toml: `endpoints.echo.sessions` must be a boolean, but it is an integer"
    );
}
