import Foundation
import PathwatchTestSupport
import Testing

/// An event-driven plug-in (it has event_fd and handle_event) whose instance gives no descriptor
/// would never report a change between samples. It is refused with the reason, in either
/// isolation, by `check-config` and `once`, instead of loading silently.
@Suite(.onItsOwnThread) struct EventDrivenRefusalTests {
    @Test(arguments: ["process", "inline"])
    func anEventDrivenPluginWithoutADescriptorIsRefused(isolation: String) throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        chmod(dir.path, 0o755)
        try FixturePlugins.build(
            "test_probe.c", as: "evprobe", into: dir, defines: ["TEST_EVENT_DRIVEN", "TEST_NAME=\"evprobe\""])
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(dir.path)"], "isolation": "\(isolation)"},
             "probes": [{"id": "ev", "plugin": "evprobe"}]}
            """, in: dir)
        for command in ["check-config", "once"] {
            let result = try run(Unprivileged.pathwatch([command, "--config", config.path]), timeout: 30)
            #expect(result.status == 78, "\(command): \(result.stdout)\(result.stderr)")
            #expect(
                result.stderr.contains("probes[0].config: plug-in evprobe is event-driven"),
                "\(command): \(result.stderr)")
            #expect(result.stderr.contains("gave no event descriptor"), "\(command): \(result.stderr)")
        }
    }

    /// A descriptor that declares itself event-driven (PW_PROBE_FLAG_EVENT_DRIVEN) without
    /// event_fd and handle_event would load as a polled probe and never report a change between
    /// samples: the file is refused at load with the reason, in either isolation.
    @Test(arguments: ["process", "inline"])
    func aFlaggedPluginWithoutEventCallsIsRefusedAtLoad(isolation: String) throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        chmod(dir.path, 0o755)
        try FixturePlugins.build("boundary_probe.c", as: "boundary", into: dir, defines: ["FLAGGED_EVENT_DRIVEN"])
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(dir.path)"], "isolation": "\(isolation)"},
             "probes": [{"id": "b", "plugin": "boundary"}]}
            """, in: dir)
        let reason = "descriptor declares PW_PROBE_FLAG_EVENT_DRIVEN but has no event_fd and handle_event"
        let plugins = try run(Unprivileged.pathwatch(["plugins", "--config", config.path]), timeout: 30)
        #expect(plugins.stdout.contains("libboundary.so: \(reason)"), "\(plugins.stdout)")
        for command in ["check-config", "once"] {
            let result = try run(Unprivileged.pathwatch([command, "--config", config.path]), timeout: 30)
            #expect(result.status == 78, "\(command): \(result.stdout)\(result.stderr)")
            #expect(
                result.stderr.contains("probes[0].plugin: no plug-in named \"boundary\""),
                "\(command): \(result.stderr)")
            #expect(result.stderr.contains(reason), "\(command): \(result.stderr)")
        }
    }
}
