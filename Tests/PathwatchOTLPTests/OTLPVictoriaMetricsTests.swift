import Foundation
import PathwatchTestSupport
import Testing

/// The shipped configuration's series through an `otlp` sink into a real receiver,
/// VictoriaMetrics 1.112 from Debian 13's package, with Prometheus's translation of OTLP names
/// and units (`-opentelemetry.usePrometheusNaming`): each check's state and each metric a
/// check reports are found by a query, under names that carry their unit and type. Then the
/// receiver is gone for two minutes and back: every report of the gap arrives, once, with its
/// own timestamp. (Debian 13's Prometheus 2.53 has its OTLP receiver patched out; see
/// tools/trixie-receivers.sh.)
@Suite(.serialized, .onItsOwnThread) struct OTLPVictoriaMetricsTests {
    /// How long the receiver is gone, as the acceptance asks.
    static let outageSeconds = 120.0

    /// The shipped config.json, run from the test's folder: its probes and sinks as shipped,
    /// with the built plug-ins, a state folder and an http port of the test's own, a 2 s agent
    /// interval (more reports in the outage), a `json` stdout sink that prints every report,
    /// and the otlp sink.
    static func shippedConfig(in dir: URL, receiver: String) throws -> URL {
        let shipped = TestEnvironment.packageRoot.appendingPathComponent("config.json")
        var config = try parseJSONObject(String(contentsOf: shipped, encoding: .utf8))
        var agent = config["agent"] as? [String: Any] ?? [:]
        agent["name"] = "otlp-vm"
        agent["interval"] = "2s"
        agent["plugin_dirs"] = [TestEnvironment.productsDirectory.path]
        agent["state_dir"] = dir.appendingPathComponent("state").path
        config["agent"] = agent
        var sinks: [[String: Any]] = []
        for var sink in config["sinks"] as? [[String: Any]] ?? [] {
            switch sink["type"] as? String {
            case "http": sink["listen"] = "127.0.0.1:\(try unusedLoopbackPort())"
            case "file": sink["path"] = dir.appendingPathComponent("status.json").path
            case "stdout": continue
            default: break
            }
            sinks.append(sink)
        }
        sinks.append(["type": "stdout", "format": "json", "on": "every"])
        sinks.append([
            "type": "otlp", "url": "\(receiver)/opentelemetry/v1/metrics", "timeout": "2s",
            "retry": ["initial": "200ms", "max": "2s"],
        ])
        config["sinks"] = sinks
        let url = dir.appendingPathComponent("config.json")
        try JSONSerialization.data(withJSONObject: config, options: [.sortedKeys]).write(to: url)
        return url
    }

    /// The newest document's checks: id, plugin, state and metrics.
    static func checks(_ lines: [String]) -> [[String: Any]] {
        for line in lines.reversed() {
            if let doc = try? parseJSONObject(line), let checks = doc["checks"] as? [[String: Any]] { return checks }
        }
        return []
    }

    /// The checks of the last document whose every probe had reported by `time` (milliseconds):
    /// the receiver, which stored a report of that time, then holds every report in it (the
    /// queue goes oldest first), where a later document may carry another probe's report made
    /// after it, still in flight at the stop.
    static func checks(_ lines: [String], reportedBy time: Int64) -> [[String: Any]] {
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for line in lines.reversed() {
            guard let doc = try? parseJSONObject(line), let checks = doc["checks"] as? [[String: Any]],
                let probes = doc["probes"] as? [[String: Any]]
            else { continue }
            let times = probes.compactMap { ($0["last_sample_at"] as? String).flatMap(parser.date(from:)) }
            if times.allSatisfy({ Int64(($0.timeIntervalSince1970 * 1000).rounded()) <= time }) { return checks }
        }
        return []
    }

    @Test(.enabled(if: NewerReceivers.unavailable() == nil, "\(NewerReceivers.unavailable() ?? "")"))
    func theShippedSeriesArriveTypedAndTwoMinutesOfflineAreBackfilled() throws {
        let dir = try Unprivileged.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        var receiver = try VictoriaMetricsServer(in: dir, prometheusNaming: true)
        let config = try Self.shippedConfig(in: dir, receiver: receiver.base)
        try Unprivileged.own(dir)
        let agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", config.path]))
        defer { agent.stop() }
        func diagnostics() -> String {
            "agent: \(agent.errorOutput.suffix(1500))\nreceiver: \(receiver.process.errorOutput.suffix(1000))"
        }

        // Every check's state arrives, under the name /metrics gives it.
        #expect(
            waitUntil(timeout: 60, interval: 0.5) {
                let checks = Self.checks(agent.outputLines).compactMap { $0["id"] as? String }
                let stored = Set(receiver.export("pathwatch_check_state").compactMap { $0.labels["check"] })
                return !checks.isEmpty && Set(checks).isSubset(of: stored)
            }, "\(diagnostics())")

