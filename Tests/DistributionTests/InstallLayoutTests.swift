import Foundation
import PathwatchTestSupport
import Testing

/// `make install` (dist/install.sh) into a DESTDIR: the layout of contract §9, run paths into
/// lib/pathwatch, and a binary that runs with the toolchain hidden.
@Suite(.enabled(if: Distribution.missingInputs == nil, "\(Distribution.missingInputs ?? "")"), .onItsOwnThread)
struct InstallLayoutTests {
    @Test func installsTheLayoutOfTheSpecWithRunPathsIntoItsOwnRuntime() throws {
        let dest = try TestEnvironment.makeTemporaryDirectory("pathwatch-install")
        defer { TestEnvironment.removeTemporaryDirectory(dest) }
        let result = try Distribution.install(into: dest, prefix: "/usr/local")
        try #require(result.status == 0, "install.sh: \(result.stderr)")
        let p = dest.path + "/usr/local"
        for file in [
            "bin/pathwatch", "lib/pathwatch/pathwatch-cli", "lib/pathwatch/libswiftCore.so",
            "lib/pathwatch/libswift_Concurrency.so",
            "lib/pathwatch/libdispatch.so", "lib/pathwatch/libFoundationEssentials.so",
            "lib/pathwatch/plugins/libpathwatch_disk.so", "lib/pathwatch/plugins/libpathwatch_linkstate.so",
            "lib/pathwatch/plugins/libpathwatch_bandwidth.so", "lib/pathwatch/plugins/libpathwatch_reachability.so",
            "lib/pathwatch/plugins/libpathwatch_loadavg.so",
            "include/pathwatch/pathwatch_probe.h", "lib/pkgconfig/pathwatch-probe.pc", "share/man/man1/pathwatch.1.gz",
            "share/bash-completion/completions/pathwatch", "share/zsh/site-functions/_pathwatch",
            "share/fish/vendor_completions.d/pathwatch.fish", "lib/systemd/system/pathwatch.service",
            "share/pathwatch/swift-sdk/Package.swift", "share/pathwatch/swift-sdk/LICENSE",
            "share/pathwatch/swift-sdk/Sources/PathwatchProbeKit/Probe.swift",
            "share/pathwatch/swift-sdk/Sources/CPathwatchProbe/include/pathwatch_probe.h",
            "share/doc/pathwatch/examples/conf.d/13-probe-dns.json", "share/doc/pathwatch/examples/conf.d/README.md",
            "share/pathwatch/prometheus/pathwatch.rules.yml", "share/pathwatch/prometheus/pathwatch.rules.test.yml",
        ] {
            #expect(FileManager.default.fileExists(atPath: "\(p)/\(file)"), "missing \(file)")
        }
        // Every example fragment of the repository, and nothing else but its README.
        let examples = try FileManager.default.contentsOfDirectory(
            atPath: "\(p)/share/doc/pathwatch/examples/conf.d")
        let shipped = try FileManager.default.contentsOfDirectory(
            atPath: Distribution.root.appendingPathComponent("dist/examples/conf.d").path)
        #expect(Set(examples) == Set(shipped) && examples.count >= 15, "installed: \(examples.sorted())")
        for file in ["/etc/pathwatch/config.json", "/etc/pathwatch/conf.d", "/var/lib/pathwatch"] {
            #expect(FileManager.default.fileExists(atPath: dest.path + file), "missing \(file)")
        }

        let binary = try run(["readelf", "-d", "\(p)/bin/pathwatch"])
        #expect(Distribution.runPath(inReadelf: binary.stdout) == ["$ORIGIN/../lib/pathwatch"])
        #expect(
            !binary.stdout.contains("libFoundationEssentials"),
            "the agent's executable maps no Foundation: \(binary.stdout)")
        let companion = try run(["readelf", "-d", "\(p)/lib/pathwatch/pathwatch-cli"])
        #expect(Distribution.runPath(inReadelf: companion.stdout) == ["$ORIGIN"])
        let plugin = try run(["readelf", "-d", "\(p)/lib/pathwatch/plugins/libpathwatch_disk.so"])
        #expect(Distribution.runPath(inReadelf: plugin.stdout) == ["$ORIGIN/.."])

