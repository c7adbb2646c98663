import Foundation
import PathwatchTestSupport

/// The real agent (`pathwatch run`) inside a namespace, printing a status document per sample
/// as JSON lines, and the samples of one check read back from those documents.
final class AgentRun {
    struct Sample {
        var message: String
        var metrics: [String: Double]
        var state: String
        var hasRate: Bool { metrics["tx_bps"] != nil }
        /// Bytes the sample's tx rate stands for over its own window.
        var txBytes: Double? {
            guard let bps = metrics["tx_bps"], let ms = metrics["window_ms"] else { return nil }
            return bps / 8 * ms / 1000
        }
    }

    let directory: URL
    let process: BackgroundProcess

    /// `probes` is the JSON array of probe entries.
    init(namespace: String, probes: String) throws {
        directory = try Unprivileged.makeTemporaryDirectory("pathwatch-bandwidth-agent")
        let config = """
            {
              "agent": { "name": "bandwidth-test", "interval": "1s",
                         "plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"],
                         "state_dir": "\(directory.appendingPathComponent("state").path)" },
              "probes": \(probes),
              "sinks": [ { "type": "stdout", "format": "json", "on": "every" } ]
            }
            """
        let configPath = directory.appendingPathComponent("config.json")
        try config.write(to: configPath, atomically: true, encoding: .utf8)
        // As an ordinary user, as operators run it: rtnetlink's counters need no privilege.
        process = try BackgroundProcess(
            ["ip", "netns", "exec", namespace] + Unprivileged.pathwatch(["run", "--config", configPath.path]))
    }

    deinit {
        process.stop()
        TestEnvironment.removeTemporaryDirectory(directory)
    }

    /// Every distinct sample of `check` so far, in order. A document is printed per sample of any
    /// probe, so the same observation can appear in several documents in a row: consecutive
    /// repeats are one sample.
    func samples(of check: String) -> [Sample] {
        var result: [Sample] = []
        var last: (String, [String: Double])?
        for line in process.outputLines {
            guard let document = try? parseJSONObject(line),
                let checks = document["checks"] as? [[String: Any]],
                let entry = checks.first(where: { $0["id"] as? String == check })
            else { continue }
            let message = entry["message"] as? String ?? ""
            let metrics = (entry["metrics"] as? [String: Any] ?? [:]).compactMapValues {
                ($0 as? NSNumber)?.doubleValue
            }
            if let last, last.0 == message, last.1 == metrics { continue }
            last = (message, metrics)
            result.append(Sample(message: message, metrics: metrics, state: entry["state"] as? String ?? ""))
        }
        return result
    }

    /// Waits until `check` has `count` more samples than `after`; false on timeout.
    func waitForSamples(of check: String, count: Int, after: Int = 0, timeout: Double = 15) -> Bool {
        waitUntilValue(timeout: timeout, interval: 0.05) { () -> Bool? in
            if samples(of: check).count >= after + count { return true }
            return process.isRunning ? nil : false
        } ?? false
    }

    var diagnostics: String {
        "agent stderr:\n\(process.errorOutput.suffix(2_000))\nlast stdout lines:\n\(process.outputLines.suffix(3).joined(separator: "\n"))"
    }
}
