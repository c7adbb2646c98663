import Foundation
import PathwatchTestSupport
import Testing

/// `make deb`, installed with apt into a freshly debootstrapped Debian 12 root that has no Swift
/// toolchain: the agent runs from `/` against /etc/pathwatch/config.json with a conf.d fragment,
/// the out-of-tree C plug-in of docs/plugins.md builds with `pkg-config --cflags pathwatch-probe` and loads,
/// the unit passes `systemd-analyze verify`, and everything sits where contract §9 says.
@Suite(.enabled(if: Distribution.missingInputs == nil, "\(Distribution.missingInputs ?? "")"), .onItsOwnThread)
struct DebianPackageTests {
    @Test func installsWithAptIntoABareDebianAndRunsFromThere() throws {
        try #require(DebianRoot.missingTools == nil, "\(DebianRoot.missingTools ?? "")")
        let deb = try Distribution.sharedDeb()
        #expect(
            deb.lastPathComponent
                == "pathwatch_\(Distribution.version)_\(try run(["dpkg", "--print-architecture"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)).deb"
        )

        let root = try DebianRoot.copy(named: "run", installing: deb)
        defer { DebianRoot.remove(root) }
        func inRoot(_ command: String, timeout: Double = 120) throws -> ProcessResult {
            try DebianRoot.inRoot(root, command, timeout: timeout)
        }

        // No toolchain, and the runtime comes from the package.
        #expect(try inRoot("test ! -e /opt/swift && ! command -v swift").status == 0)
        let ldd = try inRoot("ldd /usr/bin/pathwatch")
        #expect(ldd.stdout.contains("libswiftCore.so => /usr/bin/../lib/pathwatch/libswiftCore.so"), "\(ldd.stdout)")
        #expect(!ldd.stdout.contains("not found"), "\(ldd.stdout)")

