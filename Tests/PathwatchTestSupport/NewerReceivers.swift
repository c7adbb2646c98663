import Foundation

/// The receivers newer than Debian 12 ships, from Debian 13's packages, which `make test-deps`
/// unpacks under `.build/receivers` (tools/trixie-receivers.sh): VictoriaMetrics 1.112. (Debian
/// 13's Prometheus 2.53 has its OTLP receiver patched out; the script says why.)
public enum NewerReceivers {
    public static var root: URL { TestEnvironment.packageRoot.appendingPathComponent(".build/receivers/usr/bin") }
    public static var victoriaMetrics: String { root.appendingPathComponent("victoria-metrics").path }

    /// Why a test that needs them cannot run, or nil.
    public static func unavailable() -> String? {
        FileManager.default.isExecutableFile(atPath: victoriaMetrics)
            ? nil : "needs Debian 13's victoria-metrics under .build/receivers (make test-deps)"
    }
}

/// A real VictoriaMetrics (single node) on 127.0.0.1 with a throwaway storage folder.
public final class VictoriaMetricsServer: @unchecked Sendable {
    public let port: Int
    public let process: BackgroundProcess
    public var base: String { "http://127.0.0.1:\(port)" }

    /// `prometheusNaming`: OTLP's names and units as Prometheus's translation spells them
    /// (`pathwatch_disk_avail_bytes`, a counter's `_total`); otherwise kept as sent. `port`: the
    /// port of a server that ran before on the same folder (a restart keeps what it stored).
    public init(in directory: URL, prometheusNaming: Bool = false, port: Int? = nil) throws {
        self.port = try port ?? unusedLoopbackPort()
        let data = directory.appendingPathComponent("victoria-metrics")
        process = try BackgroundProcess(
            [
                NewerReceivers.victoriaMetrics, "-storageDataPath=\(data.path)",
                "-httpListenAddr=127.0.0.1:\(self.port)", "-loggerLevel=WARN",
            ] + (prometheusNaming ? ["-opentelemetry.usePrometheusNaming"] : []))
        let ready = waitUntil(timeout: 60) { [base] in
            (try? run(["curl", "-sf", "--noproxy", "*", "\(base)/health"], timeout: 5))?.status == 0
        }
        guard ready else {
            process.stop()
            throw TestFailure("victoria-metrics did not become ready: \(process.errorOutput.suffix(2000))")
        }
    }

    /// Every stored sample of the series `selector` matches, flushed first so what was just
    /// written is found: each series' labels (`__name__` included), values and timestamps.
    public func export(_ selector: String) -> [(labels: [String: String], values: [Double], timestamps: [Int64])] {
        _ = try? run(["curl", "-sf", "--noproxy", "*", "\(base)/internal/force_flush"], timeout: 10)
        guard
            let result = try? run(
                ["curl", "-sfG", "--noproxy", "*", "--data-urlencode", "match[]=\(selector)", "\(base)/api/v1/export"],
                timeout: 10), result.status == 0
        else { return [] }
        return result.stdout.split(separator: "\n").compactMap { line in
            guard let object = try? parseJSONObject(String(line)) else { return nil }
            return (
                (object["metric"] as? [String: String]) ?? [:],
                ((object["values"] as? [Any]) ?? []).compactMap { ($0 as? NSNumber)?.doubleValue },
                ((object["timestamps"] as? [Any]) ?? []).compactMap { ($0 as? NSNumber)?.int64Value }
            )
        }
    }

    deinit { process.stop() }
}
