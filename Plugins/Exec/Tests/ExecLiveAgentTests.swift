import Foundation
import PathwatchTestSupport
import Testing

/// The exec plug-in in the running agent (process isolation, unprivileged): a Prometheus-text
/// script's metrics on `/metrics` as promtool judges them, and a thousand command runs that leave
/// no zombie, no descriptor and no process behind.
@Suite(.serialized, .onItsOwnThread) struct ExecLiveAgentTests {
    static let plugins = "/usr/lib/nagios/plugins"
    static var ready: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
    }

    /// A folder holding the exec plug-in, for an agent with `plugin_dirs: ["."]`.
    static func folderWithExec() throws -> URL {
        let dir = try TestEnvironment.makeTemporaryDirectory("pathwatch-exec-live")
        chmod(dir.path, 0o755)
        try FileManager.default.copyItem(
            at: TestEnvironment.plugin("pathwatch_exec"), to: dir.appendingPathComponent("libpathwatch_exec.so"))
        return dir
    }

    @Test(.enabled(if: ready, "needs promtool and python3 (make test-deps)"))
    func aPrometheusTextScriptIsExposedOnMetricsAndPromtoolAcceptsIt() throws {
        let dir = try Self.folderWithExec()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let script = dir.appendingPathComponent("prometheus.py")
        try FileManager.default.copyItem(
            at: TestEnvironment.packageRoot.appendingPathComponent("Plugins/Exec/Tests/Fixtures/prometheus.py"),
            to: script)
        chmod(script.path, 0o755)
        let agent = try LiveAgent(in: dir) { port in
            """
            {"agent": {"plugin_dirs": ["."], "interval": "300ms", "state_dir": "queues"},
             "probes": [{"id": "vendor", "plugin": "exec", "config": {"commands": [
                 {"name": "queues", "command": ["/usr/bin/python3", "\(script.path)"], "format": "prometheus"}]}}],
             "sinks": [{"type": "http", "listen": "127.0.0.1:\(port)"}]}
            """
        }
        defer { agent.stop() }
        let text = try waitFor("the script's metrics on /metrics", timeout: 30) { () -> String? in
            let body = (try? agent.request("/metrics"))?.body ?? ""
            return body.contains("pathwatch_exec_queue_depth_mail{") ? body : nil
        }
        let labels = #"{check="vendor/queues",probe="vendor",command="/usr/bin/python3"}"#
        for line in [
            "pathwatch_exec_queue_depth_mail\(labels) 7", "pathwatch_exec_queue_depth_print\(labels) 2",
            "pathwatch_exec_jobs_done\(labels) 1234", "pathwatch_exec_last_run_seconds\(labels) 0.25",
            #"pathwatch_check_state{check="vendor/queues",probe="vendor",plugin="exec",state="ok"} 1"#,
        ] {
            #expect(
                text.contains("\n" + line + "\n"),
                "no \(line) in:\n\(text.split(separator: "\n").filter { $0.contains("vendor") }.joined(separator: "\n"))"
            )
        }
        let promtool = try run(["promtool", "check", "metrics"], input: text)
        #expect(
            promtool.status == 0 && promtool.stdout.isEmpty && promtool.stderr.isEmpty,
            "promtool: \(promtool.stdout) \(promtool.stderr)")
    }
}
