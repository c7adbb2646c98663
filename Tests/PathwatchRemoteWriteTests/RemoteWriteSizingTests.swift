import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchRemoteWrite

/// The README's capacity statement against a measurement: the shipped `config.json` with a
/// `remote_write` sink whose receiver never answers, so every report stays queued. The queue's
/// records over a stretch of time give the bytes a series takes an hour there, and from it the
/// hours `max_bytes` holds of the README's number of series. The README's figures are parsed,
/// so they cannot drift from what the sink does.
@Suite(.serialized, .onItsOwnThread) struct RemoteWriteSizingTests {
    /// The README's figures may differ from the measurement by this much (hosts differ in their
    /// disks, interfaces and name, which are labels of every series).
    static let tolerance = 0.2
    /// The shipped intervals, five times faster, so that the slowest probe reports a few times
    /// within seconds; the mix of reports (which probe, how often) is the shipped one.
    static let speedUp = 5.0

    /// What the README states: `max_bytes`'s default and the hours it holds of `series` series
    /// at the shipped intervals, the bytes a series takes an hour there, and a queued sample's.
    struct Statement {
        var maxBytes: Int
        var hours: Double
        var series: Int
        var hourBytes: Double
        var sampleBytes: Double

        /// Nil when the README does not say all of it in these words.
        init?(readme: String) {
            let text = readme.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: ",", with: "")
            guard let c = text.firstMatch(of: #/(\d+) MiB holds about ([\d.]+) hours of (\d+) series/#),
                let h = text.firstMatch(of: #/a series takes about (\d+) bytes an hour/#),
                let s = text.firstMatch(of: #/a queued sample takes about ([\d.]+) bytes/#)
            else { return nil }
            maxBytes = Int(c.1)! << 20
            hours = Double(c.2)!
            series = Int(c.3)!
            hourBytes = Double(h.1)!
            sampleBytes = Double(s.1)!
        }
    }

    /// The records in a queue folder's segments: when each was stamped, its bytes, its series
    /// and its body (frames as QueueRecord.swift describes them: length, CRC, then version,
    /// kind, time, id length, id `<ms>.<series>`, body; a segment's preamble, version 2, is
    /// left out).
    static func records(in folder: URL) throws -> [(time: Int64, bytes: Int, series: Int, body: [UInt8])] {
        var found: [(time: Int64, bytes: Int, series: Int, body: [UInt8])] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        where name.hasSuffix(".seg") {
            let data = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            var offset = 0
            while offset + 8 + 12 <= data.count {
                let length = (0..<4).reduce(0) { $0 | Int(data[offset + $1]) << (8 * $1) }
                guard offset + 8 + length <= data.count else { break }  // a record being written
                defer { offset += 8 + length }
                guard data[offset + 8] == 1 else { continue }
                let idLength = Int(data[offset + 18]) | Int(data[offset + 19]) << 8
                let id = String(decoding: data[(offset + 20)..<(offset + 20 + idLength)], as: UTF8.self).split(
                    separator: ".")
                found.append(
                    (
                        Int64(id.first ?? "") ?? 0, 8 + length, Int(id.last ?? "") ?? 0,
                        Array(data[(offset + 20 + idLength)..<(offset + 8 + length)])
                    ))
            }
        }
        return found
    }

    /// The bytes a segment's preamble takes when it lists every series `records` define: what
    /// each segment of a full queue restates once.
    static func preambleBytes(_ records: [(time: Int64, bytes: Int, series: Int, body: [UInt8])]) -> Int {
        let definitions = records.flatMap { DenseReport.contents(of: $0.body)?.definitions ?? [] }
        var seen = Set<UInt64>()
        let unique = definitions.filter { seen.insert($0.series).inserted }
        return DenseReport.body(DenseReport.Contents(definitions: unique), preamble: true).count + 20
    }

    /// The shipped configuration, its intervals sped up, its plug-ins from this build, its files
    /// in `dir`, the agent named as the README's figures were measured, and a remote_write sink
    /// sending to `url`.
    static func shippedConfig(port: Int, dir: URL, url: String) throws -> String {
        let text = try Data(contentsOf: TestEnvironment.packageRoot.appendingPathComponent("config.json"))
        var config = try #require(try JSONSerialization.jsonObject(with: text) as? [String: Any])
        var agent = try #require(config["agent"] as? [String: Any])
        agent["interval"] = faster(agent["interval"] as? String ?? "10s")
        agent["plugin_dirs"] = [TestEnvironment.productsDirectory.path]
        agent["state_dir"] = dir.appendingPathComponent("queues").path
        // The README's example name, not this host's: `instance` is a label of every series.
        agent["name"] = "kiosk-17"
        config["agent"] = agent
        config["probes"] = (config["probes"] as? [[String: Any]] ?? []).map { probe in
            var probe = probe
            if let interval = probe["interval"] as? String { probe["interval"] = faster(interval) }
            return probe
        }
        config["sinks"] =
            (config["sinks"] as? [[String: Any]] ?? []).map { sink in
                var sink = sink
                if sink["type"] as? String == "http" { sink["listen"] = "127.0.0.1:\(port)" }
                if sink["type"] as? String == "file" { sink["path"] = dir.appendingPathComponent("status.json").path }
                return sink
            } + [["type": "remote_write", "url": url]]
        return String(decoding: try JSONSerialization.data(withJSONObject: config), as: UTF8.self)
    }

    static func faster(_ interval: String) -> String {
        let seconds = Double(interval.dropLast()) ?? 10
        return "\(Int(seconds / speedUp * 1000))ms"
    }

    @Test func theReadmesCapacityIsTheMeasuredOne() throws {
        let readme = try String(
            contentsOf: TestEnvironment.packageRoot.appendingPathComponent("Sources/PathwatchRemoteWrite/README.md"),
            encoding: .utf8)
        let dir = try Unprivileged.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        // Nothing listens there: every report stays queued.
        let url = "http://127.0.0.1:\(try unusedLoopbackPort())/api/v1/write"
        let agent = try LiveAgent(in: dir) { port in (try? Self.shippedConfig(port: port, dir: dir, url: url)) ?? "" }
        defer { agent.stop() }
        // The slowest probe's reports bound the stretch measured: from its second report to its
        // fourth, two of its intervals, in which every probe reports a whole number of times.
        var loadReports = Set<Int64>()
        #expect(
            waitUntil(timeout: 120) {
                let doc = (try? agent.request("/status").body).flatMap { try? parseJSONObject($0) }
                let load = (doc?["probes"] as? [[String: Any]])?.first { $0["id"] as? String == "load" }
                if let time = (load?["last_sample_at"] as? String).flatMap(Self.milliseconds) {
                    loadReports.insert(time)
                }
                return loadReports.count >= 4
            }, "\(agent.process.errorOutput.suffix(1500))")
        let metrics = try agent.request("/metrics").body
        let all = try Self.records(in: dir.appendingPathComponent("queues/" + RemoteWritePush.folderName(url: url)))
        agent.stop()
        let bounds = loadReports.sorted()
        try #require(bounds.count >= 4)
        // Half a second early: a report stamped a few milliseconds before the slowest probe's.
        let window = all.filter { $0.time >= bounds[1] - 500 && $0.time < bounds[3] - 500 }
        let samples = window.reduce(0) { $0 + $1.series }
        // A full queue's segments (4 MiB at the default max_bytes) each restate the labels of
        // every series once, in their preamble: that share is counted with each sample.
        let recordBytes = window.reduce(0) { $0 + $1.bytes }
        let preamble = Self.preambleBytes(all)
        let segmentSamples = Double(4 << 20) / (Double(recordBytes) / Double(max(samples, 1)))
        let bytes = Int(Double(recordBytes) * (1 + Double(preamble) / Double(4 << 20)))
        // Every series of /metrics, and pathwatch_up.
        let series = metrics.split(separator: "\n").filter { !$0.hasPrefix("#") }.count + 1
        let shippedHours = Double(bounds[3] - bounds[1]) * Self.speedUp / 3_600_000
        let hourBytes = Double(bytes) / Double(series) / shippedHours
        let sampleBytes = Double(bytes) / Double(max(samples, 1))
        let measured =
            "\(window.count) records, \(recordBytes) bytes, \(samples) samples of \(series) series in \(shippedHours * 60) shipped minutes, "
            + "a preamble of \(preamble) bytes every \(Int(segmentSamples)) samples: "
            + "\(Int(hourBytes)) bytes a series an hour, \(String(format: "%.2f", sampleBytes)) a sample"
        #expect(window.count >= 10, "\(measured)")
        guard let stated = Statement(readme: readme) else {
            Issue.record("the README does not state the capacity as this test reads it; measured \(measured)")
            return
        }
        #expect(
            stated.maxBytes == Int(RemoteWriteSinkSettings.defaultMaxBytes.bytes),
            "the README's max_bytes is not the default")
        let hours = Double(stated.maxBytes) / (hourBytes * Double(stated.series))
        #expect(
            abs(stated.hourBytes / hourBytes - 1) <= Self.tolerance,
            "the README says \(stated.hourBytes) bytes a series an hour; \(measured)")
        #expect(
            abs(stated.sampleBytes / sampleBytes - 1) <= Self.tolerance,
            "the README says \(stated.sampleBytes) bytes a sample; \(measured)")
        #expect(
            abs(stated.hours / hours - 1) <= Self.tolerance,
            "the README says \(stated.hours) hours, measured \(hours); \(measured)")
    }

    static func milliseconds(_ rfc3339: String) -> Int64? {
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return parser.date(from: rfc3339).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }
}
