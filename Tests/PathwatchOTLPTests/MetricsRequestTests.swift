import Foundation
import PathwatchBase
import PathwatchTestSupport
import Testing

@testable import PathwatchOTLP

/// The OTLP metrics request as the encoder writes it, read by OpenTelemetry's own Python package
/// and taken by a real receiver, VictoriaMetrics 1.112 from Debian 13's package (Debian 13's
/// Prometheus 2.53 has its OTLP receiver patched out). The same request for each: the agent's
/// resource, a scope per plug-in, a check's state as a gauge, a declared gauge with a unit, a
/// counter as a monotonic cumulative sum with its start time.
@Suite(.serialized) struct MetricsRequestTests {
    /// Recent enough for any receiver's head block: a minute ago, to the millisecond.
    static let time = UInt64(Date().timeIntervalSince1970 * 1000 - 60_000) * 1_000_000
    static let start = time - 3_600_000_000_000

    static func request(agent: String = "otlp-test") -> OTLPMetrics {
        let check = [
            OTLPAttribute("check", "disk/root"), OTLPAttribute("probe", "disk"), OTLPAttribute("plugin", "disk"),
        ]
        return OTLPMetrics(
            resource: AgentResource.attributes(agentName: agent, configured: [OTLPAttribute("site", "lab")]),
            scopes: [
                .init(
                    name: "pathwatch", version: Release.version,
                    metrics: [
                        .init(
                            name: "pathwatch.check.state", description: "The check's state: 1 for the current one.",
                            unit: "1", kind: .gauge,
                            points: ["ok", "warning", "critical", "unknown"].map { state in
                                .init(
                                    attributes: check + [OTLPAttribute("state", state)], start: 0, time: time,
                                    value: state == "ok" ? 1 : 0)
                            })
                    ]),
                .init(
                    name: "disk", version: "0.2.0",
                    metrics: [
                        .init(
                            name: "pathwatch.disk.free", description: "Free space.", unit: "By", kind: .gauge,
                            points: [.init(attributes: check, start: 0, time: time, value: 123_456_789)]),
                        .init(
                            name: "pathwatch.disk.errors", description: "Errors since start.", unit: "{error}",
                            kind: .sum(monotonic: true),
                            points: [.init(attributes: check, start: start, time: time, value: 7)]),
                    ]),
            ])
    }

