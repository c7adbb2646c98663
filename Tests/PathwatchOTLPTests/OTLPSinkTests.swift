import Foundation
import PathwatchTestSupport
import Testing

/// The `otlp` sink in a running agent, every request read by OpenTelemetry's own Python package
/// (`Tests/Fixtures/otlp/receiver.py`): the resource, a scope per plug-in with its version, the
/// check's state and the declared metrics with their types and units, a counter's start time
/// that moves when its plug-in's child restarts and only then, and each point stamped with its
/// report's time. Protobuf with gzip (the default), and JSON.
@Suite(.serialized) struct OTLPSinkTests {
    /// The receiver, recording every request it read (or did not).
    final class Receiver {
        let process: BackgroundProcess
        let port: Int
        let log: URL

        /// `partial`: "N:MESSAGE", each request answered with a partial success.
        init(in dir: URL, partial: String? = nil) throws {
            port = try unusedLoopbackPort()
            log = dir.appendingPathComponent("received.jsonl")
            let script = TestEnvironment.packageRoot.appendingPathComponent("Tests/Fixtures/otlp/receiver.py")
            process = try BackgroundProcess(
                ["python3", script.path, "--port", "\(port)", "--log", log.path]
                    + (partial.map { ["--partial", $0] } ?? []))
            guard waitUntil(timeout: 30, { process.outputLines.contains("listening") }) else {
                process.stop()
                throw TestFailure("the OTLP receiver did not start: \(process.errorOutput.suffix(2000))")
            }
        }

        var url: String { "http://127.0.0.1:\(port)/v1/metrics" }

        var records: [[String: Any]] {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? parseJSONObject(String($0)) }
        }

