import Foundation
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent

/// The plug-in host against real files: the built plug-ins, and each kind of file it must refuse.
@Suite(.onItsOwnThread) struct PluginHostTests {
    @Test func loadsTheRealBuiltPlugins() throws {
        let catalog = PluginCatalog.discover(in: [TestEnvironment.productsDirectory.path])
        let names = Set(catalog.plugins.map(\.name))
        for expected in ["disk", "loadavg"] {
            #expect(names.contains(expected), "built plug-ins: \(names); refused: \(catalog.refused)")
        }
        for plugin in catalog.plugins {
            #expect(plugin.abiVersion == 1)
            #expect(!plugin.version.isEmpty && !plugin.summary.isEmpty)
        }
    }

    @Test func refusesEachBadFileWithAReason() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        chmod(dir.path, 0o755)
        try FixturePlugins.build("test_probe.c", as: "good", into: dir)
        // A text file named like a library.
        try "this is not ELF\n".write(to: dir.appendingPathComponent("libtext.so"), atomically: true, encoding: .utf8)
        // An ELF library without the entry symbol.
        try FixturePlugins.build("no_symbol.c", as: "nosymbol", into: dir)
        // A plug-in built from the header with another ABI version.
        try FixturePlugins.build(
            "test_probe.c", as: "abi2", into: dir, defines: ["TEST_ABI=2", "TEST_NAME=\"abitwo\""])
        // A null name.
        try FixturePlugins.build("test_probe.c", as: "noname", into: dir, defines: ["TEST_NULL_NAME"])
        // The same name as the good one (sorted after it, so the first stays loaded).
        try FixturePlugins.build("test_probe.c", as: "zduplicate", into: dir)
        // A world-writable copy under another name.
        let writable = dir.appendingPathComponent("libwritable.so")
        try FileManager.default.copyItem(at: dir.appendingPathComponent("libabi2.so"), to: writable)
        chmod(writable.path, 0o666)
        // A folder, not a file.
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("libfolder.so"), withIntermediateDirectories: false)
        // Ignored entirely: not named lib*.so.
        try "x".write(to: dir.appendingPathComponent("README.txt"), atomically: true, encoding: .utf8)

        let catalog = PluginCatalog.discover(in: [dir.path])
        #expect(catalog.plugins.map(\.name) == ["testprobe"])
        #expect(catalog.plugins.first?.path.hasSuffix("libgood.so") == true)
        func reason(_ file: String) -> String? { catalog.refused.first { $0.path.hasSuffix("/\(file)") }?.reason }
        #expect(reason("libtext.so")?.hasPrefix("not a loadable library:") == true)
        #expect(reason("libnosymbol.so") == "not a Pathwatch plug-in: no pathwatch_probe_entry symbol")
        #expect(reason("libabi2.so") == "plug-in ABI version 2, but this agent speaks version 1")
        #expect(reason("libnoname.so") == "descriptor has a null or empty name")
        #expect(
            reason("libzduplicate.so")?.hasPrefix("duplicate plug-in name \"testprobe\" (already loaded from ") == true)
        #expect(reason("libwritable.so")?.contains("writable by others") == true)
        #expect(reason("libfolder.so") == "not a regular file")
        #expect(catalog.refused.count == 7)
        #expect(!catalog.refused.contains { $0.path.hasSuffix("README.txt") })
    }

    @Test func refusesAFolderWritableByOthers() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        try FixturePlugins.build("test_probe.c", as: "good", into: dir)
        chmod(dir.path, 0o777)
        let catalog = PluginCatalog.discover(in: [dir.path])
        #expect(catalog.plugins.isEmpty)
        #expect(catalog.refused.first?.reason.contains("folder") == true)
        #expect(catalog.refused.first?.reason.contains("writable by others") == true)
    }

    @Test func theSameFileReachedTwiceIsOnePluginNotADuplicate() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let catalog = PluginCatalog.discover(in: [dir.path, dir.path + "/."])
        #expect(catalog.plugins.map(\.name) == ["testprobe"])
        #expect(catalog.refused.isEmpty, "\(catalog.refused)")
    }

    @Test func missingFolderIsReportedNotFatal() {
        let catalog = PluginCatalog.discover(in: ["/nonexistent/plugins"])
        #expect(catalog.plugins.isEmpty)
        #expect(catalog.refused.first?.reason.hasPrefix("cannot read plug-in folder") == true)
    }

    @Test func pluginsCommandListsLoadedAndRefused() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        try FixturePlugins.build("no_symbol.c", as: "nosymbol", into: dir)
        let config = try writeConfig(#"{"agent": {"plugin_dirs": ["."]}}"#, in: dir)
        let result = try run([TestEnvironment.pathwatchBinary.path, "plugins", "--config", config.path])
        #expect(result.status == 0)
        #expect(result.stdout.contains("testprobe  9.9.9    abi 1"))
        #expect(result.stdout.contains("REFUSED"))
        #expect(result.stdout.contains("libnosymbol.so: not a Pathwatch plug-in: no pathwatch_probe_entry symbol"))
    }

    @Test func pluginConfigErrorsComeBackWithTheFullPath() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."]}, "probes": [
              {"id": "ok", "plugin": "testprobe"},
              {"id": "bad", "plugin": "testprobe", "config": {"fail_path": "targets[0].url"}}]}
            """, in: dir)
        for command in ["check-config", "once", "run"] {
            let result = try run([TestEnvironment.pathwatchBinary.path, command, "--config", config.path], timeout: 30)
            #expect(result.status == 78, "\(command): \(result.stderr)")
            #expect(
                result.stderr.contains("\(config.path): probes[1].config.targets[0].url: refused as the test asked"),
                "\(command): \(result.stderr)")
        }
        let missing = try writeConfig(
            #"{"agent": {"plugin_dirs": ["."]}, "probes": [{"id": "x", "plugin": "nosuch"}]}"#, in: dir,
            name: "missing.json")
        let result = try run([TestEnvironment.pathwatchBinary.path, "check-config", "--config", missing.path])
        #expect(result.status == 78)
        #expect(result.stderr.contains("probes[0].plugin: no plug-in named \"nosuch\""))
        #expect(result.stderr.contains("(found: testprobe)"))
    }

    @Test func malformedObservationsAreRefusedAndTheGoodOnesKept() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."]}, "probes": [{"id": "g", "plugin": "testprobe", "config": {"garbage": true}}]}
            """, in: dir)
        let result = try run([TestEnvironment.pathwatchBinary.path, "once", "--config", config.path])
        #expect(result.status == 0, "\(result.stderr)")
        let doc = try parseJSONObject(result.stdout)
        let ids = (doc["checks"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(ids == ["g/c0", "g/with-nan"])
        let withNaN = (doc["checks"] as? [[String: Any]])?.last?["metrics"] as? [String: Any]
        #expect(withNaN?.keys.sorted() == ["fine"])
        #expect(result.stderr.contains("state 42 is not one of"))
        #expect(result.stderr.contains("struct_size 8 is smaller than"))
    }
}
