import Foundation
import PathwatchTestSupport
import Testing

/// Backfill against Debian's Prometheus: two agents in namespace `host` push to Prometheus's
/// remote-write receiver in namespace `upstream` (10.83.0.2, over veth `up0`, the default
/// route). The link goes away for three minutes (its peer taken down: carrier off, the path
/// unsatisfied, the sinks hold) and comes back; one agent is killed with SIGKILL in the middle of
/// the outage and started again. Afterwards every report either agent took is in Prometheus
/// with its own timestamp, once: `count_over_time` of the probe's series equals the number of
/// reports.
@Suite(.serialized, .onItsOwnThread) struct RemoteWriteBackfillTests {
    /// How long the receiver is out of reach, as the acceptance asks.
    static let outageSeconds = 180.0

    final class Topology {
        let host: LinkStateNamespace
        let upstream: LinkStateNamespace

        init() throws {
            host = try LinkStateNamespace("rwh")
            do {
                upstream = try LinkStateNamespace("rwu")
                try host.exec("ip link add up0 type veth peer name up1 netns \(upstream.name)")
                try upstream.exec("ip link set up1 up; ip addr add 10.83.0.2/24 dev up1")
                try host.exec(
                    "ip link set up0 up; ip addr add 10.83.0.1/24 dev up0; ip route add default via 10.83.0.2 dev up0")
            } catch {
                host.delete()
                throw error
            }
        }

        /// The receiver's side of the link down or up: to the agents' host, carrier off or on.
        func link(up: Bool) throws { try upstream.ip("link set up1 \(up ? "up" : "down")") }

        func delete() {
            host.delete()
            upstream.delete()
        }
    }

    /// Prometheus with its remote-write receiver, listening in `namespace` on `address`.
    final class Receiver {
        let process: BackgroundProcess
        let namespace: String
        let base: String

        init(in directory: URL, namespace: String, address: String) throws {
            self.namespace = namespace
            base = "http://\(address)"
            let home = directory.appendingPathComponent("prometheus")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let config = home.appendingPathComponent("prometheus.yml")
            try "global:\n  scrape_interval: 1m\n".write(to: config, atomically: true, encoding: .utf8)
            process = try BackgroundProcess(
                [
                    "ip", "netns", "exec", namespace, PrometheusServer.binary, "--config.file=\(config.path)",
                    "--storage.tsdb.path=\(home.appendingPathComponent("data").path)",
                    "--web.listen-address=\(address)",
                    "--web.enable-remote-write-receiver",
                ], currentDirectory: home)
            guard waitUntil(timeout: 60, { [self] in (try? curl(["\(base)/-/ready"]))?.status == 0 }) else {
                process.stop()
                throw TestFailure("prometheus did not become ready: \(process.errorOutput.suffix(2000))")
            }
        }

        func curl(_ arguments: [String]) throws -> ProcessResult {
            try run(["ip", "netns", "exec", namespace, "curl", "-sf", "--noproxy", "*"] + arguments, timeout: 20)
        }

        /// The timestamps of every raw sample of `selector` in the last hour.
        func timestamps(_ selector: String) -> [Int64] {
            guard let result = try? curl(["-G", "--data-urlencode", "query=\(selector)[1h]", "\(base)/api/v1/query"]),
                result.status == 0, let object = try? parseJSONObject(result.stdout),
                let series = (object["data"] as? [String: Any])?["result"] as? [[String: Any]]
            else { return [] }
            return series.flatMap { ($0["values"] as? [[Any]]) ?? [] }.compactMap {
                ($0.first as? Double).map { Int64(($0 * 1000).rounded()) }
            }
        }

        func value(_ expression: String) -> String? {
            guard let result = try? curl(["-G", "--data-urlencode", "query=\(expression)", "\(base)/api/v1/query"]),
                result.status == 0, let object = try? parseJSONObject(result.stdout),
                let first = ((object["data"] as? [String: Any])?["result"] as? [[String: Any]])?.first
            else { return nil }
            return (first["value"] as? [Any])?.last as? String
        }

        deinit { process.stop() }
    }

