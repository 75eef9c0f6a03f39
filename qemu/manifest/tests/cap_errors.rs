//! One test per rule on task capabilities, slots and the call graph, each
//! asserting the exact message.

mod common;

use common::{message, SYSTEM};

/// A task table (with `start_order` = `order`).
fn task(name: &str, order: u32) -> String {
    format!("[tasks.{name}]\ncrate = \"{name}\"\npriority = 2\nstart_order = {order}\n")
}

/// Task `server` serving endpoint `echo`, and task `client` with `caps`.
fn client(caps: &str) -> String {
    format!(
        "{SYSTEM}[endpoints.echo]\nserver = \"server\"\n[notifications.ev]\n\
         [regions.shared]\nsize = 8192\n{}{}[tasks.client.caps]\n{caps}",
        task("server", 1),
        task("client", 2)
    )
}

#[test]
fn unknown_cap_key_suggests() {
    assert_eq!(
        message(&client("echo = { endpont = \"echo\" }\n")),
        "systems/t.toml: unknown key `endpont` in `[tasks.client.caps.echo]`; did you mean `endpoint`?"
    );
}

#[test]
fn cap_that_is_not_a_table() {
    assert_eq!(
        message(&client("echo = \"echo\"\n")),
        "systems/t.toml: `tasks.client.caps.echo` must be a table, but it is a string"
    );
}

#[test]
fn invalid_cap_name() {
    assert_eq!(
        message(&client("Echo = { endpoint = \"echo\" }\n")),
        "systems/t.toml: `tasks.client.caps.Echo`: the capability name \"Echo\" is not valid; it must start with a lowercase letter and hold only lowercase letters, digits, `_` and `-`"
    );
}

#[test]
fn cap_naming_no_object() {
    assert_eq!(
        message(&client("echo = { rights = \"w\" }\n")),
        "systems/t.toml: `tasks.client.caps.echo` names no object; give it exactly one of `endpoint`, `notification`, `region`, `mmio`, `irq`, `ioports`"
    );
}

#[test]
fn cap_naming_several_objects() {
    assert_eq!(
        message(&client("echo = { endpoint = \"echo\", region = \"shared\" }\n")),
        "systems/t.toml: `tasks.client.caps.echo` names 2 objects (`endpoint`, `region`); a capability names exactly one: split it into one capability per object"
    );
}

#[test]
fn unknown_object_suggests() {
    assert_eq!(
        message(&client("echo = { endpoint = \"ehco\" }\n")),
        "systems/t.toml: `tasks.client.caps.echo.endpoint` is \"ehco\", which is not an endpoint; did you mean \"echo\"?"
    );
}

#[test]
fn unknown_object_of_an_undeclared_kind() {
    assert_eq!(
        message(&client("dev = { mmio = \"uart\" }\n")),
        "systems/t.toml: `tasks.client.caps.dev.mmio` is \"uart\", which is not an MMIO range; declare it as `[mmio.uart]`"
    );
}

#[test]
fn unknown_object_of_the_wrong_kind() {
    assert_eq!(
        message(&client("echo = { region = \"echo\" }\n")),
        "systems/t.toml: `tasks.client.caps.echo.region` is \"echo\", which is not a region; declare it as `[regions.echo]` or use one of \"shared\""
    );
}

#[test]
fn unknown_right_letter() {
    assert_eq!(
        message(&client("echo = { endpoint = \"echo\", rights = \"wx\" }\n")),
        "systems/t.toml: `tasks.client.caps.echo.rights` is \"wx\", and `x` is not a right; use the letters `r` (read), `w` (write), `g` (grant), `d` (dma)"
    );
}

#[test]
fn repeated_right() {
    assert_eq!(
        message(&client("ev = { notification = \"ev\", rights = \"rwr\" }\n")),
        "systems/t.toml: `tasks.client.caps.ev.rights` is \"rwr\", which gives `r` twice; write each right once"
    );
}

#[test]
fn right_not_meaningful_for_the_kind() {
    assert_eq!(
        message(&client("echo = { endpoint = \"echo\", rights = \"wd\" }\n")),
        "systems/t.toml: `tasks.client.caps.echo.rights` gives `d`, which means nothing for an endpoint; use only `rwg`"
    );
}

#[test]
fn badge_on_a_kind_without_badges() {
    assert_eq!(
        message(&client("shared = { region = \"shared\", badge = 1 }\n")),
        "systems/t.toml: `tasks.client.caps.shared.badge`: a capability to a region carries no badge (only endpoint and notification capabilities do); remove it"
    );
}