        // The installed configuration names the installed folders.
        let config = try String(contentsOfFile: dest.path + "/etc/pathwatch/config.json", encoding: .utf8)
        #expect(config.contains(#""plugin_dirs": ["/usr/local/lib/pathwatch/plugins"]"#))
        #expect(config.contains(#""state_dir": "/var/lib/pathwatch""#))

        // pkg-config hands a C author the installed header's folder.
        let pc = ["PKG_CONFIG_PATH": "\(p)/lib/pkgconfig"]
        #expect(
            try run(["pkg-config", "--cflags", "pathwatch-probe"], environment: pc).stdout.trimmingCharacters(
                in: .whitespacesAndNewlines) == "-I/usr/local/include/pathwatch")
        #expect(
            try run(["pkg-config", "--modversion", "pathwatch-probe"], environment: pc).stdout
                == "\(Distribution.version)\n")
    }

    /// The C example is installed where Debian keeps a package's examples, and the installed copy
    /// builds against the installed header as plugins.md tells an author to build it.
    @Test func theInstalledCExampleBuildsAgainstTheInstalledHeader() throws {
        let dest = try TestEnvironment.makeTemporaryDirectory("pathwatch-install")
        defer { TestEnvironment.removeTemporaryDirectory(dest) }
        // No DESTDIR: the files are where the prefix says, so pkg-config's -I holds as written.
        let prefix = dest.path + "/usr"
        let installed = try run(
            [Distribution.root.appendingPathComponent("dist/install.sh").path],
            environment: Distribution.environment([
                "PREFIX": prefix, "SYSCONFDIR": dest.path + "/etc", "LOCALSTATEDIR": dest.path + "/var",
            ]),
            timeout: 300)
        try #require(installed.status == 0, "install.sh: \(installed.stderr)")
        let example = prefix + "/share/doc/pathwatch/examples/loadavg.c"
        let source = Distribution.root.appendingPathComponent("Plugins/Examples/LoadAvg/loadavg.c")
        #expect(try String(contentsOfFile: example, encoding: .utf8) == String(contentsOf: source, encoding: .utf8))

        let pc = ["PKG_CONFIG_PATH": prefix + "/lib/pkgconfig"]
        let flags = try run(["pkg-config", "--cflags", "pathwatch-probe", "json-c"], environment: pc)
        // pkg-config writes the path with single slashes, whatever $TMPDIR ends with.
        #expect(
            flags.stdout.contains("-I\(prefix.replacingOccurrences(of: "//", with: "/"))/include/pathwatch"),
            "\(flags.stdout)")
        let library = dest.path + "/libpathwatch_loadavg.so"
        let built = try sh(
            """
            cc -Wall -Wextra -Werror -shared -fPIC $(pkg-config --cflags pathwatch-probe json-c) '\(example)' \\
               $(pkg-config --libs json-c) -o '\(library)'
            """, environment: pc)
        #expect(built.status == 0, "the installed example does not build: \(built.stderr)")
        #expect(try run(["nm", "-D", "--defined-only", library]).stdout.contains(" T pathwatch_probe_entry"))
    }

    /// From a checkout, `make sdk`'s `.pc` (which `make test` writes first) gives the repository's
    /// header, and the C example builds with it as plugins.md says.
    @Test func theCheckoutsPcFileBuildsTheCExampleFromTheRepository() throws {
        let pc = ["PKG_CONFIG_PATH": Distribution.root.appendingPathComponent(".build/pkgconfig").path]
        let flags = try run(["pkg-config", "--cflags", "pathwatch-probe"], environment: pc)
        try #require(flags.status == 0, "make sdk first: \(flags.stderr)")
        #expect(
            flags.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                == "-I" + Distribution.root.appendingPathComponent("SDK/Sources/CPathwatchProbe/include").path)
        let dest = try TestEnvironment.makeTemporaryDirectory("pathwatch-sdk")
        defer { TestEnvironment.removeTemporaryDirectory(dest) }
        let source = Distribution.root.appendingPathComponent("Plugins/Examples/LoadAvg/loadavg.c").path
        let built = try sh(
            """
            cc -Wall -Wextra -Werror -shared -fPIC $(pkg-config --cflags pathwatch-probe json-c) '\(source)' \\
               $(pkg-config --libs json-c) -o '\(dest.path)/libpathwatch_loadavg.so'
            """, environment: pc)
        #expect(built.status == 0, "\(built.stderr)")
    }

    @Test func theInstalledAgentRunsWithTheToolchainHiddenAndTheBuiltOneDoesNot() throws {
        try #require(TestEnvironment.canUseNamespaces, "\(TestEnvironment.needsRootReason)")
        let dest = try TestEnvironment.makeTemporaryDirectory("pathwatch-install")
        defer { TestEnvironment.removeTemporaryDirectory(dest) }
        chmod(dest.path, 0o755)
        try #require(try Distribution.install(into: dest, prefix: "/usr").status == 0)
        let config = try writeConfig(
            #"{"agent": {"name": "installed", "plugin_dirs": ["\#(dest.path)/usr/lib/pathwatch/plugins"]}, "probes": [{"id": "load", "plugin": "loadavg"}]}"#,
            in: dest, name: "test.json")
        let toolchain = try Distribution.toolchainRuntime()
        // An empty tmpfs over the toolchain's runtime folder, in a mount namespace of our own.
        func hidden(_ command: String) throws -> ProcessResult {
            try run(["unshare", "-m", "sh", "-c", "mount -t tmpfs none '\(toolchain)' && \(command)"])
        }
        let built = try hidden("'\(Distribution.releaseProducts.path)/pathwatch' --version")
        #expect(built.status != 0)
        #expect(
            built.stderr.contains("libswiftCore.so: cannot open shared object file"),
            "the hiding must bite: \(built.stderr)")

        let installed = try hidden("'\(dest.path)/usr/bin/pathwatch' once --config '\(config.path)'")
        #expect((0...3).contains(installed.status), "stderr: \(installed.stderr)")
        let checks = try #require(try parseJSONObject(installed.stdout)["checks"] as? [[String: Any]])
        #expect(checks.contains { $0["id"] as? String == "load/load" }, "\(installed.stdout)")

        // Commands the agent's executable does not read itself reach the installed companion.
        let checked = try hidden("'\(dest.path)/usr/bin/pathwatch' check-config --config '\(config.path)'")
        #expect(
            checked.status == 0 && checked.stdout.contains("valid (1 probe,"),
            "stdout: \(checked.stdout) stderr: \(checked.stderr)")
        let version = try hidden("'\(dest.path)/usr/bin/pathwatch' --version")
        #expect(version.status == 0 && version.stdout == "\(Distribution.version)\n", "stderr: \(version.stderr)")
    }

    @Test func reinstallingKeepsTheOperatorsConfiguration() throws {
        let dest = try TestEnvironment.makeTemporaryDirectory("pathwatch-install")
        defer { TestEnvironment.removeTemporaryDirectory(dest) }
        try #require(try Distribution.install(into: dest, prefix: "/usr/local").status == 0)
        let file = dest.appendingPathComponent("etc/pathwatch/config.json")
        try "{}".write(to: file, atomically: true, encoding: .utf8)
        let again = try Distribution.install(into: dest, prefix: "/usr/local")
        #expect(again.status == 0)
        #expect(try String(contentsOf: file, encoding: .utf8) == "{}")
        #expect(again.stdout.contains("keeping the existing"))
    }
}
