import Foundation
import PathwatchTestSupport

extension Operator {
    /// Starts Debian's Prometheus (the host's binary, copied in) as a transient unit of the
    /// container's systemd, `scrape-test`, scraping the service every 500 ms over kept-alive
    /// connections, as nobody; with `rules`, a rule file evaluated every second.
    func startPrometheus(rules: String? = nil) throws {
        let prometheus = root.appendingPathComponent("usr/local/bin/prometheus")
        if !FileManager.default.fileExists(atPath: prometheus.path) {
            try FileManager.default.copyItem(atPath: "/usr/bin/prometheus", toPath: prometheus.path)
        }
        if let rules { try SystemTierTests.write(root, "var/lib/scrape-test/rules.yml", rules) }
        try SystemTierTests.write(
            root, "var/lib/scrape-test/prometheus.yml",
            """
            global: {scrape_interval: 500ms, scrape_timeout: 400ms, evaluation_interval: 1s}
            \(rules == nil ? "" : "rule_files: [/var/lib/scrape-test/rules.yml]")
            scrape_configs:
              - job_name: pathwatch
                static_configs: [{targets: ["127.0.0.1:8470"]}]

            """)
        try container.must("chown -R nobody:nogroup /var/lib/scrape-test")
        try container.must(
            """
            systemd-run --unit=scrape-test --uid=nobody --gid=nogroup /usr/local/bin/prometheus \
              --config.file=/var/lib/scrape-test/prometheus.yml --storage.tsdb.path=/var/lib/scrape-test/data \
              --web.listen-address=127.0.0.1:9090
            """)
    }

    func stopPrometheus() {
        _ = try? container.shell("systemctl stop scrape-test; rm -rf /var/lib/scrape-test")
    }

    /// The first value of an instant query, evaluated now or at `time` (seconds since the epoch).
    func prometheus(_ expression: String, at time: Double? = nil) -> Double? {
        let at = time.map { " --data-urlencode time=\(String(format: "%.3f", $0))" } ?? ""
        guard
            let result = try? container.shell(
                "curl -sfG --data-urlencode 'query=\(expression)'\(at) http://127.0.0.1:9090/api/v1/query"),
            result.status == 0,
            let object = try? parseJSONObject(result.stdout),
            let first = ((object["data"] as? [String: Any])?["result"] as? [[String: Any]])?.first,
            let value = (first["value"] as? [Any])?.last as? String
        else { return nil }
        return Double(value)
    }

    /// What Prometheus's journal says last, for a failure's message.
    func prometheusLog() -> String {
        (try? container.shell("journalctl -u scrape-test --no-pager | tail -20").stdout) ?? ""
    }
}