#[test]
fn negative_badge() {
    assert_eq!(
        message(&client("echo = { endpoint = \"echo\", badge = -1 }\n")),
        "systems/t.toml: `tasks.client.caps.echo.badge` is -1, out of range; use a value from 0 to 9223372036854775807"
    );
}

#[test]
fn only_the_server_receives() {
    assert_eq!(
        message(&client("echo = { endpoint = \"echo\", rights = \"rw\" }\n")),
        "systems/t.toml: `tasks.client.caps.echo.rights` gives `r` (receive) on endpoint `echo`, but only its server `server` receives there; remove `r`, or make this task the endpoint's server"
    );
}

#[test]
fn too_many_caps_in_a_task() {
    let caps: String = (0..64)
        .map(|i| format!("n{i} = {{ notification = \"ev\" }}\n"))
        .collect();
    assert_eq!(
        message(&client(&caps)),
        "systems/t.toml: task `client` needs 65 capability slots (slot 0 stays empty), more than the 64 a task has; remove capabilities from `[tasks.client.caps]`"
    );
}

#[test]
fn too_many_caps_in_the_system() {
    let caps: String = (0..60)
        .map(|i| format!("n{i} = {{ notification = \"ev\" }}\n"))
        .collect();
    let tasks: String = (0..18)
        .map(|i| format!("{}[tasks.t{i}.caps]\n{caps}", task(&format!("t{i}"), i)))
        .collect();
    assert_eq!(
        message(&format!("{SYSTEM}[notifications.ev]\n{tasks}")),
        "systems/t.toml: the tasks hold 1080 capabilities together, more than the 1024 the boot image holds; remove capabilities"
    );
}

#[test]
fn slot_names_that_make_the_same_constant() {
    assert_eq!(
        message(&client("ev-a = { notification = \"ev\" }\nev_a = { notification = \"ev\" }\n")),
        "systems/t.toml: task `client`: capability `ev-a` and capability `ev_a` both generate the constant `caps::EV_A`; rename one of them in `[tasks.client.caps]`"
    );
}

#[test]
fn slot_name_clashing_with_a_mapping_constant() {
    assert_eq!(
        message(&client("shared = { region = \"shared\" }\nshared_addr = { notification = \"ev\" }\n")),
        "systems/t.toml: task `client`: capability `shared` and capability `shared_addr` both generate the constant `caps::SHARED_ADDR`; rename one of them in `[tasks.client.caps]`"
    );
}

#[test]
fn slot_name_clashing_with_first_free() {
    assert_eq!(
        message(&client("first-free = { notification = \"ev\" }\n")),
        "systems/t.toml: task `client`: `FIRST_FREE` (which every task has) and capability `first-free` both generate the constant `caps::FIRST_FREE`; rename one of them in `[tasks.client.caps]`"
    );
}

#[test]
fn slot_name_clashing_with_the_fault_endpoint() {
    let text = format!(
        "{SYSTEM}supervisor = \"init\"\n[notifications.ev]\n{}[tasks.init.caps]\nfaults = {{ notification = \"ev\" }}\n",
        task("init", 0)
    );
    assert_eq!(
        message(&text),
        "systems/t.toml: task `init`: capability `faults` (the supervisor's fault endpoint) and capability `faults` both generate the constant `caps::FAULTS`; rename one of them in `[tasks.init.caps]`"
    );
}

#[test]
fn slot_name_clashing_with_a_servers_own_capability() {
    let text = format!(
        "{SYSTEM}[endpoints.echo]\nserver = \"server\"\n[notifications.ev]\n{}[tasks.server.caps]\necho = {{ notification = \"ev\" }}\n",
        task("server", 1)
    );
    assert_eq!(
        message(&text),
        "systems/t.toml: task `server`: capability `echo` and capability `echo` (its server's receive capability for endpoint `echo`) both generate the constant `caps::ECHO`; rename one of them in `[tasks.server.caps]`"
    );
}

#[test]
fn quota_on_a_notification() {
    assert_eq!(
        message(&client("ev = { notification = \"ev\", quota = 4 }\n")),
        "systems/t.toml: `tasks.client.caps.ev.quota`: a capability to a notification carries no quota (only endpoint capabilities do: what the client may hold of the server's resources); remove it"
    );
}