    /// Whether the sample at `time` is a report the sink stamped a millisecond on. At the
    /// link's return the probe reports its events, the sample the path's return asks for and
    /// its tick within milliseconds; on a busy machine two of them can be read in one
    /// millisecond. Both print one `last_sample_at`, and the sink stamps the later a
    /// millisecond after the one before it (its README: a series may not have two values at
    /// one timestamp). Each millisecond back to a printed report must then hold a stored sample.
    static func stampedOn(_ time: Int64, stored: Set<Int64>, printed: Set<Int64>) -> Bool {
        var before = time - 1
        while stored.contains(before) {
            if printed.contains(before) { return true }
            before -= 1
        }
        return false
    }

    /// The rule above tells a stamp moved on from a report no document printed.
    @Test func aStampMovedOnIsToldFromAReportNeverPrinted() {
        let printed: Set<Int64> = [1_000, 2_000]
        // 2,001 and 2,002: reports read in the same millisecond as the one at 2,000.
        let stored: Set<Int64> = [1_000, 2_000, 2_001, 2_002, 3_500]
        #expect(Self.stampedOn(2_001, stored: stored, printed: printed))
        #expect(Self.stampedOn(2_002, stored: stored, printed: printed))
        #expect(!Self.stampedOn(3_500, stored: stored, printed: printed))
        #expect(!Self.stampedOn(1_001, stored: [1_001], printed: printed))
    }

    func config(name: String, in dir: URL, receiver: String) throws -> URL {
        try writeConfig(
            """
            {"agent": {"name": "\(name)", "interval": "1s", "plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"],
                       "state_dir": "\(dir.path)/queues"},
             "probes": [{"id": "link", "plugin": "linkstate"}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"},
                       {"type": "remote_write", "url": "\(receiver)/api/v1/write", "timeout": "2s", "retry": {"initial": "200ms", "max": "2s"}}]}
            """, in: dir)
    }

    func start(_ config: URL, in namespace: String) throws -> BackgroundProcess {
        try BackgroundProcess(
            ["ip", "netns", "exec", namespace] + Unprivileged.pathwatch(["run", "--config", config.path]))
    }

    @Test(
        .enabled(
            if: TestEnvironment.canUseNamespaces && RemoteWritePrometheusTests.missingPrometheus() == nil,
            "needs root (namespaces) and prometheus (make test-deps)"))
    func threeMinutesOfflineAreBackfilledWithTheirOwnTimestampsAlsoAcrossAKill() throws {
        let topology = try Topology()
        defer { topology.delete() }
        let dir = try Unprivileged.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let prometheus = try Receiver(in: dir, namespace: topology.upstream.name, address: "10.83.0.2:9090")
        let steadyDir = dir.appendingPathComponent("steady")
        let killedDir = dir.appendingPathComponent("killed")
        for folder in [steadyDir, killedDir] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let steadyConfig = try config(name: "bf-steady", in: steadyDir, receiver: prometheus.base)
        let killedConfig = try config(name: "bf-killed", in: killedDir, receiver: prometheus.base)
        try Unprivileged.own(dir)
        let steady = try start(steadyConfig, in: topology.host.name)
        defer { steady.stop() }
        let killed = try start(killedConfig, in: topology.host.name)
        var restarted: BackgroundProcess?
        defer {
            killed.stop()
            restarted?.stop()
        }
        func diagnostics() -> String {
            """
            steady: \(steady.errorOutput.suffix(1500))
            killed: \(killed.errorOutput.suffix(800)) then \(restarted?.errorOutput.suffix(1500) ?? "")
            prometheus: \(prometheus.process.errorOutput.suffix(1500))
            """
        }
        for name in ["bf-steady", "bf-killed"] {
            #expect(
                waitUntil(timeout: 60) {
                    prometheus.value(#"pathwatch_probe_success{probe="link",instance="\#(name)"}"#) == "1"
                }, "\(name) never arrived\n\(diagnostics())")
        }

        try topology.link(up: false)
        let outageStart = Int64(Date().timeIntervalSince1970 * 1000)
        // The outage itself: its length is the scenario, not a guess at how long something takes.
        Thread.sleep(forTimeInterval: Self.outageSeconds / 2)
        // Nothing taken since the link went away has arrived: what arrives later is backfill.
        let midway = prometheus.timestamps(#"pathwatch_probe_success{probe="link",instance="bf-steady"}"#).max() ?? 0
        #expect(midway > 0 && midway < outageStart + 2_000, "reports arrived during the outage\n\(diagnostics())")
        killed.signal(SIGKILL)
        #expect(killed.waitForExit(timeout: 10))
        // Its last lines may still be in the pipe when it has ended.
        #expect(killed.waitForOutputEnd(), "the killed agent's output did not end\n\(diagnostics())")
        let beforeKill = reportTimes(killed.outputLines)
        restarted = try start(killedConfig, in: topology.host.name)
        // The outage's second half, with the killed agent restarted: again the scenario's length.
        Thread.sleep(forTimeInterval: Self.outageSeconds / 2)
        #expect(
            steady.errorOutput.contains("holding deliveries"),
            "the steady agent held while its path was unsatisfied\n\(diagnostics())")
        try topology.link(up: true)

        // Both backlogs arrive; then the agents stop (cleanly: what is left is drained).
        for (name, printed) in [
            ("bf-steady", { reportTimes(steady.outputLines) }), ("bf-killed", { reportTimes(restarted!.outputLines) }),
        ] {
            #expect(
                waitUntil(timeout: 120) {
                    prometheus.timestamps(#"pathwatch_probe_success{probe="link",instance="\#(name)"}"#).contains(
                        printed().last ?? 0)
                },
                "\(name): the backlog did not arrive\n\(diagnostics())")
        }
        steady.stop()
        restarted?.stop()
        let afterKill = reportTimes(restarted?.outputLines ?? [])

