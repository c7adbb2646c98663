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

    /// The agent on the fixture script, with `/metrics` and, when `prometheus` is given, a
    /// remote_write sink to it. The probe's timeout is seconds: on a loaded machine python3 took
    /// over the 200 ms a 300 ms interval leaves before SIGTERM, and the check read `unknown`.
    static func agentOnScript(in dir: URL, prometheus: String? = nil) throws -> LiveAgent {
        let script = dir.appendingPathComponent("prometheus.py")
        try FileManager.default.copyItem(
            at: TestEnvironment.packageRoot.appendingPathComponent("Plugins/Exec/Tests/Fixtures/prometheus.py"),
            to: script)
        chmod(script.path, 0o755)
        let push = prometheus.map { #", {"type": "remote_write", "url": "\#($0)/api/v1/write"}"# } ?? ""
        return try LiveAgent(in: dir) { port in
            """
            {"agent": {"name": "exec-labels", "plugin_dirs": ["."], "interval": "300ms", "state_dir": "queues"},
             "probes": [{"id": "vendor", "plugin": "exec", "interval": "5s", "timeout": "4s", "config": {"commands": [
                 {"name": "queues", "command": ["/usr/bin/python3", "\(script.path)"], "format": "prometheus"}]}}],
             "sinks": [{"type": "http", "listen": "127.0.0.1:\(port)"}\(push)]}
            """
        }
    }

    /// The script's labels are labels, its `# TYPE counter` families counters with `_total`, its
    /// HELP the family's; promtool has nothing to say.
    @Test(.enabled(if: ready, "needs promtool and python3 (make test-deps)"))
    func aPrometheusTextScriptIsExposedOnMetricsAndPromtoolAcceptsIt() throws {
        let dir = try Self.folderWithExec()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let agent = try Self.agentOnScript(in: dir)
        defer { agent.stop() }
        let text = try waitFor("the script's metrics on /metrics", timeout: 30) { () -> String? in
            let body = (try? agent.request("/metrics"))?.body ?? ""
            return body.contains("pathwatch_exec_queue_depth{") ? body : nil
        }
        let labels = #"check="vendor/queues",probe="vendor",command="/usr/bin/python3""#
        for line in [
            "# HELP pathwatch_exec_queue_depth Jobs waiting.", "# TYPE pathwatch_exec_queue_depth gauge",
            #"pathwatch_exec_queue_depth{\#(labels),queue="mail"} 7"#,
            #"pathwatch_exec_queue_depth{\#(labels),queue="print"} 2"#,
            #"pathwatch_exec_queue_depth{\#(labels),prio="hi",queue="spam"} 3"#,
            "# TYPE pathwatch_exec_jobs_done_total counter", "pathwatch_exec_jobs_done_total{\(labels)} 1234",
            "# HELP pathwatch_exec_jobs_total Jobs taken since the worker started.",
            "# TYPE pathwatch_exec_jobs_total counter", "pathwatch_exec_jobs_total{\(labels)} 42",
            "pathwatch_exec_last_run_seconds{\(labels)} 0.25",
            #"pathwatch_check_state{check="vendor/queues",probe="vendor",plugin="exec",state="ok"} 1"#,
        ] {
            #expect(
                text.contains("\n" + line + "\n"),
                "no \(line) in:\n\(text.split(separator: "\n").filter { $0.contains("exec") }.joined(separator: "\n"))"
            )
        }
        #expect(
            !text.contains("queue_depth_mail") && !text.contains("queue_depth_hi_spam"), "a label folded into a name")
        let promtool = try run(["promtool", "check", "metrics"], input: text)
        #expect(
            promtool.status == 0 && promtool.stdout.isEmpty && promtool.stderr.isEmpty,
            "promtool: \(promtool.stdout) \(promtool.stderr)")
        // The status document names each series with its labels.
        let status = try parseJSONObject(try agent.request("/status").body)
        let check = (status["checks"] as? [[String: Any]])?.first { $0["id"] as? String == "vendor/queues" }
        let metrics = check?["metrics"] as? [String: Any] ?? [:]
        #expect(metrics[#"queue_depth{prio="hi",queue="spam"}"#] as? Double == 3, "\(metrics.keys.sorted())")
        #expect(metrics["jobs_total"] as? Double == 42, "\(metrics.keys.sorted())")
    }

    /// The same series pushed by remote write into a real Prometheus keep their labels there.
    @Test(.enabled(if: ready && PrometheusServer.unavailable() == nil, "needs prometheus, promtool and python3"))
    func theScriptsLabelsReachPrometheusByRemoteWrite() throws {
        let dir = try Self.folderWithExec()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let prometheus = try PrometheusServer(
            in: dir, configuration: "global: {}\n", arguments: ["--web.enable-remote-write-receiver"])
        let agent = try Self.agentOnScript(in: dir, prometheus: prometheus.base)
        defer { agent.stop() }
        var found: [(labels: [String: String], value: String)] = []
        #expect(
            waitUntil(timeout: 60) {
                found = prometheus.query(#"pathwatch_exec_queue_depth{queue="spam",prio="hi"}"#)
                return found.count == 1 && !prometheus.query("pathwatch_exec_jobs_total").isEmpty
            }, "\(found)\nagent: \(agent.process.errorOutput.suffix(1500))")
        #expect(found.first?.value == "3")
        #expect(found.first?.labels["check"] == "vendor/queues" && found.first?.labels["instance"] == "exec-labels")
        #expect(prometheus.query("pathwatch_exec_queue_depth").count == 3)
        #expect(prometheus.query("pathwatch_exec_jobs_total").first?.value == "42")
    }
}
