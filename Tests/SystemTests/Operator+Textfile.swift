import Foundation
import PathwatchTestSupport
import Testing

extension Operator {
    // MARK: 13. node_exporter's textfile collector

    /// The fenced block of docs/metrics.md in `language` that contains `marker`, verbatim.
    static func metricsDocBlock(_ language: String, containing marker: String) throws -> String {
        let text = try String(contentsOf: Distribution.root.appendingPathComponent("docs/metrics.md"), encoding: .utf8)
        for block in text.components(separatedBy: "```\(language)\n").dropFirst() {
            guard let end = block.range(of: "```") else { continue }
            let body = String(block[..<end.lowerBound])
            if body.contains(marker) { return body }
        }
        throw TestFailure("docs/metrics.md has no ```\(language) block with \(marker)")
    }

    /// The textfile setup of docs/metrics.md, verbatim: a file sink in Debian's collector folder
    /// (root's, as the package makes it), the documented drop-in and commands; then Debian's
    /// node_exporter, as another user, reads the file without a scrape error.
    func feedsNodeExportersTextfileCollector() throws {
        let folder = "/var/lib/prometheus/node-exporter"
        try container.must("install -d -o root -g root -m 0755 \(folder)")
        try SystemTierTests.write(
            root, "etc/pathwatch/conf.d/45-textfile.json",
            """
            {"sinks": [{"type": "file", "path": "\(folder)/pathwatch.prom", "format": "prometheus", "mode": "0644"}]}

            """)
        try SystemTierTests.write(
            root, "etc/systemd/system/pathwatch.service.d/65-textfile.conf",
            try Self.metricsDocBlock("ini", containing: "ReadWritePaths=\(folder)"))
        try container.must("systemctl daemon-reload")
        try container.must(try Self.metricsDocBlock("sh", containing: "chgrp pathwatch"))
        let file = root.appendingPathComponent(String(folder.dropFirst()) + "/pathwatch.prom")
        #expect(
            waitUntil(timeout: 60, interval: 0.2) { FileManager.default.fileExists(atPath: file.path) },
            "no textfile in \(folder): \((try? container.shell("systemctl status pathwatch --no-pager").stdout) ?? "")")
        // Debian's node_exporter (the host's binary, copied in), as nobody, reading that folder alone.
        let exporter = root.appendingPathComponent("usr/local/bin/node_exporter")
        if !FileManager.default.fileExists(atPath: exporter.path) {
            try FileManager.default.copyItem(atPath: "/usr/bin/prometheus-node-exporter", toPath: exporter.path)
        }
        // A transient unit of the container's systemd, as another user: nothing is left behind
        // by the shell that starts it.
        try container.must(
            """
            systemd-run --unit=textfile-reader --uid=nobody --gid=nogroup /usr/local/bin/node_exporter \
              --collector.disable-defaults --collector.textfile --collector.textfile.directory=\(folder) \
              --web.listen-address=127.0.0.1:9100
            """)
        defer { _ = try? container.shell("systemctl stop textfile-reader") }
        let scraped = waitUntilValue(timeout: 30, interval: 0.2) { () -> String? in
            guard let result = try? container.shell("curl -sf http://127.0.0.1:9100/metrics"), result.status == 0,
                result.stdout.contains("node_textfile_scrape_error")
            else { return nil }
            return result.stdout
        }
        let text = scraped ?? ((try? container.shell("journalctl -u textfile-reader --no-pager").stdout) ?? "")
        #expect(text.contains("node_textfile_scrape_error 0"), "node_exporter: \(text.suffix(1_500))")
        #expect(
            text.contains("pathwatch_check_state{"),
            "node_exporter did not read the agent's series: \(text.suffix(1_500))")
    }

    // MARK: 17. no runtime noise

    /// libdispatch wrote "Failed to set thread priority … errno=13" to the journal at every
    /// reload and stop that shut an http sink's event loops down (its worker pool asks for a
    /// raised priority the service's user is refused). Across every reload, stop, restart and
    /// upgrade of this tier, the unit's journal has no such line.
    func logsNoThreadPriorityFailures() throws {
        let lines = try container.shell(
            "journalctl -u pathwatch --no-pager -o cat | grep -F 'Failed to set thread priority'"
        ).stdout
        #expect(lines.isEmpty, "the journal has libdispatch's noise:\n\(lines.prefix(1_000))")
    }
}
