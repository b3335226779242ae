//! A second launch hands its files to the running window before it starts a GUI of its own.
//!
//! `tauri-plugin-single-instance` does the same from its setup hook, but that runs after tao has
//! created the event loop, whose X11 device-event thread may still be opening its own display
//! when the plugin calls `exit`: the exit handlers tear libXext down under that thread and the
//! launch dies with SIGSEGV (measured: about 1 launch in 250 on a loaded machine). Asked here,
//! before any GUI thread exists, the running window gets the files and this process exits
//! cleanly. The plugin still serves the call in the first instance, and covers a launch that
//! races with a first one still starting.

/// The plugin's D-Bus name and object path for the app `identifier`.
fn bus_name_and_path(identifier: &str) -> (String, String) {
    let name = format!("{identifier}.SingleInstance");
    let path = format!("/{}", name.replace('.', "/").replace('-', "_"));
    (name, path)
}

/// Hands this launch's arguments and working folder to the running instance of the app
/// `identifier`, as the plugin would; `true` once it accepted them (this process should exit).
#[cfg(target_os = "linux")]
pub fn to_running_instance(identifier: &str) -> bool {
    use zbus::blocking::{fdo::DBusProxy, Connection};
    let (name, path) = bus_name_and_path(identifier);
    let Ok(bus) = Connection::session() else {
        return false;
    };
    let owned = zbus::names::BusName::try_from(name.as_str())
        .ok()
        .and_then(|n| DBusProxy::new(&bus).ok()?.name_has_owner(n).ok())
        .unwrap_or(false);
    if !owned {
        return false;
    }
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let cwd = std::env::current_dir().unwrap_or_default();
    bus.call_method(
        Some(name.as_str()),
        path.as_str(),
        Some("org.SingleInstance.DBus"),
        "ExecuteCallback",
        &(argv, cwd.to_string_lossy().as_ref()),
    )
    .is_ok()
}

/// No early hand-over elsewhere: the plugin does it.
#[cfg(not(target_os = "linux"))]
pub fn to_running_instance(_identifier: &str) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugins_name_and_path() {
        // As tauri-plugin-single-instance 2 derives them (without its `semver` feature).
        assert_eq!(
            bus_name_and_path("org.rete.desktop"),
            (
                "org.rete.desktop.SingleInstance".to_string(),
                "/org/rete/desktop/SingleInstance".to_string()
            )
        );
        assert_eq!(bus_name_and_path("a.b-c").1, "/a/b_c/SingleInstance");
    }
}