    @Test func openTelemetrysOwnPackageReadsWhatWasWritten() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let body = dir.appendingPathComponent("request.bin")
        try Data(MetricsRequestEncoder.request(Self.request())).write(to: body)
        let script = TestEnvironment.packageRoot.appendingPathComponent("Tests/Fixtures/otlp/decode.py")
        let decoded = try run(["python3", script.path, body.path])
        try #require(decoded.status == 0, "\(decoded.stderr)")
        let object = try parseJSONObject(decoded.stdout)
        let resourceMetrics = try #require((object["resource_metrics"] as? [[String: Any]])?.first)
        func attributes(_ list: Any?) -> [String: String] {
            var out: [String: String] = [:]
            for entry in list as? [[String: Any]] ?? [] {
                out[entry["key"] as? String ?? ""] = (entry["value"] as? [String: Any])?["string_value"] as? String
            }
            return out
        }
        let resource = attributes((resourceMetrics["resource"] as? [String: Any])?["attributes"])
        #expect(resource["service.name"] == "pathwatch" && resource["service.version"] == Release.version)
        #expect(
            resource["service.instance.id"] == "otlp-test" && resource["os.type"] == "linux"
                && resource["site"] == "lab")
        #expect(resource["host.id"] == AgentResource.machineID(at: "/etc/machine-id"))
        #expect(resource["host.name"] == ProcessInfo.processInfo.hostName || resource["host.name"]?.isEmpty == false)

        let scopes = try #require(resourceMetrics["scope_metrics"] as? [[String: Any]])
        #expect(scopes.map { ($0["scope"] as? [String: Any])?["name"] as? String } == ["pathwatch", "disk"])
        #expect((scopes[1]["scope"] as? [String: Any])?["version"] as? String == "0.2.0")
        let metrics = scopes.flatMap { $0["metrics"] as? [[String: Any]] ?? [] }
        let byName = Dictionary(uniqueKeysWithValues: metrics.map { ($0["name"] as? String ?? "", $0) })
        let state = try #require(byName["pathwatch.check.state"])
        let statePoints = try #require((state["gauge"] as? [String: Any])?["data_points"] as? [[String: Any]])
        #expect(state["unit"] as? String == "1" && statePoints.count == 4)
        #expect(
            statePoints.map { attributes($0["attributes"])["state"] ?? "" } == ["ok", "warning", "critical", "unknown"])
        #expect(statePoints.map { $0["as_double"] as? Double } == [1, 0, 0, 0], "a zero is written, not left out")
        #expect(statePoints.allSatisfy { $0["time_unix_nano"] as? String == String(Self.time) })
        #expect(attributes(statePoints[0]["attributes"])["check"] == "disk/root")

        let free = try #require(byName["pathwatch.disk.free"])
        #expect(free["unit"] as? String == "By" && free["description"] as? String == "Free space.")
        #expect(
            ((free["gauge"] as? [String: Any])?["data_points"] as? [[String: Any]])?.first?["as_double"] as? Double
                == 123_456_789)

        let errors = try #require(byName["pathwatch.disk.errors"])
        let sum = try #require(errors["sum"] as? [String: Any])
        #expect(sum["is_monotonic"] as? Bool == true)
        #expect(sum["aggregation_temporality"] as? String == "AGGREGATION_TEMPORALITY_CUMULATIVE")
        let point = try #require((sum["data_points"] as? [[String: Any]])?.first)
        #expect(point["start_time_unix_nano"] as? String == String(Self.start) && point["as_double"] as? Double == 7)
    }

    @Test(.enabled(if: NewerReceivers.unavailable() == nil, "\(NewerReceivers.unavailable() ?? "")"))
    func victoriaMetricsTakesIt() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let server = try VictoriaMetricsServer(in: dir)
        let posted = try Self.post(Self.request(), to: "\(server.base)/opentelemetry/v1/metrics", in: dir)
        #expect(posted.hasPrefix("2"), "HTTP \(posted)")
        var series: [(labels: [String: String], values: [Double], timestamps: [Int64])] = []
        _ = waitUntil(timeout: 20) {
            series = server.export(#"{__name__=~"pathwatch.*"}"#)
            return series.count >= 6
        }
        // VictoriaMetrics keeps OpenTelemetry's names, and the resource's attributes as labels.
        let ok = series.first { $0.labels["__name__"] == "pathwatch.check.state" && $0.labels["state"] == "ok" }
        #expect(ok?.values == [1] && ok?.timestamps == [Int64(Self.time / 1_000_000)], "\(series)")
        #expect(ok?.labels["service.instance.id"] == "otlp-test" && ok?.labels["check"] == "disk/root", "\(series)")
        #expect(ok?.labels["host.id"] == AgentResource.machineID(at: "/etc/machine-id"), "\(series)")
        #expect(series.first { $0.labels["__name__"] == "pathwatch.disk.free" }?.values == [123_456_789], "\(series)")
        #expect(series.first { $0.labels["__name__"] == "pathwatch.disk.errors" }?.values == [7], "\(series)")
    }

    /// POSTs the encoded request as OTLP/HTTP protobuf; the status curl saw.
    static func post(_ metrics: OTLPMetrics, to url: String, in dir: URL) throws -> String {
        let body = dir.appendingPathComponent("post.bin")
        try Data(MetricsRequestEncoder.request(metrics)).write(to: body)
        let result = try run([
            "curl", "-s", "--noproxy", "*", "-o", dir.appendingPathComponent("answer").path, "-w", "%{http_code}",
            "-H", "Content-Type: application/x-protobuf", "--data-binary", "@\(body.path)", url,
        ])
        let answer = (try? String(contentsOf: dir.appendingPathComponent("answer"), encoding: .utf8)) ?? ""
        return result.stdout + (result.stdout.hasPrefix("2") ? "" : " \(answer)")
    }
}