        // Around SIGKILL, the printed documents and the queue may each hold a report the other
        // had not yet: the last one printed may not have reached the queue, and the last one
        // queued may still have waited for its document (documents are paced).
        let killedAt = (beforeKill.last ?? 0, afterKill.first ?? .max)
        for (name, reports, mayMiss, mayLackDocument) in [
            ("bf-steady", reportTimes(steady.outputLines), Set<Int64>(), 0),
            ("bf-killed", beforeKill + afterKill, Set(beforeKill.suffix(1)), 1),
        ] {
            let stored = prometheus.timestamps(#"pathwatch_probe_success{probe="link",instance="\#(name)"}"#)
            let outage = reports.filter { $0 > reports[0] + 10_000 && $0 < (reports.last ?? 0) - 10_000 }
            #expect(reports.count > Int(Self.outageSeconds), "\(name): \(reports.count) reports")
            let (storedSet, printedSet) = (Set(stored), Set(reports))
            let unprinted = storedSet.subtracting(printedSet)
            let unexplained = unprinted.filter { !Self.stampedOn($0, stored: storedSet, printed: printedSet) }
            #expect(
                unexplained.count <= mayLackDocument && unexplained.allSatisfy { $0 > killedAt.0 && $0 < killedAt.1 },
                "\(name): samples at times no report had: \(unexplained.sorted()) (of \(unprinted.sorted()) not printed)"
            )
            let missing = printedSet.subtracting(storedSet)
            #expect(
                missing.isSubset(of: mayMiss),
                "\(name): \(missing.count) of \(reports.count) reports missing, \(outage.count) in the outage\n\(diagnostics())"
            )
            let window = Int((Double((reports.last ?? 0) - reports[0]) / 1000).rounded(.up)) + 5
            let count = prometheus.value(
                #"count_over_time(pathwatch_probe_success{probe="link",instance="\#(name)"}[\#(window)s])"#)
            #expect(
                count == String(reports.count - missing.count + unprinted.count),
                "\(name): count_over_time \(count ?? "none") for \(reports.count) reports")
        }
        #expect(
            !prometheus.process.errorOutput.contains("Out of order sample"),
            "a sample was sent twice or out of order\n\(diagnostics())")
    }
}