#[test]
fn two_quotas_for_one_client() {
    let text = format!(
        "{SYSTEM}[endpoints.echo]\nserver = \"server\"\n{}{}[tasks.a.caps]\necho = {{ endpoint = \"echo\", badge = 5, quota = 8 }}\n{}[tasks.b.caps]\nalso = {{ endpoint = \"echo\", badge = 5, quota = 16 }}\n",
        task("server", 1),
        task("a", 2),
        task("b", 3)
    );
    assert_eq!(
        message(&text),
        "systems/t.toml: `tasks.a.caps.echo` gives the client with badge 0x5 of endpoint `echo` a quota of 8, and `tasks.b.caps.also` one of 16; capabilities with one badge are one client: give the quota once, or the same"
    );
}

#[test]
fn slot_name_clashing_with_a_servers_client_table() {
    let text = format!(
        "{SYSTEM}[endpoints.echo]\nserver = \"server\"\n[notifications.ev]\n{}[tasks.server.caps]\necho_clients = {{ notification = \"ev\" }}\n",
        task("server", 1)
    );
    assert_eq!(
        message(&text),
        "systems/t.toml: task `server`: capability `echo_clients` and capability `echo` (its server's receive capability for endpoint `echo`) both generate the constant `caps::ECHO_CLIENTS`; rename one of them in `[tasks.server.caps]`"
    );
}

#[test]
fn call_cycle_between_two_tasks() {
    let text = format!(
        "{SYSTEM}[endpoints.to-a]\nserver = \"a\"\n[endpoints.to-b]\nserver = \"b\"\n\
         {}[tasks.a.caps]\nb = {{ endpoint = \"to-b\" }}\n\
         {}[tasks.b.caps]\na = {{ endpoint = \"to-a\" }}\n",
        task("a", 1),
        task("b", 2)
    );
    assert_eq!(
        message(&text),
        "systems/t.toml: the call graph has a cycle: `a -> b -> a`; tasks that call each other in a circle can all block waiting for a reply: break the cycle (a server answers with `reply`, or signals a notification, instead of calling its caller)"
    );
}

#[test]
fn call_cycle_through_three_tasks_is_named_in_order() {
    let text = format!(
        "{SYSTEM}[endpoints.ea]\nserver = \"a\"\n[endpoints.eb]\nserver = \"b\"\n[endpoints.ec]\nserver = \"c\"\n\
         {}[tasks.entry.caps]\nb = {{ endpoint = \"eb\" }}\n\
         {}[tasks.a.caps]\nb = {{ endpoint = \"eb\", rights = \"wg\" }}\n\
         {}[tasks.b.caps]\nc = {{ endpoint = \"ec\" }}\n\
         {}[tasks.c.caps]\na = {{ endpoint = \"ea\" }}\n",
        task("entry", 0),
        task("a", 1),
        task("b", 2),
        task("c", 3)
    );
    assert!(
        message(&text).contains("the call graph has a cycle: `b -> c -> a -> b`;"),
        "{}",
        message(&text)
    );
}

/// The supervisor's fault endpoint cannot be granted to anyone: a task
/// holding it with WRITE could send init forged fault reports. It is not a
/// declared object, so a capability naming it finds nothing.
#[test]
fn fault_endpoint_cannot_be_granted() {
    let text = format!(
        "{SYSTEM}supervisor = \"init\"\n{}{}[tasks.forger.caps]\nf = {{ endpoint = \"faults\", rights = \"w\" }}\n",
        task("init", 0),
        task("forger", 1)
    );
    assert_eq!(
        message(&text),
        "systems/t.toml: `tasks.forger.caps.f.endpoint` is \"faults\", which is not an endpoint; declare it as `[endpoints.faults]`"
    );
}

/// Nor can a declared endpoint named `faults` stand in for it.
#[test]
fn declared_endpoint_named_faults() {
    let text = format!(
        "{SYSTEM}supervisor = \"init\"\n[endpoints.faults]\nserver = \"init\"\n{}{}[tasks.forger.caps]\nf = {{ endpoint = \"faults\", rights = \"w\" }}\n",
        task("init", 0),
        task("forger", 1)
    );
    assert_eq!(
        message(&text),
        "systems/t.toml: task `init`: capability `faults` (the supervisor's fault endpoint) and capability `faults` (its server's receive capability for endpoint `faults`) both generate the constant `caps::FAULTS`; rename one of them in `[tasks.init.caps]`"
    );
}