        // contract §9.
        let layout = [
            "/usr/bin/pathwatch", "/usr/lib/pathwatch/libswiftCore.so",
            "/usr/lib/pathwatch/plugins/libpathwatch_disk.so",
            "/usr/include/pathwatch/pathwatch_probe.h", "/usr/lib/pkgconfig/pathwatch-probe.pc",
            "/usr/share/man/man1/pathwatch.1.gz", "/usr/share/bash-completion/completions/pathwatch",
            "/usr/share/zsh/vendor-completions/_pathwatch", "/usr/share/fish/vendor_completions.d/pathwatch.fish",
            "/etc/pathwatch/config.json", "/etc/pathwatch/conf.d", "/var/lib/pathwatch",
            "/lib/systemd/system/pathwatch.service",
            "/usr/local/lib/pathwatch/plugins",
            // Debian policy's two: the copyright and the changelog (a native package's name).
            "/usr/share/doc/pathwatch/copyright", "/usr/share/doc/pathwatch/changelog.gz",
            // The documents, where the README's relative links lead.
            "/usr/share/doc/pathwatch/README.md", "/usr/share/doc/pathwatch/docs/plugins.md",
            "/usr/share/doc/pathwatch/Plugins/Disk/README.md", "/usr/share/doc/pathwatch/bench/RESULTS.md",
            // The C example plug-in authors copy, where Debian keeps examples.
            "/usr/share/doc/pathwatch/examples/loadavg.c",
            // The example conf.d fragments, and the Prometheus alert rules with their tests.
            "/usr/share/doc/pathwatch/examples/conf.d/60-sink-stdout.json",
            "/usr/share/pathwatch/prometheus/pathwatch.rules.yml",
        ]
        let missing = try inRoot("for f in \(layout.joined(separator: " ")); do [ -e $f ] || echo $f; done")
        #expect(missing.stdout.isEmpty, "missing: \(missing.stdout)")
        #expect(try inRoot("stat -c %U /var/lib/pathwatch").stdout == "pathwatch\n")
        #expect(try inRoot("man -w pathwatch").stdout == "/usr/share/man/man1/pathwatch.1.gz\n")
        let manual = try inRoot("MANWIDTH=200 man -P cat pathwatch 2>/dev/null")
        #expect(
            manual.stdout.contains("/etc/pathwatch/conf.d/*.json") && manual.stdout.contains("check-config"),
            "\(manual.stdout)")
        let help = try inRoot(
            "bash -c 'source /usr/share/bash-completion/completions/pathwatch && complete -p pathwatch'")
        #expect(help.status == 0 && help.stdout.contains("pathwatch"), "\(help.stderr)")

        // The unit, by systemd's own checker (paths, directives, the man page it names).
        let verify = try inRoot("systemd-analyze verify /lib/systemd/system/pathwatch.service")
        #expect(
            verify.status == 0 && verify.stderr.isEmpty && verify.stdout.isEmpty, "\(verify.stdout)\(verify.stderr)")
        let security = try inRoot(
            "systemd-analyze security --offline=true --threshold=30 /lib/systemd/system/pathwatch.service")
        #expect(security.status == 0, "exposure over 3.0: \(security.stdout)")

        // The C walkthrough of docs/plugins.md, verbatim but for sudo, in a folder of its own.
        let walkthrough = try Walkthrough(
            document: Distribution.root.appendingPathComponent("docs/plugins.md"), prefix: "walkthrough-c")
        let work = root.appendingPathComponent("root/uptime-probe")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try walkthrough.block("uptime.c").write(
            to: work.appendingPathComponent("uptime.c"), atomically: true, encoding: .utf8)
        let commands = try walkthrough.block("commands").replacingOccurrences(of: "sudo ", with: "")
        let built = try inRoot("cd /root/uptime-probe && \(commands)")
        #expect(built.status == 0, "walkthrough: \(built.stdout)\n\(built.stderr)")
        #expect(
            built.stdout.contains(
                "/etc/pathwatch/config.json with /etc/pathwatch/conf.d/50-uptime.json: valid (5 probes, 2 sinks)"),
            "\(built.stdout)")

        // From `/`, no --config: /etc/pathwatch/config.json with the fragment's probe.
        let once = try inRoot("cd / && pathwatch once")
        #expect((0...3).contains(once.status), "once: \(once.stderr)")
        let document = try parseJSONObject(once.stdout)
        let checks = try #require(document["checks"] as? [[String: Any]])
        let ids = Set(checks.compactMap { $0["id"] as? String })
        #expect(ids.contains("load/load"), "\(ids)")
        #expect(ids.contains { $0.hasPrefix("disk/") }, "\(ids)")
        let uptime = try #require(checks.first { $0["id"] as? String == "uptime/uptime" }, "\(ids)")
        #expect(uptime["state"] as? String == "ok")
        #expect(((uptime["metrics"] as? [String: Double])?["uptime_seconds"] ?? 0) > 0)

        // A bad fragment is refused by name, and the agent says where.
        let bad = try inRoot(
            #"echo '{"probes": [{"id": "x"}]}' > /etc/pathwatch/conf.d/70-bad.json; cd / && pathwatch check-config"#)
        #expect(bad.status == 78)
        #expect(bad.stderr.contains("/etc/pathwatch/conf.d/70-bad.json: probes[0]"), "\(bad.stderr)")

        // Removal keeps the operator's configuration; purge takes the package's own with it. The
        // walkthrough's plug-in is the operator's too: it stays, and so does its folder.
        let remove = try inRoot("DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq pathwatch", timeout: 300)
        #expect(remove.status == 0, "\(remove.stderr)")
        #expect(
            try inRoot(
                "test ! -e /usr/bin/pathwatch && test ! -e /usr/lib/pathwatch/libswiftCore.so && test -f /etc/pathwatch/config.json"
            ).status == 0)
        let purge = try inRoot("DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq pathwatch", timeout: 300)
        #expect(purge.status == 0, "\(purge.stderr)")
        #expect(try inRoot("test ! -e /etc/pathwatch/config.json && test ! -e /var/lib/pathwatch").status == 0)
        #expect(
            try inRoot("test -f /usr/local/lib/pathwatch/plugins/libpathwatch_uptime.so").status == 0,
            "purge took the operator's plug-in")
    }
}