        deinit { process.stop() }
    }

    /// One data point as the decoder gave it, with what names it.
    struct Point {
        var resource: [String: String]
        var scope: (name: String, version: String)
        var metric: String
        var unit: String
        /// "gauge", or "sum" with its temporality and monotonicity.
        var type: String
        var attributes: [String: String]
        var start: UInt64
        var time: UInt64
        var value: Double
    }

    static func attributes(_ list: Any?) -> [String: String] {
        var out: [String: String] = [:]
        for entry in list as? [[String: Any]] ?? [] {
            out[entry["key"] as? String ?? ""] = (entry["value"] as? [String: Any])?["string_value"] as? String
        }
        return out
    }

    /// Every point of every request.
    static func points(_ records: [[String: Any]]) -> [Point] {
        var points: [Point] = []
        for record in records {
            let request = record["request"] as? [String: Any] ?? [:]
            for resourceMetrics in request["resource_metrics"] as? [[String: Any]] ?? [] {
                let resource = attributes((resourceMetrics["resource"] as? [String: Any])?["attributes"])
                for scopeMetrics in resourceMetrics["scope_metrics"] as? [[String: Any]] ?? [] {
                    let scope = scopeMetrics["scope"] as? [String: Any] ?? [:]
                    for metric in scopeMetrics["metrics"] as? [[String: Any]] ?? [] {
                        let (type, data): (String, [String: Any])
                        if let gauge = metric["gauge"] as? [String: Any] {
                            (type, data) = ("gauge", gauge)
                        } else if let sum = metric["sum"] as? [String: Any] {
                            let temporality = sum["aggregation_temporality"] as? String ?? "?"
                            (type, data) = (
                                "sum \(temporality) monotonic=\(sum["is_monotonic"] as? Bool ?? false)", sum
                            )
                        } else {
                            (type, data) = ("other", [:])
                        }
                        for point in data["data_points"] as? [[String: Any]] ?? [] {
                            points.append(
                                Point(
                                    resource: resource,
                                    scope: (scope["name"] as? String ?? "", scope["version"] as? String ?? ""),
                                    metric: metric["name"] as? String ?? "", unit: metric["unit"] as? String ?? "",
                                    type: type, attributes: attributes(point["attributes"]),
                                    start: UInt64(point["start_time_unix_nano"] as? String ?? "0") ?? 0,
                                    time: UInt64(point["time_unix_nano"] as? String ?? "0") ?? 0,
                                    value: point["as_double"] as? Double ?? 0))
                        }
                    }
                }
            }
        }
        return points
    }

    func config(in dir: URL, sink: String) throws -> URL {
        try writeConfig(
            """
            {"agent": {"name": "otlp-sink", "interval": "1s", "plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"],
                       "state_dir": "\(dir.path)/queues"},
             "probes": [{"id": "link", "plugin": "linkstate"},
                        {"id": "load", "plugin": "loadavg", "isolation": "inline"}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}, \(sink)]}
            """, in: dir)
    }

    /// The link probe's child pid in the newest status document that names one.
    static func childPID(_ lines: [String]) -> Int32? {
        for line in lines.reversed() {
            guard let doc = try? parseJSONObject(line), let probes = doc["probes"] as? [[String: Any]],
                let link = probes.first(where: { $0["id"] as? String == "link" }), let pid = link["pid"] as? Double
            else { continue }
            return Int32(pid)
        }
        return nil
    }

    @Test func everyRequestReadsAndACountersStartMovesWithItsChild() throws {
        let dir = try Unprivileged.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try Receiver(in: dir)
        let config = try config(
            in: dir,
            sink: """
                {"type": "otlp", "url": "\(receiver.url)", "resource_attributes": {"deployment.environment.name": "lab"},
                 "retry": {"initial": "100ms", "max": "1s"}}
                """)
        try Unprivileged.own(dir)
        let testStart = UInt64(Date().timeIntervalSince1970 * 1000 - 1000) * 1_000_000
        let agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", config.path]))
        defer { agent.stop() }
        func diagnostics() -> String {
            "agent: \(agent.errorOutput.suffix(1500))\nreceiver: \(receiver.process.errorOutput.suffix(800))"
        }

        let firstChild = try #require(
            waitUntilValue(timeout: 30) { Self.childPID(agent.outputLines) }, "no child pid\n\(diagnostics())")
        #expect(
            waitUntil(timeout: 30) {
                reportTimes(agent.outputLines, probe: "link").count >= 3 && receiver.records.count >= 3
            },
            "\(diagnostics())")
        // The plug-in's child is killed: the agent starts another, whose counters start over.
        kill(firstChild, SIGKILL)
        let secondChild = waitUntilValue(timeout: 30) { () -> Int32? in
            guard let pid = Self.childPID(agent.outputLines), pid != firstChild else { return nil }
            return pid
        }
        #expect(secondChild != nil, "no second child\n\(diagnostics())")
        let reportsBefore = reportTimes(agent.outputLines, probe: "link").count
        #expect(
            waitUntil(timeout: 30) { reportTimes(agent.outputLines, probe: "link").count >= reportsBefore + 3 },
            "\(diagnostics())")
        #expect(agent.stop() == 0)
        let testEnd = UInt64(Date().timeIntervalSince1970 * 1000 + 1000) * 1_000_000

        let records = receiver.records
        #expect(!records.isEmpty)
        for record in records {
            #expect(record["status"] as? Int == 200, "\(record["error"] ?? "")")
            #expect(record["content_type"] as? String == "application/x-protobuf")
            #expect(record["content_encoding"] as? String == "gzip")
            #expect(record["path"] as? String == "/v1/metrics")
        }
        let points = Self.points(records)
        let version = try #require(
            (try? parseJSONObject(agent.outputLines.last { $0.hasPrefix("{") } ?? "")).flatMap {
                ($0["agent"] as? [String: Any])?["version"] as? String
            })

        // The resource: OpenTelemetry's conventions, and the configured attribute.
        let resource = try #require(points.first?.resource)
        #expect(resource["service.name"] == "pathwatch" && resource["service.version"] == version)
        #expect(resource["service.instance.id"] == "otlp-sink" && resource["os.type"] == "linux")
        #expect(resource["host.name"] == ProcessInfo.processInfo.hostName)
        #expect(resource["deployment.environment.name"] == "lab")
        if let machineID = try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8) {
            #expect(resource["host.id"] == machineID.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(points.allSatisfy { $0.resource == resource })

        // A scope per plug-in, with the version its descriptor gives, as `pathwatch plugins` lists it.
        let listed = try run(Unprivileged.pathwatch(["plugins", "--config", config.path])).stdout
        let versions = Dictionary(
            listed.split(separator: "\n").dropFirst().map {
                let fields = $0.split(separator: " ", omittingEmptySubsequences: true)
                return (String(fields[0]), fields.count > 1 ? String(fields[1]) : "")
            }, uniquingKeysWith: { a, _ in a })
        let scopes = Set(points.map { "\($0.scope.name) \($0.scope.version)" })
        #expect(
            scopes == ["linkstate \(versions["linkstate"] ?? "?")", "loadavg \(versions["loadavg"] ?? "?")"],
            "\(scopes) \(listed)")

        // Each check's state: one point per state, 1 for the current one, the check's attributes.
        let states = points.filter { $0.metric == "pathwatch.check.state" }
        #expect(states.allSatisfy { $0.type == "gauge" && $0.unit == "" && $0.start == 0 })
        let byReport = Dictionary(grouping: states) { "\($0.attributes["check"] ?? "") \($0.time)" }
        #expect(byReport.values.allSatisfy { $0.count == 4 && $0.map(\.value).reduce(0, +) == 1 })
        #expect(
            states.allSatisfy {
                $0.attributes["probe"] != nil && $0.attributes["plugin"] == $0.scope.name
                    && ["ok", "warning", "critical", "unknown"].contains($0.attributes["state"] ?? "")
            })

        // Declared metrics: their units and types.
        let mtu = points.filter { $0.metric == "pathwatch.linkstate.mtu" }
        #expect(!mtu.isEmpty && mtu.allSatisfy { $0.type == "gauge" && $0.unit == "By" && $0.value > 0 })
        #expect(points.contains { $0.metric == "pathwatch.loadavg.load1" && $0.type == "gauge" })
        let changes = points.filter { $0.metric == "pathwatch.linkstate.carrier_changes" }
        #expect(
            !changes.isEmpty
                && changes.allSatisfy { $0.type == "sum AGGREGATION_TEMPORALITY_CUMULATIVE monotonic=true" })

        // A counter's start: the same until the child restarted, then a later one, never after
        // its point's time.
        for (check, series) in Dictionary(grouping: changes, by: { $0.attributes["check"] ?? "" }) {
            let starts = series.sorted { $0.time < $1.time }.map(\.start)
            let distinct = starts.reduce(into: [UInt64]()) { if $0.last != $1 { $0.append($1) } }
            #expect(distinct.count == 2 && distinct[0] < distinct[1], "\(check): starts \(distinct)")
            #expect(series.allSatisfy { $0.start > 0 && $0.start <= $0.time }, "\(check)")
        }

        // Timestamps: each report's own, to the millisecond, as the documents printed them
        // (a report read in the millisecond of the one before is stamped a millisecond later).
        #expect(points.allSatisfy { $0.time % 1_000_000 == 0 && $0.time > testStart && $0.time < testEnd })
        let printed = reportTimes(agent.outputLines, probe: "link")
        let sent = Set(states.filter { $0.attributes["probe"] == "link" }.map { Int64($0.time / 1_000_000) })
        #expect(sent.allSatisfy { t in printed.contains { (0...5).contains(t - $0) } }, "\(sent.sorted()) \(printed)")
        #expect(printed.allSatisfy { p in sent.contains { (0...5).contains($0 - p) } }, "\(sent.sorted()) \(printed)")
    }

    /// A receiver that keeps a request but rejects some of its points (OTLP's partial success)
    /// is heard: the agent says how many and why, in either encoding, and does not send them again.
    @Test(arguments: ["protobuf", "json"]) func aPartialSuccessIsSaid(encoding: String) throws {
        let dir = try Unprivileged.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try Receiver(in: dir, partial: "3:points older than the window")
        let config = try config(
            in: dir, sink: #"{"type": "otlp", "url": "\#(receiver.url)", "encoding": "\#(encoding)"}"#)
        try Unprivileged.own(dir)
        let agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", config.path]))
        defer { agent.stop() }
        #expect(
            waitUntil(timeout: 30) {
                agent.errorOutput.contains("but rejected 3 of its data points: points older than the window")
            }, "agent: \(agent.errorOutput.suffix(1500))")
        let first = receiver.records.count
        #expect(waitUntil(timeout: 30) { receiver.records.count >= first + 2 })
        #expect(agent.stop() == 0)
        // Accepted: each report went once.
        let times = Self.points(receiver.records).filter {
            $0.metric == "pathwatch.check.state" && $0.attributes["probe"] == "load"
                && $0.attributes["state"] == "unknown"
        }.map(\.time)
        #expect(Set(times).count == times.count, "a report was sent again")
    }

    @Test func jsonWithoutCompressionReadsStrictly() throws {
        let dir = try Unprivileged.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let receiver = try Receiver(in: dir)
        let config = try config(
            in: dir, sink: #"{"type": "otlp", "url": "\#(receiver.url)", "encoding": "json", "compression": "none"}"#)
        try Unprivileged.own(dir)
        let agent = try BackgroundProcess(Unprivileged.pathwatch(["run", "--config", config.path]))
        defer { agent.stop() }
        #expect(
            waitUntil(timeout: 30) { Set(Self.points(receiver.records).map(\.scope.name)).count == 2 },
            "agent: \(agent.errorOutput.suffix(1500))")
        #expect(agent.stop() == 0)
        let records = receiver.records
        #expect(!records.isEmpty)
        for record in records {
            #expect(record["status"] as? Int == 200, "\(record["error"] ?? "")")
            #expect(record["content_type"] as? String == "application/json")
            #expect(record["content_encoding"] as? String == "")
        }
        let points = Self.points(records)
        #expect(points.first?.resource["service.instance.id"] == "otlp-sink")
        #expect(points.contains { $0.metric == "pathwatch.linkstate.mtu" && $0.unit == "By" && $0.value > 0 })
        #expect(
            points.contains {
                $0.metric == "pathwatch.linkstate.carrier_changes"
                    && $0.type == "sum AGGREGATION_TEMPORALITY_CUMULATIVE monotonic=true" && $0.start > 0
            })
    }
}
