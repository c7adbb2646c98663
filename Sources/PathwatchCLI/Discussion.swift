/// The longer description `--help` and the man page show: what an operator looks up first, and
/// where the rest is on an installed host (the package installs no other manual).
extension Pathwatch {
    static let discussion = """
        Without --config, the configuration is $PATHWATCH_CONFIG, else ./config.json if it exists, \
        else /etc/pathwatch/config.json. Every *.json file in the conf.d folder beside it is read in \
        name order; each may hold "probes" and "sinks" arrays, appended to the main file's. Errors \
        name the file (a fragment's own), the JSON path and what was expected.

        Under systemd (pathwatch.service, Type=notify), the agent reports READY=1 once every probe has \
        reported (or agent.ready_timeout, 2s, has passed), keeps STATUS= current, sends WATCHDOG=1 while its loops are alive, and logs with \
        journal priorities. SIGHUP re-reads the configuration; SIGTERM and SIGINT stop the agent.

        Plug-ins: a probe is a shared library exporting pathwatch_probe_entry, written in C against \
        /usr/include/pathwatch/pathwatch_probe.h (pkg-config --cflags pathwatch-probe) or in Swift with \
        the SDK package in /usr/share/pathwatch/swift-sdk. Try one before installing it: pathwatch \
        plugins --try ./libmyprobe.so --probe-config '{"key": "value"}' (or --probe-config @probe.json) \
        loads it in a child process, creates, samples once and prints what it emitted or why it failed \
        (add --watch 30s to see an event-driven one's events as they happen). \
        Install it in /usr/local/lib/pathwatch/plugins, owned by root and writable by no one else; \
        pathwatch plugins lists what the agent finds and why a file was refused. By default plug-ins run \
        in supervised child processes ("isolation": "process"), one per plug-in file shared by its probes, so \
        a crash is reported, not suffered (and restarts that file's probes together).

        Documentation: /usr/share/doc/pathwatch/README.md, and in /usr/share/doc/pathwatch/docs: \
        configuration.md (every key and what is refused), plugins.md (writing a plug-in, in C and Swift), \
        command-line.md, operating.md, isolation.md, secrets.md, metrics.md; each bundled plug-in's \
        README.md under /usr/share/doc/pathwatch/Plugins.

        Files: /etc/pathwatch/config.json, /etc/pathwatch/conf.d/*.json, /var/lib/pathwatch (state), \
        /usr/lib/pathwatch/plugins and /usr/local/lib/pathwatch/plugins (plug-ins), \
        /usr/include/pathwatch/pathwatch_probe.h and pkg-config's pathwatch-probe (the plug-in ABI).

        Exit status: 0 success (once: ok), 1 warning or failure, 2 critical, 3 unknown, 78 configuration error.
        """
}
