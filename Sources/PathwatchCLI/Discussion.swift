/// The longer description `--help` and the man page show: what an operator looks up first.
extension Pathwatch {
    static let discussion = """
        Without --config, the configuration is $PATHWATCH_CONFIG, else ./config.json if it exists, \
        else /etc/pathwatch/config.json. Every *.json file in the conf.d folder beside it is read in \
        name order; each may hold "probes" and "sinks" arrays, appended to the main file's. Errors \
        name the file (a fragment's own), the JSON path and what was expected.

        Under systemd (pathwatch.service, Type=notify), the agent reports READY=1 once every probe has \
        reported, keeps STATUS= current, sends WATCHDOG=1 while its loops are alive, and logs with \
        journal priorities. SIGHUP re-reads the configuration; SIGTERM and SIGINT stop the agent.

        Files: /etc/pathwatch/config.json, /etc/pathwatch/conf.d/*.json, /var/lib/pathwatch (state), \
        /usr/lib/pathwatch/plugins and /usr/local/lib/pathwatch/plugins (plug-ins), \
        /usr/include/pathwatch/pathwatch_probe.h and pkg-config's pathwatch-probe (the plug-in ABI).

        Exit status: 0 success (once: ok), 1 warning or failure, 2 critical, 3 unknown, 78 configuration error.
        """
}
