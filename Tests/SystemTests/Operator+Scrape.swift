import Foundation
import PathwatchTestSupport
import Testing

extension Operator {
    // MARK: 18. Prometheus scraping across reloads

    /// Debian's Prometheus scrapes the service every 500 ms while `systemctl reload` adds a sink three
    /// times: no scrape finds fewer samples than before the first reload, and none fails. A
    /// reload that rebuilt the http sink answered a scrape with `pathwatch_build_info` alone,
    /// and every `pathwatch_check_state` series went stale.
    func keepsItsSeriesAcrossReloadsUnderPrometheus() throws {
        try startPrometheus()
        defer {
            stopPrometheus()
            _ = try? container.shell("rm -f /etc/pathwatch/conf.d/58-scrape-*.json; systemctl reload pathwatch")
        }
        let query = { (expression: String) in self.prometheus(expression) }
        let samples = "scrape_samples_scraped{job=\"pathwatch\"}"
        let before = waitUntilValue(timeout: 60, interval: 0.5) { () -> Double? in
            guard let n = query(samples), n > 20, query("count(pathwatch_check_state)").map({ $0 > 0 }) == true else {
                return nil
            }
            return n
        }
        guard let before else {
            Issue.record("Prometheus never scraped the service: \(prometheusLog())")
            return
        }
        let began = Date()
        for round in 1...3 {
            try SystemTierTests.write(
                root, "etc/pathwatch/conf.d/58-scrape-\(round).json",
                """
                {"sinks": [{"type": "file", "path": "/var/lib/pathwatch/scrape-\(round).json"}]}

                """)
            let reload = try container.shell("systemctl reload pathwatch", timeout: 120)
            #expect(reload.status == 0, "systemctl reload: \(reload.stderr)")
            let scrapes = query("count_over_time(\(samples)[10m])") ?? 0
            #expect(
                waitUntil(timeout: 30, interval: 0.5) {
                    (query("count_over_time(\(samples)[10m])") ?? 0) >= scrapes + 3
                },
                "Prometheus stopped scraping after reload \(round)")
        }
        let window = "\(Int(Date().timeIntervalSince(began).rounded(.up)) + 1)s"
        let fewest = query("min_over_time(\(samples)[\(window)])")
        #expect(
            (fewest ?? 0) >= before, "a scrape across the reloads found \(fewest ?? 0) samples; before them \(before)")
        #expect(query("min_over_time(up{job=\"pathwatch\"}[\(window)])") == 1, "a scrape failed across the reloads")
    }
}