        // The receiver goes away for two minutes, and comes back with what it stored.
        let port = receiver.port
        receiver.process.stop()
        Thread.sleep(forTimeInterval: Self.outageSeconds)
        #expect(agent.errorOutput.contains("otlp"), "the sink said nothing of the outage\n\(diagnostics())")
        receiver = try VictoriaMetricsServer(in: dir, prometheusNaming: true, port: port)
        let lastPrinted = reportTimes(agent.outputLines, probe: "disk").last ?? 0
        #expect(
            waitUntil(timeout: 120, interval: 0.5) {
                let stored = receiver.export(#"pathwatch_check_state{probe="disk",state="unknown"}"#)
                return stored.contains { series in series.timestamps.contains { (0...5).contains($0 - lastPrinted) } }
            }, "the backlog did not arrive\n\(diagnostics())")
        // A report printed now is stored before the agent stops: one still in flight at the stop
        // stays in the queue for the next start (as the contract says), so it is not looked for.
        let lastBeforeStop = (reportTimes(agent.outputLines, probe: "disk").last ?? 0) + 4000
        var confirmed: Int64 = 0
        #expect(
            waitUntil(timeout: 60, interval: 0.5) {
                let stored = receiver.export(#"pathwatch_check_state{probe="disk",state="unknown"}"#)
                confirmed = stored.flatMap(\.timestamps).max() ?? 0
                return confirmed >= lastBeforeStop
            }, "no report after the backlog\n\(diagnostics())")
        #expect(agent.stop() == 0)

        // Each check's state and each metric it reported, with the values of the last document
        // whose reports were all made by the newest one stored.
        let checks = Self.checks(agent.outputLines, reportedBy: confirmed)
        #expect(!checks.isEmpty, "no document with every report made by \(confirmed)")
        let stored = receiver.export(#"{__name__=~"pathwatch_.+"}"#)
        for check in checks {
            let id = check["id"] as? String ?? ""
            let plugin = check["plugin"] as? String ?? ""
            let state = stored.first {
                $0.labels["__name__"] == "pathwatch_check_state" && $0.labels["check"] == id
                    && $0.labels["state"] == check["state"] as? String
            }
            #expect(state?.values.last == 1, "\(id): state \(check["state"] ?? "")")
            // The document prints a value to its precision; the receiver stores the double sent.
            for (metric, value) in check["metrics"] as? [String: Any] ?? [:] {
                let printed = value as? Double ?? .nan
                let series = stored.filter {
                    $0.labels["check"] == id && $0.labels["__name__"]?.hasPrefix("pathwatch_\(plugin)_") == true
                        && $0.values.contains { abs($0 - printed) <= abs(printed) * 1e-6 }
                }
                #expect(!series.isEmpty, "\(id): \(metric) = \(value) not found")
            }
        }
        // The unit and the type in the name, as Prometheus translates OTLP's.
        let names = Set(stored.compactMap { $0.labels["__name__"] })
        for name in [
            "pathwatch_disk_avail_bytes", "pathwatch_disk_used_bytes", "pathwatch_disk_used_pct_percent",
            "pathwatch_disk_inodes_used_percent", "pathwatch_loadavg_load1",
            "pathwatch_bandwidth_rx_packets_per_second",
            "pathwatch_bandwidth_window_milliseconds",
        ] {
            #expect(names.contains(name), "\(name) not among \(names.sorted())")
        }
        if names.contains(where: { $0.hasPrefix("pathwatch_linkstate_") }) {
            #expect(
                names.contains("pathwatch_linkstate_mtu_bytes")
                    && names.contains("pathwatch_linkstate_carrier_changes_total"))
        }
        // The resource's attributes as labels.
        let sample = stored.first { $0.labels["__name__"] == "pathwatch_check_state" }?.labels ?? [:]
        #expect(sample["service_name"] == "pathwatch" && sample["service_instance_id"] == "otlp-vm", "\(sample)")

        // Every report of the disk probe, the outage's included, once, with its own time.
        let printed = reportTimes(agent.outputLines, probe: "disk").filter { $0 <= confirmed }
        let diskCheck = try #require(checks.first { $0["probe"] as? String == "disk" }?["id"] as? String)
        let times = stored.filter {
            $0.labels["__name__"] == "pathwatch_check_state" && $0.labels["check"] == diskCheck
                && $0.labels["state"] == "unknown"
        }.flatMap(\.timestamps)
        #expect(Set(times).count == times.count, "a report arrived twice")
        #expect(printed.count > Int(Self.outageSeconds / 2) - 5, "\(printed.count) reports")
        let missing = printed.filter { p in !times.contains { (0...5).contains($0 - p) } }
        let positions = missing.compactMap { printed.firstIndex(of: $0) }
        #expect(
            missing.isEmpty,
            "\(missing.count) of \(printed.count) reports missing: \(missing.prefix(10)) at \(positions.prefix(10)); outage from \(lastPrinted)"
        )
    }
}
