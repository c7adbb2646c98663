import Foundation
import PathwatchTestSupport
import Testing

/// A command's secret that it prints as a perfdata label becomes a metric name once the exec
/// plug-in normalises it (`execSecret-Zq81-LmN0pQ` → `execsecret_zq81_lmn0pq`): no output shows
/// the secret as it is, case-folded or normalised — /metrics, /status, stdout, the status file,
/// and `once` in every format.
@Suite(.onItsOwnThread) struct SecretNameFormTests {
    /// Every form of `secret` that must not appear: as it is, lower- and upper-cased, and each
    /// normalisation a name rule makes of it; and each form's 8-character pieces.
    static func forms(of secret: String) -> [String] {
        let lower = secret.lowercased()
        let underscored = String(lower.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        let whole = [secret, lower, secret.uppercased(), underscored]
        var out = Set(whole)
        for form in whole {
            let chars = Array(form)
            for start in 0...(chars.count - 8) { out.insert(String(chars[start..<(start + 8)])) }
        }
        return Array(out)
    }

    static func leaks(_ text: String, _ forms: [String]) -> [String] {
        forms.filter { text.contains($0) }
    }

    func configuration(port: Int, state: String) -> String {
        """
        {"agent": {"plugin_dirs": ["\(TestEnvironment.productsDirectory.path)"], "interval": "1s", "state_dir": "\(state)"},
         "probes": [{"id": "x", "plugin": "exec", "config": {"commands": [
           {"name": "leak", "command": ["/bin/sh", "-c", "echo \\"OK - fine | $LABEL=1;5;9 $LABEL-2=2 plain=3\\""],
            "env": {"LABEL": "${env:PW_NAME_SECRET}"}}]}}],
         "sinks": [{"type": "stdout", "format": "json", "on": ["change", "every"]},
                   {"type": "stdout", "format": "text", "on": "change"},
                   {"type": "file", "path": "status.json"},
                   {"type": "file", "path": "status.prom", "format": "prometheus"},
                   {"type": "http", "listen": "127.0.0.1:\(port)"}]}
        """
    }

    @Test func aSecretPrintedAsAPerfdataLabelBecomesNoName() throws {
        let secret = "execSecret-Zq81-" + LeakHunt.secret("Ln")
        let forms = Self.forms(of: secret)
        let environment = ["PW_NAME_SECRET": secret]
        let dir = try Unprivileged.makeTemporaryDirectory("pathwatch-secret-names")
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let state = dir.appendingPathComponent("state").path
        let live = try LiveAgent(in: dir, environment: environment) { configuration(port: $0, state: state) }
        defer { live.stop() }
        #expect(
            live.process.waitForLine(timeout: 30) { $0.contains("plain") } != nil, "\(live.process.errorOutput)")
        let metrics = try live.request("/metrics", auth: .none).body
        let status = try live.request("/status", auth: .none).body
        // The other metrics still come: only the names with the secret are stood in for.
        #expect(metrics.contains("plain"), "\(metrics)")
        #expect(metrics.contains("redacted"), "\(metrics)")
        var outputs = [
            "/metrics": metrics, "/status": status, "stdout": live.process.outputLines.joined(separator: "\n"),
            "stderr": live.process.errorOutput,
        ]
        live.stop()
        outputs["status.json"] =
            (try? String(contentsOf: dir.appendingPathComponent("status.json"), encoding: .utf8)) ?? ""
        outputs["status.prom"] =
            (try? String(contentsOf: dir.appendingPathComponent("status.prom"), encoding: .utf8)) ?? ""
        #expect(outputs["status.prom"]?.contains("plain") == true, "the file sink wrote")

        let config = live.config.path
        for format in ["json", "text", "nagios"] {
            let once = try run(
                Unprivileged.pathwatch(["once", "--config", config, "--format", format]), environment: environment,
                timeout: 60)
            // The text format shows states and messages, not metrics.
            #expect(
                once.stdout.contains(format == "text" ? "x/leak" : "plain"),
                "once \(format): \(once.stdout)\(once.stderr)")
            outputs["once \(format)"] = once.stdout + once.stderr
        }
        for (place, text) in outputs.sorted(by: { $0.key < $1.key }) {
            #expect(Self.leaks(text, forms).isEmpty, "\(place) shows \(Self.leaks(text, forms)): \(text.prefix(4_000))")
        }
    }
}
